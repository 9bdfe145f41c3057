// RAMSES' boundary boxes (hydro/read_hydro_params.f90, "Compute boundary geometry") translated into
// one boundary type per face of the box.
#include "hydro/boundary_conditions.hpp"

#include <sstream>
#include <string>
#include <vector>

namespace kosmo::hydro {
namespace {

constexpr const char* kAxisName[3] = {"x", "y", "z"};
constexpr const char* kMinKey[3] = {"ibound_min", "jbound_min", "kbound_min"};
constexpr const char* kMaxKey[3] = {"ibound_max", "jbound_max", "kbound_max"};
constexpr const char* kSideName[2] = {"low", "high"};

// One &BOUNDARY_PARAMS entry, as the user wrote it.
struct RawBoundary {
  int index = 0;  // 1-based
  int axis = -1;  // the axis whose face it covers
  long long type = 0;
  std::array<long long, 3> min{}, max{};
  std::array<double, 5> state{};
};

std::string describe(const RawBoundary& b) {
  std::ostringstream s;
  s << "boundary " << b.index << " (";
  for (int a = 0; a < 3; ++a)
    s << (a ? ", " : "") << kMinKey[a] << "(" << b.index << ")=" << b.min[a] << ", " << kMaxKey[a] << "(" << b.index
      << ")=" << b.max[a];
  s << ")";
  return s.str();
}

}  // namespace

const char* boundary_type_name(BoundaryType type) {
  switch (type) {
    case BoundaryType::periodic:
      return "periodic";
    case BoundaryType::reflecting:
      return "reflecting";
    case BoundaryType::outflow:
      return "outflow";
    case BoundaryType::inflow:
      return "inflow";
  }
  return "unknown";
}

template <int D>
BoxBoundaries<D> box_boundaries(const core::ParameterSet& params) {
  const std::string at = params.source() + ": &BOUNDARY_PARAMS: ";
  const long long nboundary = params.get_int("BOUNDARY_PARAMS", "nboundary");
  const std::vector<long long> bound_type = params.get_int_array("BOUNDARY_PARAMS", "bound_type");
  std::array<std::vector<long long>, 3> mins, maxs;
  for (int a = 0; a < 3; ++a) {
    mins[static_cast<std::size_t>(a)] = params.get_int_array("BOUNDARY_PARAMS", kMinKey[a]);
    maxs[static_cast<std::size_t>(a)] = params.get_int_array("BOUNDARY_PARAMS", kMaxKey[a]);
  }
  const char* state_keys[5] = {"d_bound", "u_bound", "v_bound", "w_bound", "p_bound"};
  std::array<std::vector<double>, 5> states;
  for (int k = 0; k < 5; ++k)
    states[static_cast<std::size_t>(k)] = params.get_real_array("BOUNDARY_PARAMS", state_keys[k]);
  const double smallr = params.get_real("HYDRO_PARAMS", "smallr");
  const bool no_inflow = params.get_bool("BOUNDARY_PARAMS", "no_inflow");

  BoxBoundaries<D> box;
  std::vector<RawBoundary> used;  // the entries that became a face, for the corner check below
  for (long long n = 0; n < nboundary; ++n) {
    const auto i = static_cast<std::size_t>(n);
    RawBoundary b;
    b.index = static_cast<int>(n + 1);
    b.type = bound_type[i];
    for (int a = 0; a < 3; ++a) {
      b.min[static_cast<std::size_t>(a)] = mins[static_cast<std::size_t>(a)][i];
      b.max[static_cast<std::size_t>(a)] = maxs[static_cast<std::size_t>(a)][i];
    }
    for (int k = 0; k < 5; ++k) b.state[static_cast<std::size_t>(k)] = states[static_cast<std::size_t>(k)][i];
    KOSMO_REQUIRE(b.type >= 1 && b.type <= 3, at << "boundary " << b.index << " has bound_type(" << b.index << ") = "
                                                 << b.type << "; use 1 (reflecting), 2 (outflow) or 3 (inflow)");

    // RAMSES takes the first axis, x then y then z, whose min and max are both -1 or both +1.
    int axis = -1;
    for (int a = 0; a < 3 && axis < 0; ++a)
      if (b.min[static_cast<std::size_t>(a)] * b.max[static_cast<std::size_t>(a)] == 1) axis = a;
    KOSMO_REQUIRE(axis >= 0,
                  at << describe(b)
                     << " is not a layer outside a face of the box: kosmo implements boundaries that cover "
                        "a whole face, written as min = max = -1 (low side) or +1 (high side) along one axis");
    if (axis >= D) continue;  // RAMSES ignores boundaries along axes the run does not have (ndim > axis).
    const int side = b.min[static_cast<std::size_t>(axis)] == -1 ? 0 : 1;
    b.axis = axis;

    // Along the other axes the box must span the whole face: offsets 0,0 (the face) or reaching one
    // layer further into a corner (-1 and/or +1). RAMSES would accept a partial face; kosmo does not.
    for (int a = 0; a < D; ++a) {
      if (a == axis) continue;
      const long long lo = b.min[static_cast<std::size_t>(a)], hi = b.max[static_cast<std::size_t>(a)];
      KOSMO_REQUIRE(lo <= 0 && hi >= 0,
                    at << describe(b) << " covers only part of the " << kSideName[side] << " " << kAxisName[axis]
                       << " face: kosmo implements boundaries that cover a whole face; set " << kMinKey[a] << "("
                       << b.index << ")=0 and " << kMaxKey[a] << "(" << b.index << ")=0");
      KOSMO_REQUIRE(lo >= -1 && hi <= 1, at << describe(b) << " reaches more than one layer beyond the box along "
                                            << kAxisName[a] << "; the ghost layer is one coarse cell thick");
    }
    BoundaryFace& face = box.faces[static_cast<std::size_t>(2 * axis + side)];
    KOSMO_REQUIRE(face.source == 0, at << "boundaries " << face.source << " and " << b.index << " both cover the "
                                       << kSideName[side] << " " << kAxisName[axis] << " face of the box");
    face.type = static_cast<BoundaryType>(b.type);
    face.state = b.state;
    face.smallr = smallr;
    face.no_inflow = no_inflow && face.type == BoundaryType::outflow;
    face.source = b.index;
    used.push_back(b);
  }

  for (int a = 0; a < D; ++a) {
    const BoundaryFace& low = box.face(a, 0);
    const BoundaryFace& high = box.face(a, 1);
    KOSMO_REQUIRE((low.source == 0) == (high.source == 0),
                  at << kAxisName[a] << " has a boundary on its " << (low.source ? "low" : "high") << " side (boundary "
                     << (low.source ? low.source : high.source) << ") but none on its " << (low.source ? "high" : "low")
                     << " side: give both sides of an axis a boundary, or neither (periodic)");
  }
  // A box reaching into a corner layer needs that layer to exist: in RAMSES it exists only where
  // the other axis has a boundary too (the range check "Check boundary conditions along ...").
  for (const RawBoundary& b : used) {
    for (int a = 0; a < D; ++a) {
      if (a == b.axis) continue;
      const bool reaches_corner = b.min[static_cast<std::size_t>(a)] == -1 || b.max[static_cast<std::size_t>(a)] == 1;
      KOSMO_REQUIRE(!reaches_corner || !box.periodic(a), at << describe(b) << " reaches into the corner layer along "
                                                            << kAxisName[a] << ", but " << kAxisName[a]
                                                            << " is periodic: set " << kMinKey[a] << "(" << b.index
                                                            << ")=0 and " << kMaxKey[a] << "(" << b.index << ")=0");
    }
  }
  return box;
}

template BoxBoundaries<1> box_boundaries<1>(const core::ParameterSet&);
template BoxBoundaries<2> box_boundaries<2>(const core::ParameterSet&);
template BoxBoundaries<3> box_boundaries<3>(const core::ParameterSet&);

}  // namespace kosmo::hydro
