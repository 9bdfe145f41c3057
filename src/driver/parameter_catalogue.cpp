// The program's namelist schema: every module's declare_parameters(), in one place, since only the
// driver knows every module (ARCHITECTURE §6: the core never includes physics). core/ calls this
// when the schema is first needed; it is linked into every program that links kosmo_driver as an
// object file rather than from an archive (src/driver/CMakeLists.txt), so no module's rows can be
// left out by the linker.
//
// Within a block, keys are listed module by module in the order below (unless a module places a key
// after another's, SchemaBuilder::add_after); the check of the assembled table
// (SchemaBuilder::build) rejects two modules declaring the same key.
#include "cooling/cooling_parameters.hpp"
#include "core/mesh_parameters.hpp"
#include "core/schema_builder.hpp"
#include "cosmology/cosmology_parameters.hpp"
#include "driver/patch_parameters.hpp"
#include "driver/run_parameters.hpp"
#include "driver/unimplemented_parameters.hpp"
#include "feedback/feedback_parameters.hpp"
#include "gravity/gravity_parameters.hpp"
#include "hydro/hydro_parameters.hpp"
#include "io/output_parameters.hpp"
#include "parallel/parallel_parameters.hpp"
#include "particles/particle_parameters.hpp"
#include "sinks/sink_parameters.hpp"
#include "star_formation/star_formation_parameters.hpp"
#include "tracers/tracer_parameters.hpp"

namespace kosmo::core {

void declare_parameter_catalogue(SchemaBuilder& schema) {
  // The order of docs/namelist.md, of the start-up summary and of a resolved namelist.
  schema.list_blocks_in_order({"RUN_PARAMS", "AMR_PARAMS", "INIT_PARAMS", "HYDRO_PARAMS", "REFINE_PARAMS",
                               "BOUNDARY_PARAMS", "OUTPUT_PARAMS", "UNITS_PARAMS", "POISSON_PARAMS"});
  // The modules' cross-parameter checks run in this order too: the mesh, the run, the outputs, then
  // the physics.
  schema.declare_module("core", &declare_mesh_parameters);
  schema.declare_module("driver", &driver::declare_run_parameters);
  schema.declare_module("driver", &driver::declare_patch_parameters);
  schema.declare_module("io", &io::declare_parameters);
  schema.declare_module("hydro", &hydro::declare_parameters);
  schema.declare_module("cooling", &cooling::declare_parameters);
  schema.declare_module("gravity", &gravity::declare_parameters);
  schema.declare_module("parallel", &parallel::declare_parameters);
  schema.declare_module("particles", &particles::declare_parameters);
  schema.declare_module("tracers", &tracers::declare_parameters);
  schema.declare_module("feedback", &feedback::declare_parameters);
  schema.declare_module("star_formation", &star_formation::declare_parameters);
  schema.declare_module("sinks", &sinks::declare_parameters);
  schema.declare_module("cosmology", &cosmology::declare_parameters);
  schema.declare_module("driver", &driver::declare_unimplemented_parameters);
}

}  // namespace kosmo::core
