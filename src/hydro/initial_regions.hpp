#pragma once
// RAMSES' built-in initial conditions: the &INIT_PARAMS regions (hydro/init_flow_fine.f90
// region_condinit, converted to conservative variables as hydro/condinit.f90 does). Pure functions
// of one cell's centre and size: the caller loops over cells.
//
// Every cell starts from RAMSES' tiny background (density smallr, at rest, pressure
// smallr * smallc^2 / gamma, passive scalars 0); the regions are then applied in order:
//  'square' REPLACES the primitive state of cells whose centre lies inside the region, i.e.
//           (sum_d (2 |x_d - c_d| / L_d)^e)^(1/e) < 1, or max_d 2 |x_d - c_d| / L_d < 1 when
//           exp_region >= 10; a later region overrides an earlier one where they overlap;
//           Passive scalar n takes var_region(k, n);
//  'point'  ADDS to the primitive state, with cloud-in-cell weights w = prod_d max(1 - |x_d - c_d| / dx, 0):
//           density += d_region w / dx^D, velocity += (u,v,w)_region w, pressure += p_region w / dx^D.
//           Over the cells around the point the weights sum to 1, so the point adds the mass d_region
//           and the thermal energy p_region / (gamma - 1); a point at a corner of the box keeps only
//           the part of its cloud inside (RAMSES' sedov3d.nml puts 1/8 of the blast in the box).
//           Passive scalars are not added but SET to var_region(k, n) in every cell, inside the cloud
//           or not: RAMSES region_condinit does exactly that.
// The summed primitive state is then converted: E = rho |v|^2 / 2 + p / (gamma - 1).
// Positions, lengths and dx are in code length units with the box in [0, boxlen]^D, the same units
// as x_center and length_x (RAMSES scales cell centres by boxlen before region_condinit).
#include <array>
#include <string>
#include <vector>

#include "core/parameters.hpp"

namespace kosmo::hydro {

struct InitRegion {
  std::string type = "square";  // 'square' or 'point'
  double x_center = 0.0, y_center = 0.0, z_center = 0.0;
  double length_x = 1e10, length_y = 1e10, length_z = 1e10;
  double exp_region = 2.0;
  double d = 0.0, u = 0.0, v = 0.0, w = 0.0, p = 0.0;  // d_region, u_region, v_region, w_region, p_region
  std::vector<double> scalars;                          // var_region(i, 1..): passive scalar concentrations
  // Concentration of scalar n (0-based); 0 for a region built without scalars.
  double scalar(int n) const { return n < static_cast<int>(scalars.size()) ? scalars[static_cast<std::size_t>(n)] : 0.0; }
};

// The first nregion regions of &INIT_PARAMS, in namelist order.
std::vector<InitRegion> init_regions(const core::ParameterSet& params);

// Passive scalars of the run: npassive when the namelist sets it; otherwise the last var_region
// column that holds a non-zero value for one of the first nregion regions, so that a RAMSES namelist
// (whose NVAR is fixed at compile time) runs unchanged with the scalars it initialises.
int passive_scalar_count(const core::ParameterSet& params);

// Whether a cell centre lies inside a 'square' region (RAMSES: strictly inside, r < 1).
template <int D>
bool inside_square_region(const InitRegion& region, const std::array<double, D>& position);

// Cloud-in-cell weight of a cell of size dx centred at `cell_centre` for a 'point' region.
template <int D>
double point_region_weight(const InitRegion& region, const std::array<double, D>& cell_centre, double dx);

// Conservative variables [rho, rho v_0 .. rho v_{D-1}, E, rho s_0 .. rho s_{npassive-1}] of one cell
// of size dx: RAMSES' background (smallr, smallc from &HYDRO_PARAMS), then the regions in order.
template <int D>
void region_initial_state(const std::vector<InitRegion>& regions, double gamma, double smallr, double smallc,
                          int npassive, const std::array<double, D>& cell_centre, double dx, double* u_conservative);

}  // namespace kosmo::hydro
