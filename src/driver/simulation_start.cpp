#include "driver/simulation_start.hpp"

#include <memory>

#include "core/error.hpp"
#include "driver/cosmological_initial_conditions.hpp"
#include "driver/particle_initial_conditions.hpp"
#include "star_formation/star_formation_parameters.hpp"
#include "driver/patch_hooks.hpp"

namespace kosmo::driver {

template <int D>
void prepare_start(Simulation<D>& sim, const core::ParameterSet& params, bool restarting, const PatchLibrary* patch) {
  const bool cosmo = params.get_bool("RUN_PARAMS", "cosmo");
  KOSMO_REQUIRE(!cosmo || D == 3, params.source() << ": &RUN_PARAMS: cosmo=.true. needs ndim=3");
  if constexpr (D == 3) {
    if (cosmo) {
      // RAMSES init_time + init_part + init_flow_fine: background, particles and gas at aexp_ini.
      // A restart needs the background too, and takes it from the same initial conditions.
      auto start = std::make_shared<CosmologicalStart>(cosmological_start(params));
      sim.set_cosmology(start->model);
      if (restarting) {
        if (patch) install_patch_hooks(sim, *patch, params, restarting);
        return;
      }
      sim.set_time(start->model->time_at(start->aexp));
      sim.set_initial_particles(std::move(start->particles));
      if (sim.gas()) {
        const double boxlen = params.get_real("AMR_PARAMS", "boxlen");
        sim.set_initial_condition([start, boxlen](const std::array<double, 3>& x, double dx, double* q) { start->gas_state(x, boxlen, dx, q); });
      }
      if (patch) install_patch_hooks(sim, *patch, params, restarting);
      return;
    }
  }
  // A tracer or star-forming run may have no other particles (RAMSES reads ic_part only when initfile is set).
  const bool tracers_only = (params.get_bool("RUN_PARAMS", "tracer") || star_formation::star_formation_on(params)) &&
                            params.get_string_array("INIT_PARAMS", "initfile")[0].empty();
  const bool patch_particles = patch && patch->particles();
  if (sim.particles() && !restarting && !tracers_only && !patch_particles) sim.set_initial_particles(read_ascii_particles<D>(params));
  if (patch) install_patch_hooks(sim, *patch, params, restarting);
}

template void prepare_start<1>(Simulation<1>&, const core::ParameterSet&, bool, const PatchLibrary*);
template void prepare_start<2>(Simulation<2>&, const core::ParameterSet&, bool, const PatchLibrary*);
template void prepare_start<3>(Simulation<3>&, const core::ParameterSet&, bool, const PatchLibrary*);

}  // namespace kosmo::driver
