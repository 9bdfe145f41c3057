#include "driver/patch_hooks.hpp"

#include <vector>

#include "core/error.hpp"
#include "hydro/equation_of_state.hpp"
#include "hydro/initial_regions.hpp"

namespace kosmo::driver {
namespace {

// RAMSES condinit starts from region_condinit: the patch receives the &INIT_PARAMS regions'
// primitive state of the cell and returns its own. One cell per call (ncell = 1), from the gas
// module's threads.
template <int D>
void install_condinit(Simulation<D>& sim, const PatchLibrary& patch, const core::ParameterSet& params) {
  KOSMO_REQUIRE(sim.gas(), "patch " << patch.directory() << ": kosmo_patch_condinit needs hydro=.true. in &RUN_PARAMS of " << params.source());
  const hydro::SchemeSettings scheme = sim.hydro().settings().scheme;
  const auto regions = hydro::init_regions(params);
  const auto condinit = patch.condinit();
  const kosmo_patch_context* context = &patch.context();
  const int nvar = context->nvar;
  sim.set_initial_condition([=](const std::array<double, D>& x, double dx, double* q) {
    std::vector<double> u(static_cast<std::size_t>(nvar));
    hydro::region_initial_state<D>(regions, scheme.gamma, scheme.smallr, scheme.smallc, scheme.npassive, x, dx, u.data());
    hydro::conservative_to_primitive<D>(u.data(), q, scheme);
    condinit(context, 1, x.data(), dx, q);
  });
}

template <int D>
void install_gravana(Simulation<D>& sim, const PatchLibrary& patch, const core::ParameterSet& params) {
  gravity::LevelGravity<D>* gravity = sim.gravity();
  KOSMO_REQUIRE(gravity && gravity->has_analytic_field(),
                "patch " << patch.directory() << ": kosmo_patch_gravana needs poisson=.true. in &RUN_PARAMS and gravity_type "
                         << "!= 0 in &POISSON_PARAMS (RAMSES calls gravana only then) in " << params.source());
  const auto gravana = patch.gravana();
  const kosmo_patch_context* context = &patch.context();
  gravity->set_analytic_field([gravana, context](int ncell, const double* x, double dx, double* g) { gravana(context, ncell, x, dx, g); });
}

// Every rank asks the patch for the full list and keeps the particles it owns (as with ic_part).
template <int D>
void install_particles(Simulation<D>& sim, const PatchLibrary& patch, const core::ParameterSet& params) {
  KOSMO_REQUIRE(sim.particles(), "patch " << patch.directory() << ": kosmo_patch_particles needs pic=.true. in &RUN_PARAMS of "
                                          << params.source());
  const long long n = patch.particle_count()(&patch.context());
  KOSMO_REQUIRE(n >= 0, "patch " << patch.directory() << ": kosmo_patch_particle_count returned " << n);
  const auto count = static_cast<std::size_t>(n);
  std::vector<double> x(count * D), v(count * D), m(count);
  patch.particles()(&patch.context(), n, x.data(), v.data(), m.data());
  const double boxlen = patch.context().boxlen;
  particles::ParticleSet<D> set;
  for (std::size_t p = 0; p < count; ++p) {
    typename particles::ParticleSet<D>::Particle particle;
    for (std::size_t d = 0; d < static_cast<std::size_t>(D); ++d) {
      particle.position[d] = x[d * count + p];
      particle.velocity[d] = v[d * count + p];
      KOSMO_REQUIRE(particle.position[d] >= 0.0 && particle.position[d] < boxlen,
                    "patch " << patch.directory() << ": particle " << p + 1 << " lies outside the box [0, " << boxlen << ") along axis " << d);
    }
    particle.mass = m[p];
    particle.id = static_cast<std::int64_t>(p) + 1;
    set.add(particle);
  }
  sim.set_initial_particles(std::move(set));
}

}  // namespace

template <int D>
void install_patch_hooks(Simulation<D>& sim, const PatchLibrary& patch, const core::ParameterSet& params, bool restarting) {
  KOSMO_REQUIRE(patch.context().ndim == D, "patch " << patch.directory() << ": built for ndim=" << patch.context().ndim << ", run has " << D);
  if (patch.gravana()) install_gravana(sim, patch, params);
  if (restarting) return;
  if (patch.condinit()) install_condinit(sim, patch, params);
  if (patch.particles()) install_particles(sim, patch, params);
}

template void install_patch_hooks<1>(Simulation<1>&, const PatchLibrary&, const core::ParameterSet&, bool);
template void install_patch_hooks<2>(Simulation<2>&, const PatchLibrary&, const core::ParameterSet&, bool);
template void install_patch_hooks<3>(Simulation<3>&, const PatchLibrary&, const core::ParameterSet&, bool);

}  // namespace kosmo::driver
