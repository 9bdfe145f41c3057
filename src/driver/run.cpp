#include "driver/run.hpp"

#include <filesystem>
#include <ostream>

#include "core/error.hpp"
#include "driver/builtin_namelists.hpp"
#include "driver/patch_library.hpp"
#include "driver/simulation_run.hpp"
#include "driver/refined_sphere.hpp"
#include "parallel/memory_usage.hpp"

namespace kosmo::driver {

core::ParameterSet load_run_parameters(const CommandLine& line) {
  // Without a namelist: the showcase, a small cosmological box (3-D); with --ndim 1 or 2 the
  // mesh-only refined-sphere demo, since cosmological runs are 3-D.
  const bool lower_dimension = line.ndim == 1 || line.ndim == 2;
  core::ParameterSet params =
      !line.namelist.empty() ? core::ParameterSet::from_file(line.namelist)
      : lower_dimension      ? core::ParameterSet::from_text(refined_sphere_namelist, "(built-in examples/refined_sphere.nml)")
                             : core::ParameterSet::from_text(cosmology_box_namelist, "(built-in examples/cosmology_box.nml)");
  if (line.ndim != 0) {
    const long long in_file = params.get_int("RUN_PARAMS", "ndim");
    KOSMO_REQUIRE(!params.from_file("RUN_PARAMS", "ndim") || in_file == line.ndim,
                  "--ndim " << line.ndim << " contradicts ndim=" << in_file << " in &RUN_PARAMS of " << params.source());
    params.set_from_text("RUN_PARAMS", "ndim=" + std::to_string(line.ndim));
  }
  if (!line.patch.empty()) {
    // The command line wins over &RUN_PARAMS patch; a relative directory is the working directory's.
    const std::string directory = std::filesystem::absolute(line.patch).lexically_normal().string();
    KOSMO_REQUIRE(directory.find('\'') == std::string::npos, "--patch: a directory name with a quote (') is not supported");
    params.set_from_text("RUN_PARAMS", "patch='" + directory + "'");
  }
  return params;
}

void run(const core::ParameterSet& params, MPI_Comm comm, std::ostream& log, const std::vector<long long>& snapshot_steps) {
  // Blocks of 4 MiB and more (the mesh's fields, the outputs' copies) go back to the system when
  // freed, so that resident memory follows what is in use; smaller ones (a 64^3 run's particle
  // arrays, sorted afresh at each level step) stay in the heap to be reused (docs/performance.md).
  parallel::return_large_blocks_to_system(std::size_t{4} << 20);
  const std::string problem = params.get_string("RUN_PARAMS", "problem");
  const long long ndim = params.get_int("RUN_PARAMS", "ndim");
  const bool hydro = params.get_bool("RUN_PARAMS", "hydro"), pic = params.get_bool("RUN_PARAMS", "pic");
  KOSMO_REQUIRE(!params.get_bool("RUN_PARAMS", "poisson") || hydro || pic,
                params.source() << ": &RUN_PARAMS: poisson=.true. needs something to act on: hydro=.true. or pic=.true.");
  // pic=.true. without poisson: the particles drift with no force, as in RAMSES (the tracers of
  // tests/tracer/sedov run so).
  KOSMO_REQUIRE(!params.get_bool("RUN_PARAMS", "cosmo") || pic,
                params.source() << ": &RUN_PARAMS: cosmo=.true. needs pic=.true. and poisson=.true. (dark matter and gravity)");
  // The patch is built before any work, so that a compile error stops the run with nothing written.
  const std::unique_ptr<PatchLibrary> patch = load_patch(params, comm, log);  // collective
  KOSMO_REQUIRE(!patch || hydro || pic, params.source() << ": &RUN_PARAMS: a patch needs hydro=.true. or pic=.true. to act on");
  if (hydro || pic) {
    switch (ndim) {
      case 1: run_simulation<1>(params, comm, log, patch.get(), snapshot_steps); return;
      case 2: run_simulation<2>(params, comm, log, patch.get(), snapshot_steps); return;
      case 3: run_simulation<3>(params, comm, log, patch.get(), snapshot_steps); return;
    }
  }
  if (problem == "refined_sphere") {
    switch (ndim) {
      case 1: run_refined_sphere<1>(params, comm, log); return;
      case 2: run_refined_sphere<2>(params, comm, log); return;
      case 3: run_refined_sphere<3>(params, comm, log); return;
    }
  }
  KOSMO_FAIL(params.source() << ": &RUN_PARAMS: problem='" << problem << "' with ndim=" << ndim << " is not available");
}

}  // namespace kosmo::driver
