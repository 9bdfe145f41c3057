#include "driver/ramses_restart_state.hpp"

#include <algorithm>
#include <functional>
#include <string>

#include "particles/particle_locate.hpp"
#include "particles/particle_mesh.hpp"

namespace kosmo::driver {
namespace {

bool has_name(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

double level_step(const std::vector<double>& steps, int level) {
  return level >= 1 && level <= static_cast<int>(steps.size()) ? steps[static_cast<std::size_t>(level - 1)] : 0.0;
}

// Adds restart field `name` with value(level) on every cell, when the run registers it and the
// share lacks it.
template <int D>
void add_level_field(const Simulation<D>& sim, io::RestartShare& share, const std::string& name, bool registered,
                     const std::function<double(int)>& value) {
  if (!(registered || sim.tree().fields().find(name) >= 0) || has_name(share.restart_field_names, name)) return;
  share.restart_field_names.push_back(name);
  constexpr std::size_t cells_per_oct = std::size_t{1} << D;
  for (io::SnapshotLevel& level : share.levels) {
    const std::size_t octs = level.oct_coordinates.size() / D;
    level.restart_fields.emplace_back(octs * cells_per_oct, value(level.level));
  }
}

// The level whose latest step `half_dt` is half of: the particle's current level when it matches,
// else the nearest matching one (0 when none does).
int kick_level(const std::vector<double>& steps, int current, double half_dt) {
  const auto nlevel = static_cast<int>(steps.size());
  const auto matches = [&](int l) { return l >= 1 && l <= nlevel && 0.5 * steps[static_cast<std::size_t>(l - 1)] == half_dt; };
  if (matches(current)) return current;
  for (int distance = 1; distance < nlevel; ++distance) {
    if (matches(current - distance)) return current - distance;
    if (matches(current + distance)) return current + distance;
  }
  return 0;
}

}  // namespace

template <int D>
void complete_ramses_restart_share(const Simulation<D>& sim, io::RestartShare& share) {
  // Without the forces of the file the restart solves them afresh and has no kick to redo.
  if (!has_name(share.restart_field_names, "acceleration_x")) return;
  const std::vector<double>& steps = share.meta.level_time_steps;
  const double time = share.meta.time;
  // The gas registers its pending kick time when it connects to gravity (hydro/hydro_module.cpp),
  // which Simulation::restart does first.
  const bool gas_kicked = sim.gas() && sim.gravity() != nullptr;
  add_level_field(sim, share, "gravity_half_kick_time", gas_kicked, [&](int level) { return 0.5 * level_step(steps, level); });
  add_level_field(sim, share, "potential_solve_level", false, [](int level) { return static_cast<double>(level); });
  add_level_field(sim, share, "potential_solve_time", false, [&](int level) { return time - level_step(steps, level); });
  io::SnapshotParticles& particles = share.particles;
  const bool registered = sim.particles() != nullptr;
  const bool present = std::any_of(particles.restart_fields.begin(), particles.restart_fields.end(),
                                   [](const io::ParticleRestartField& f) { return f.name == "pending_half_dt"; });
  if (!registered || present) return;
  io::ParticleRestartField half_dt{"pending_half_dt", std::vector<double>(particles.size(), 0.0)};
  for (std::size_t i = 0; i < particles.size(); ++i)
    if (particles.family[i] != static_cast<std::int8_t>(particles::Family::tracer))
      half_dt.values[i] = 0.5 * level_step(steps, particles.level[i]);
  particles.restart_fields.push_back(std::move(half_dt));
}

template <int D>
void rebuild_particle_kicks(Simulation<D>& sim, const std::vector<double>& level_time_steps) {
  LevelParticles<D>* module = sim.particles();
  gravity::LevelGravity<D>* gravity = sim.gravity();
  if (module == nullptr || gravity == nullptr) return;
  particles::ParticleSet<D>& set = module->set();
  const auto& tree = sim.tree();
  const double boxlen = tree.geometry().boxlen;
  // The particles kicked by a step, each with the level of that step.
  std::vector<std::size_t> kicked;
  std::vector<int> levels;
  for (std::size_t i = 0; i < set.size(); ++i) {
    const double half_dt = set.pending_half_dt()[i];
    if (set.family()[i] == particles::Family::tracer || half_dt == 0.0) continue;
    const int level = kick_level(level_time_steps, set.level()[i], half_dt);
    if (level == 0) continue;
    kicked.push_back(i);
    levels.push_back(level);
  }
  particles::ParticleSet<D> before;  // the kicked particles at their positions before the last drift
  for (std::size_t k = 0; k < kicked.size(); ++k) {
    typename particles::ParticleSet<D>::Particle p;
    for (int d = 0; d < D; ++d) p.position[static_cast<std::size_t>(d)] = set.position(d)[kicked[k]];
    before.add(p);
  }
  const int top = levels.empty() ? 0 : *std::max_element(levels.begin(), levels.end());
  // x_old = x - (v - kick) dt with kick = g(x_old) dt / 2 (LevelParticles::end_step): the kick moves
  // x_old by g dt^2 / 2, a small fraction of a cell, so a few iterations settle it to round-off.
  for (int iteration = 0; iteration < 4; ++iteration) {
    particles::locate_particles(tree, before);
    std::vector<double> g(kicked.size() * D, 0.0);
    for (int level = 1; level <= top; ++level) {
      particles::interpolate_acceleration<D, core::MortonKey>(tree, before, level, gravity->acceleration_fields(),
                                                              particles::LevelSelection::level_and_finer);
      for (std::size_t k = 0; k < kicked.size(); ++k)
        if (levels[k] == level)
          for (int d = 0; d < D; ++d) g[k * D + static_cast<std::size_t>(d)] = before.acceleration(d)[k];
    }
    for (std::size_t k = 0; k < kicked.size(); ++k) {
      const std::size_t i = kicked[k];
      const double half_dt = set.pending_half_dt()[i];
      for (int d = 0; d < D; ++d) {
        const double kick = half_dt * g[k * D + static_cast<std::size_t>(d)];
        set.pending_kick(d)[i] = kick;
        double x = set.position(d)[i] - (set.velocity(d)[i] - kick) * (2.0 * half_dt);
        if (tree.geometry().periodic[static_cast<std::size_t>(d)]) x = particles::wrap_coordinate(x, boxlen);
        before.position(d)[k] = x;
      }
    }
  }
}

template void complete_ramses_restart_share<1>(const Simulation<1>&, io::RestartShare&);
template void complete_ramses_restart_share<2>(const Simulation<2>&, io::RestartShare&);
template void complete_ramses_restart_share<3>(const Simulation<3>&, io::RestartShare&);
template void rebuild_particle_kicks<1>(Simulation<1>&, const std::vector<double>&);
template void rebuild_particle_kicks<2>(Simulation<2>&, const std::vector<double>&);
template void rebuild_particle_kicks<3>(Simulation<3>&, const std::vector<double>&);

}  // namespace kosmo::driver
