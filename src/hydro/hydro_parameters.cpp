// RAMSES names, defaults and array lengths (hydro/hydro_parameters.f90, hydro/read_hydro_params.f90)
// unless the description says "kosmo".
#include "hydro/hydro_parameters.hpp"

#include "core/error.hpp"
#include "core/parameters.hpp"
#include "core/schema_builder.hpp"
#include "hydro/hydro_settings.hpp"
#include "hydro/initial_regions.hpp"

namespace kosmo::hydro {
namespace {

using core::kMaxBound;
using core::kMaxLevel;
using core::kMaxRegion;

// Region and boundary counts against their arrays (the ranges of nregion and nboundary already
// stop at MAXREGION and MAXBOUND; this keeps the two in step should the arrays change).
void check_regions(const core::ParameterSet& p) {
  const long long nregion = p.get_int("INIT_PARAMS", "nregion");
  const std::vector<std::string> region_type = p.get_string_array("INIT_PARAMS", "region_type");
  const core::ParameterSpec& type_spec = *core::find_parameter("INIT_PARAMS", "region_type");
  KOSMO_REQUIRE(nregion <= static_cast<long long>(region_type.size()),
                p.location_of("INIT_PARAMS", "nregion")
                    << "nregion = " << nregion << " exceeds the length of region_type (" << region_type.size() << ")");
  for (long long i = 0; i < nregion; ++i) {
    const core::ParameterValue type = region_type[static_cast<std::size_t>(i)];
    KOSMO_REQUIRE(core::value_allowed(type_spec, type),
                  p.location_of("INIT_PARAMS", "region_type")
                      << "region_type(" << i + 1 << ") = " << core::format_value(type)
                      << " is not an allowed choice: " << core::describe_allowed(type_spec));
  }
}

void check_boundaries(const core::ParameterSet& p) {
  const long long nboundary = p.get_int("BOUNDARY_PARAMS", "nboundary");
  const std::vector<long long> bound_type = p.get_int_array("BOUNDARY_PARAMS", "bound_type");
  KOSMO_REQUIRE(nboundary <= static_cast<long long>(bound_type.size()), p.location_of("BOUNDARY_PARAMS", "nboundary")
                                                                            << "nboundary = " << nboundary
                                                                            << " exceeds the length of bound_type ("
                                                                            << bound_type.size() << ")");
  // RAMSES read_hydro_params silently skips a boundary whose bound_type is not set; in kosmo an
  // unset type among the first nboundary is a mistake worth stopping for.
  for (long long i = 0; i < nboundary; ++i)
    KOSMO_REQUIRE(
        bound_type[static_cast<std::size_t>(i)] != 0,
        p.location_of("BOUNDARY_PARAMS", p.set_by_user("BOUNDARY_PARAMS", "bound_type") ? "bound_type" : "nboundary")
            << "bound_type(" << i + 1 << ") is not set but nboundary = " << nboundary
            << ": give each boundary a type, 1 reflecting, 2 outflow or 3 inflow");
}

// RAMSES' threshold also grows with the expansion rate of a cosmological run (3 hexp dx); kosmo's
// hydro module does not read the expansion rate yet, so that combination is stopped, not ignored.
void check_pressure_fix(const core::ParameterSet& p) {
  if (!pressure_fix_enabled(p) || p.get_real("HYDRO_PARAMS", "beta_fix") <= 0.0) return;
  KOSMO_REQUIRE(!p.get_bool("RUN_PARAMS", "cosmo"),
                p.location_of("HYDRO_PARAMS", "beta_fix")
                    << "beta_fix > 0 with cosmo=.true. is not implemented yet (the threshold's expansion term); "
                       "pressure_fix with beta_fix=0 works in cosmological runs");
}

// A var_region column beyond an explicit npassive would be silently dropped.
void check_passive_scalars(const core::ParameterSet& p) {
  if (!p.set_by_user("HYDRO_PARAMS", "npassive")) return;
  const long long npassive = p.get_int("HYDRO_PARAMS", "npassive");
  for (const InitRegion& region : init_regions(p))
    for (int n = static_cast<int>(npassive); n < kMaxPassive; ++n)
      KOSMO_REQUIRE(region.scalar(n) == 0.0, p.location_of("INIT_PARAMS", "var_region")
                                                 << "var_region sets passive scalar " << n + 1 << " but npassive = "
                                                 << npassive << "; raise npassive or leave it unset");
}

}  // namespace

// RAMSES users run cosmological boxes with pressure_fix=.true. (a cold, supersonic flow whose
// internal energy is a truncation error of E - rho v^2 / 2 otherwise): kosmo makes that the default
// of cosmo=.true. runs. Non-cosmological runs keep RAMSES' default, so their results do not change.
bool pressure_fix_enabled(const core::ParameterSet& p) {
  if (p.set_by_user("HYDRO_PARAMS", "pressure_fix")) return p.get_bool("HYDRO_PARAMS", "pressure_fix");
  return p.get_bool("RUN_PARAMS", "cosmo");
}

// The table is laid out by hand, one key per row.
// clang-format off
void declare_parameters(core::SchemaBuilder& schema) {
  using namespace core::parameter_rows;
  schema.declare_block("HYDRO_PARAMS", "The hydrodynamics solver (used when hydro=.true. in &RUN_PARAMS).");
  schema.add({
      // &HYDRO_PARAMS (hydro/hydro_parameters.f90)
      real_key("HYDRO_PARAMS", "gamma", 1.4, above(1), "adiabatic index of the ideal gas"),
      real_key("HYDRO_PARAMS", "courant_factor", 0.5, between(0, 1),
               "time step as a fraction of the Courant limit; 0 makes steps of zero length, as RAMSES (its "
               "point-mass tests use it with nstepmax=1 to test the Poisson solver); read only with hydro=.true., as "
               "RAMSES: without gas the particles' and free-fall limits use 0.5"),
      real_key("HYDRO_PARAMS", "smallr", 1e-10, above(0), "density floor (code units)"),
      real_key("HYDRO_PARAMS", "smallc", 1e-10, above(0), "sound speed floor (code units)"),
      integer_key("HYDRO_PARAMS", "slope_type", 1, between(0, 3),
                  "MUSCL slope limiter: 0 first order, 1 MinMod, 2 MonCen, 3 positivity-preserving unsplit "
                  "(multi-dimensional)"),
      string_key("HYDRO_PARAMS", "riemann", "llf", {"llf", "hll", "hllc", "exact"},
                 "Riemann solver: local Lax-Friedrichs, HLL, HLLC, or 'exact' (Toro's exact iterative solver)"),
      string_key("HYDRO_PARAMS", "scheme", "muscl", {"muscl"}, "hydro scheme: unsplit MUSCL-Hancock"),
      integer_key("HYDRO_PARAMS", "niter_riemann", 10, at_least(1),
                  "Newton iterations of the 'exact' Riemann solver"),
      logical_key("HYDRO_PARAMS", "pressure_fix", false,
                  "also evolve the internal energy non-conservatively (advection and -p dV work) and use it where "
                  "the conservative one is below the beta_fix threshold, with an energy-conserving internal-energy "
                  "floor (docs/hydro.md, 'Pressure fix'); kosmo: when not set, .true. in cosmological runs"),
      real_key("HYDRO_PARAMS", "beta_fix", 0.0, at_least(0),
               "pressure fix threshold: the internal energy is replaced where below beta_fix rho (velocity jump "
               "across the cell)^2; 0 = only where negative"),
      integer_key("HYDRO_PARAMS", "npassive", 0, between(0, kMaxPassive),
                  "kosmo: number of passive scalars advected with the gas (RAMSES fixes it at compile time "
                  "with NVAR); when not set, the last var_region column with a non-zero value"),
  });

  schema.declare_block("COOLING_PARAMS", "Gas thermodynamics: RAMSES' barotropic equations of state and radiative "
                                         "cooling with a UV background (docs/galaxy.md, 'Cooling').");
  schema.add({
      // &COOLING_PARAMS: the barotropic EOS keys (amr/amr_parameters.f90, hydro/eos.f90)
      logical_key("COOLING_PARAMS", "barotropic_eos", false,
                  "after each step reset the gas temperature to a function of density (barotropic_eos_form)"),
      logical_key("COOLING_PARAMS", "isothermal", false, "old name of barotropic_eos (RAMSES sets barotropic_eos)"),
      string_key("COOLING_PARAMS", "barotropic_eos_form", "legacy",
                 {"legacy", "isothermal", "polytrope", "double_polytrope", "custom"},
                 "temperature T(rho): 'isothermal' T_eos; 'polytrope' T_eos (rho/polytrope_rho)^(polytrope_index-1); "
                 "'double_polytrope' T_eos (1 + (rho/polytrope_rho)^(polytrope_index-1)); 'custom' isothermal below "
                 "polytrope_rho, polytrope above; 'legacy' (star-formation polytrope) is not implemented yet"),
      real_key("COOLING_PARAMS", "polytrope_rho", 1e50, above(0), "density of the polytrope's knee, g/cm^3"),
      real_key("COOLING_PARAMS", "polytrope_index", 1.0, any_value(), "polytropic index (gamma of the barotrope)"),
      real_key("COOLING_PARAMS", "t_eos", 10.0, above(0), "temperature of the barotrope (or its normalisation), K"),
      real_key("COOLING_PARAMS", "mu_gas", 1.0, above(0), "mean molecular weight: the EOS sets T/mu = T_eos/mu_gas"),
  });

  schema.add({
      // &INIT_PARAMS: RAMSES' region initial conditions (hydro/init_flow_fine.f90 region_condinit),
      // positions and lengths in code units within [0, boxlen]
      integer_key("INIT_PARAMS", "nregion", 0, between(0, kMaxRegion), "number of initial-condition regions used"),
      string_array_key("INIT_PARAMS", "region_type", kMaxRegion, "square", {"square", "point"},
                       "per region: 'square' sets the gas state inside the region; 'point' adds mass, velocity "
                       "and energy, spread over the cells around the point (cloud-in-cell)"),
      real_array_key("INIT_PARAMS", "x_center", kMaxRegion, 0.0, any_value(), "per region: x of the centre"),
      real_array_key("INIT_PARAMS", "y_center", kMaxRegion, 0.0, any_value(), "per region: y of the centre"),
      real_array_key("INIT_PARAMS", "z_center", kMaxRegion, 0.0, any_value(), "per region: z of the centre"),
      real_array_key("INIT_PARAMS", "length_x", kMaxRegion, 1e10, at_least(0),
                     "per 'square' region: full extent along x (0: empty; 'point' regions ignore it, RAMSES' "
                     "point-mass namelists give them 0)"),
      real_array_key("INIT_PARAMS", "length_y", kMaxRegion, 1e10, at_least(0),
                     "per 'square' region: full extent along y (0: empty; 'point' regions ignore it, RAMSES' "
                     "point-mass namelists give them 0)"),
      real_array_key("INIT_PARAMS", "length_z", kMaxRegion, 1e10, at_least(0),
                     "per 'square' region: full extent along z (0: empty; 'point' regions ignore it, RAMSES' "
                     "point-mass namelists give them 0)"),
      real_array_key("INIT_PARAMS", "exp_region", kMaxRegion, 2.0, above(0),
                     "per 'square' region: exponent of the norm (2 = ellipsoid, >= 10 = box)"),
      real_array_key("INIT_PARAMS", "d_region", kMaxRegion, 0.0, at_least(0),
                     "per region: density ('square'); mass added ('point')"),
      real_array_key("INIT_PARAMS", "u_region", kMaxRegion, 0.0, any_value(),
                     "per region: x velocity ('square'); velocity added ('point')"),
      real_array_key("INIT_PARAMS", "v_region", kMaxRegion, 0.0, any_value(),
                     "per region: y velocity ('square'); velocity added ('point')"),
      real_array_key("INIT_PARAMS", "w_region", kMaxRegion, 0.0, any_value(),
                     "per region: z velocity ('square'); velocity added ('point')"),
      real_array_key("INIT_PARAMS", "p_region", kMaxRegion, 0.0, at_least(0),
                     "per region: pressure ('square'); (gamma - 1) times the thermal energy added ('point')"),
      // RAMSES var_region(1:MAXREGION, 1:NVAR-NDIM-2)
      real_array2_key("INIT_PARAMS", "var_region", kMaxRegion, kMaxPassive, 0.0, any_value(),
                     "var_region(i, n): concentration of passive scalar n in region i (set in a 'square' region; "
                     "a 'point' region sets it everywhere, as RAMSES); without npassive, the last non-zero column "
                     "gives the number of scalars"),
  });

  schema.add({
      // RAMSES interpol_var: which variables prolongation interpolates
      integer_key("REFINE_PARAMS", "interpol_var", 0, between(0, 2),
                  "variables interpolated: 0 conservative, 1 primitive, 2 primitive with velocities"),
      // RAMSES hydro_flag / hydro_refine (hydro/godunov_utils.f90): refine where the jump to a neighbour,
      // normalised by the sum of both values plus the floor, exceeds err_grad; negative = off
      real_key("REFINE_PARAMS", "err_grad_d", -1.0, any_value(),
               "refine where the density jump to a neighbour, 2 abs(d1 - d2) / (d1 + d2 + floor_d), exceeds it; "
               "negative = off"),
      real_key("REFINE_PARAMS", "err_grad_u", -1.0, any_value(),
               "refine where a velocity jump to a neighbour, relative to the sum of sound speeds and speeds, "
               "exceeds it; negative = off"),
      real_key("REFINE_PARAMS", "err_grad_p", -1.0, any_value(),
               "refine where the pressure jump to a neighbour, 2 abs(p1 - p2) / (p1 + p2 + floor_p), exceeds it; "
               "negative = off"),
      real_key("REFINE_PARAMS", "floor_d", 1e-10, at_least(0), "density floor of the err_grad_d criterion"),
      real_key("REFINE_PARAMS", "floor_u", 1e-10, at_least(0), "velocity floor of the err_grad_u criterion"),
      real_key("REFINE_PARAMS", "floor_p", 1e-10, at_least(0), "pressure floor of the err_grad_p criterion"),
      // RAMSES poisson_refine (amr/flag_utils.f90), hydro without gravity: density >= m_refine * mass_sph / dx^3
      real_array_key("REFINE_PARAMS", "m_refine", kMaxLevel, -1.0, any_value(),
                     "per level from levelmin on: refine cells whose gas mass reaches m_refine * mass_sph "
                     "(-1 = off)"),
      real_key("REFINE_PARAMS", "mass_sph", 0.0, at_least(0), "mass unit of m_refine (code units)"),
      // RAMSES jeans_length_refine (hydro/hydro_flag.f90), with gravity only: refine where
      // jeans_refine * dx >= the Jeans length sqrt(pi c^2 / (G rho)) (hydro/jeans_refinement.hpp)
      real_array_key("REFINE_PARAMS", "jeans_refine", kMaxLevel, -1.0, any_value(),
                     "per level from levelmin on: refine cells whose Jeans length sqrt(pi c^2 / (G rho)) is at most "
                     "jeans_refine cell sizes (needs poisson=.true.; <= 0 = off)"),
  });

  schema.declare_block("BOUNDARY_PARAMS", "Non-periodic boundaries, as RAMSES boxes of coarse cells outside the domain; kosmo "
                                          "accepts boxes that cover a whole face of the box.");
  schema.add({
      // &BOUNDARY_PARAMS: RAMSES boundary regions (hydro/read_hydro_params.f90); kosmo takes whole faces
      integer_key("BOUNDARY_PARAMS", "nboundary", 0, between(0, kMaxBound),
                  "number of boundary regions used; an axis without any stays periodic"),
      integer_array_key("BOUNDARY_PARAMS", "bound_type", kMaxBound, 0, between(0, 3),
                        "per boundary: 1 reflecting, 2 outflow (zero gradient), 3 inflow (imposed d/u/v/w/p_bound)"),
      integer_array_key("BOUNDARY_PARAMS", "ibound_min", kMaxBound, 0, any_value(),
                        "per boundary: first coarse cell along x, relative to the box (-1 = the layer left of "
                        "the box, +1 = right of it, 0 = first cell)"),
      integer_array_key("BOUNDARY_PARAMS", "ibound_max", kMaxBound, 0, any_value(),
                        "per boundary: last coarse cell along x, relative to the box (0 = last cell)"),
      integer_array_key("BOUNDARY_PARAMS", "jbound_min", kMaxBound, 0, any_value(),
                        "per boundary: first coarse cell along y, as ibound_min"),
      integer_array_key("BOUNDARY_PARAMS", "jbound_max", kMaxBound, 0, any_value(),
                        "per boundary: last coarse cell along y, as ibound_max"),
      integer_array_key("BOUNDARY_PARAMS", "kbound_min", kMaxBound, 0, any_value(),
                        "per boundary: first coarse cell along z, as ibound_min"),
      integer_array_key("BOUNDARY_PARAMS", "kbound_max", kMaxBound, 0, any_value(),
                        "per boundary: last coarse cell along z, as ibound_max"),
      real_array_key("BOUNDARY_PARAMS", "d_bound", kMaxBound, 0.0, at_least(0), "per inflow boundary: density"),
      real_array_key("BOUNDARY_PARAMS", "u_bound", kMaxBound, 0.0, any_value(), "per inflow boundary: x velocity"),
      real_array_key("BOUNDARY_PARAMS", "v_bound", kMaxBound, 0.0, any_value(), "per inflow boundary: y velocity"),
      real_array_key("BOUNDARY_PARAMS", "w_bound", kMaxBound, 0.0, any_value(), "per inflow boundary: z velocity"),
      real_array_key("BOUNDARY_PARAMS", "p_bound", kMaxBound, 0.0, at_least(0), "per inflow boundary: pressure"),
      logical_key("BOUNDARY_PARAMS", "no_inflow", false,
                  "outflow boundaries let gas out only: the ghost's momentum normal to the face is clipped to point "
                  "out of the box (RAMSES make_boundary_hydro)"),
  });

  schema.add_check(&check_regions);
  schema.add_check(&check_boundaries);
  schema.add_check(&check_pressure_fix);
  schema.add_check(&check_passive_scalars);
}
// clang-format on

}  // namespace kosmo::hydro
