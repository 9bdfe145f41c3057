// RAMSES names and defaults (amr/amr_parameters.f90, amr/read_params.f90) unless the description
// says "kosmo"; cuRAMSES keys: seeds/000 Appendix F.
#include "driver/run_parameters.hpp"

#include "core/error.hpp"
#include "core/parameters.hpp"
#include "core/schema_builder.hpp"

namespace kosmo::driver {
namespace {

// What runs: problem='regions' is RAMSES' own set-up (hydro/init_flow_fine.f90 from the
// &INIT_PARAMS regions), which only the hydro solver can evolve; 'refined_sphere' is kosmo's
// mesh-only demo and has no gas.
void check_something_runs(const core::ParameterSet& p) {
  const std::string problem = p.get_string("RUN_PARAMS", "problem");
  const bool hydro = p.get_bool("RUN_PARAMS", "hydro");
  if (problem == "refined_sphere")
    KOSMO_REQUIRE(!hydro, p.location_of("RUN_PARAMS", p.set_by_user("RUN_PARAMS", "hydro") ? "hydro" : "problem")
                              << "hydro=.true. cannot run with problem='refined_sphere', kosmo's mesh-only demo: set "
                                 "problem='regions' to set the gas up from &INIT_PARAMS, or hydro=.false.");
  else
    KOSMO_REQUIRE(hydro || p.get_bool("RUN_PARAMS", "pic"),
                  p.location_of("RUN_PARAMS", p.set_by_user("RUN_PARAMS", "problem") ? "problem" : "hydro")
                      << "nothing to run: set hydro=.true. (problem='" << problem
                      << "' sets the gas up from &INIT_PARAMS) or pic=.true. (particles) in &RUN_PARAMS, or "
                         "problem='refined_sphere' for the mesh-only demo");
}

}  // namespace

// The table is laid out by hand, one key per row.
// clang-format off
void declare_run_parameters(core::SchemaBuilder& schema) {
  using namespace core::parameter_rows;
  using core::kMaxLevel;
  schema.declare_block("RUN_PARAMS", "What to run and for how long.");
  schema.add({
      integer_key("RUN_PARAMS", "ndim", 3, between(1, 3),
                  "number of space dimensions; kosmo picks its 1-, 2- or 3-D build at run time (--ndim overrides)"),
      string_key("RUN_PARAMS", "problem", "regions", {"regions", "refined_sphere"},
                 "kosmo: what to set up. 'regions' (RAMSES' behaviour): the gas from the &INIT_PARAMS regions, "
                 "needs hydro=.true.; 'refined_sphere': kosmo's mesh-only demo, no hydro"),
      logical_key("RUN_PARAMS", "hydro", false, "solve the hydrodynamics (&HYDRO_PARAMS)"),
      logical_key("RUN_PARAMS", "pic", false,
                  "collisionless particles (dark matter): cloud-in-cell deposit into the Poisson source and "
                  "kick-drift-kick on their level; with poisson=.false. they drift with no force (RAMSES)"),
      logical_key("RUN_PARAMS", "cosmo", false,
                  "cosmological run: super-comoving units and time (RAMSES), initial conditions from "
                  "&INIT_PARAMS filetype='grafic' or 'gaussian', outputs at aout; ndim=3, periodic, boxlen=1"),
      logical_key("RUN_PARAMS", "poisson", false,
                  "gravity (&POISSON_PARAMS): self-gravity of the gas solved level by level, or the analytic field of "
                  "gravity_type > 0; needs hydro=.true."),
      logical_key("RUN_PARAMS", "verbose", false, "print detailed progress messages"),
      integer_key("RUN_PARAMS", "nstepmax", 1000000, at_least(0), "maximum number of coarse time steps"),
      // RAMSES amr_step: level l+1 takes nsubcycle(l) steps per step of level l; read_params shifts the
      // array so that element 1 is levelmin.
      integer_array_key("RUN_PARAMS", "nsubcycle", kMaxLevel, 2, between(1, 2),
                        "per level from levelmin on: time steps of the next finer level per step of this level "
                        "(1 = same time step, 2 = adaptive time stepping)"),

      integer_key("RUN_PARAMS", "nrestart", 0, at_least(0),
                  "restart from output_NNNNN of the working directory (0 = start from the initial conditions); any "
                  "number of ranks may have written it; outputs continue at NNNNN + 1"),
      string_key("RUN_PARAMS", "jobcontrolfile", "", {},
                 "a file checked after every coarse step: a line 'output' writes a snapshot, 'stop' writes one and ends "
                 "the run; the file is renamed <name>.done once read"),
  });

  // Job control's wall-clock limit sits in &OUTPUT_PARAMS, where RAMSES reads it (amr/read_params.f90).
  schema.add({
      real_key("OUTPUT_PARAMS", "walltime_hrs", -1.0, any_value(),
               "wall-clock limit of the job in hours (< 0: none); a snapshot is written minutes_dump before it and "
               "the run stops"),
      real_key("OUTPUT_PARAMS", "minutes_dump", 1.0, at_least(0),
               "minutes before walltime_hrs at which the last snapshot is written"),
  });

  // Shared by the modules that set the initial state (hydro's regions, particles, cosmology).
  schema.declare_block("INIT_PARAMS", "Initial conditions: regions of uniform gas and point deposits, applied in order.");

  schema.add_run_check(&check_something_runs);
}
// clang-format on

}  // namespace kosmo::driver
