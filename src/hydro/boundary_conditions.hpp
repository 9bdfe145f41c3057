#pragma once
// Physical boundaries of the box from &BOUNDARY_PARAMS, and the state of a ghost cell beyond one.
//
// RAMSES describes a boundary as a box of coarse cells outside the domain (hydro/read_hydro_params.f90):
// ibound_min = ibound_max = -1 is the layer left of the box, +1 the layer right of it, and the
// ranges along the other axes are offsets to the box's first and last coarse cell (0,0 = the whole
// face, -1,+1 = the face plus the corner cells). kosmo implements boundaries that are whole faces:
// box_boundaries() translates RAMSES' boxes into one type per face and rejects anything else.
// The ghost-cell states follow RAMSES make_boundary_hydro (hydro/hydro_boundary.f90).
#include <array>
#include <cstdint>

#include "core/error.hpp"
#include "core/parameters.hpp"

namespace kosmo::hydro {

// RAMSES bound_type 1, 2, 3; an axis without boundaries is periodic.
enum class BoundaryType { periodic = 0, reflecting = 1, outflow = 2, inflow = 3 };

const char* boundary_type_name(BoundaryType type);

struct BoundaryFace {
  BoundaryType type = BoundaryType::periodic;
  std::array<double, 5> state{};  // inflow only: rho, u, v, w, p (d_bound, u_bound, v_bound, w_bound, p_bound)
  double smallr = 1e-10;          // &HYDRO_PARAMS smallr: RAMSES floors the imposed density with it
  bool no_inflow = false;         // outflow only, &BOUNDARY_PARAMS no_inflow: no gas enters through this face
  int source = 0;                 // 1-based index of the &BOUNDARY_PARAMS entry; 0 for a periodic face
};

// faces[2 * axis + side]: side 0 is the low face (x = 0), side 1 the high face (x = boxlen).
template <int D>
struct BoxBoundaries {
  std::array<BoundaryFace, 2 * D> faces{};

  // Both faces of an axis are periodic or neither is (box_boundaries checks it).
  bool periodic(int axis) const { return faces[static_cast<std::size_t>(2 * axis)].type == BoundaryType::periodic; }
  const BoundaryFace& face(int axis, int side) const { return faces[static_cast<std::size_t>(2 * axis + side)]; }
};

// The faces of the box from &BOUNDARY_PARAMS (and smallr from &HYDRO_PARAMS). Boundaries along an
// axis the run does not have (a y boundary with D = 1) are ignored, as RAMSES does. Throws
// kosmo::Error naming &BOUNDARY_PARAMS and the boundary's index for a box that is not a whole face,
// two boundaries on one face, or an axis with a boundary on one side only.
template <int D>
BoxBoundaries<D> box_boundaries(const core::ParameterSet& params);

// The index along `axis` of the interior cell whose state the ghost cell `ghost` takes, for a
// level with `cells_along` cells across the box (ghost < 0 or ghost >= cells_along). RAMSES
// (amr/physical_boundaries.f90 make_boundary_flag, ind_ref): a reflecting wall mirrors (ghost -1-k
// takes cell k), an outflow boundary copies the adjacent interior cell at every depth (zero
// gradient). An inflow ghost does not read the interior; the mirror cell is returned.
inline std::int64_t boundary_reference_cell(BoundaryType type, std::int64_t ghost, std::int64_t cells_along) {
  const bool low = ghost < 0;
  if (type == BoundaryType::outflow) return low ? 0 : cells_along - 1;
  return low ? -1 - ghost : 2 * cells_along - 1 - ghost;
}

// Conservative state [rho, rho v_0 .. rho v_{D-1}, E, rho s_0 ..] of a ghost cell beyond `face`
// (on side `side` of `axis`), from the interior cell boundary_reference_cell() names:
//  reflecting: the interior cell with the momentum normal to the face negated;
//  outflow:    the interior cell unchanged; with no_inflow the momentum normal to the face is clipped
//              so that it points out of the box (<= 0 on a low face, >= 0 on a high one) and the
//              kinetic energy in E follows it (RAMSES make_boundary_hydro, which divides by
//              max(rho, smallr));
//  inflow:     the imposed primitive state converted as RAMSES read_hydro_params does: density
//              floored at smallr, momentum d_bound * u_bound, E = kinetic + p_bound / (gamma - 1),
//              passive scalars 0 (var_bound is not implemented).
template <int D>
inline void boundary_ghost_state(const BoundaryFace& face, int axis, int side, double gamma, int npassive,
                                 const double* interior_mirror_cell_u, double* ghost_u) {
  const int nvar = D + 2 + npassive;
  switch (face.type) {
    case BoundaryType::reflecting:
      for (int v = 0; v < nvar; ++v) ghost_u[v] = interior_mirror_cell_u[v];
      ghost_u[1 + axis] = -interior_mirror_cell_u[1 + axis];
      return;
    case BoundaryType::outflow: {
      for (int v = 0; v < nvar; ++v) ghost_u[v] = interior_mirror_cell_u[v];
      if (!face.no_inflow) return;
      const double momentum = ghost_u[1 + axis];
      const double clipped = side == 0 ? (momentum < 0.0 ? momentum : 0.0) : (momentum > 0.0 ? momentum : 0.0);
      if (clipped == momentum) return;
      const double rho = ghost_u[0] > face.smallr ? ghost_u[0] : face.smallr;
      ghost_u[D + 1] += 0.5 * (clipped * clipped - momentum * momentum) / rho;
      ghost_u[1 + axis] = clipped;
      return;
    }
    case BoundaryType::inflow: {
      const double d = face.state[0];
      double kinetic = 0.0;
      ghost_u[0] = d > face.smallr ? d : face.smallr;
      for (int k = 0; k < D; ++k) {
        ghost_u[1 + k] = d * face.state[static_cast<std::size_t>(1 + k)];
        kinetic += 0.5 * d * face.state[static_cast<std::size_t>(1 + k)] * face.state[static_cast<std::size_t>(1 + k)];
      }
      ghost_u[D + 1] = kinetic + face.state[4] / (gamma - 1.0);
      for (int v = D + 2; v < nvar; ++v) ghost_u[v] = 0.0;
      return;
    }
    case BoundaryType::periodic:
      break;
  }
  KOSMO_FAIL("boundary_ghost_state: axis " << axis << " is periodic and has no ghost cells to fill");
}

}  // namespace kosmo::hydro
