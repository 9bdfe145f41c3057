#pragma once
// Velocity tracer particles (RAMSES tracer=.true. with MC_tracer=.false.; docs/tracers.md):
// massless particles of family 'tracer' (RAMSES FAM_TRACER_GAS = 0) that follow the gas.
//
// Storage. The tracers live in the particle module's set (driver/level_particles.hpp), which locates
// them on the octree, migrates them between ranks, balances their load, writes them to every output
// format with their family and restores them from a restart; that module leaves them out of its
// leapfrog, its Courant limit, the Poisson source and the m_refine count. This module only places
// them at the start and moves them.
//
// Motion, per step dt of level l, after the particle module's kick and drift: the gas velocity
// u = momentum / max(rho, smallr) of the level's cells (and of the coarser cells its clouds fall back
// on) is interpolated cloud-in-cell at each tracer of the level, with the kernel of the
// gravitational force (RAMSES move_fine: its "classical tracers" take ff = sum of u vol instead of
// the force), and the tracer takes the midpoint step
//     x_half = x + u(x) dt / 2,   x += u(x_half) dt,
// second order in space for a steady flow; RAMSES takes x += u(x) dt (first order). The velocity is
// the gas state after the level's update. A tracer stays inside the box: on a non-periodic axis its
// position is held inside [0, boxlen) (the gas at a wall flows along it). The tracer's velocity
// attribute holds u(x_half), the velocity it moved with (RAMSES stores its ff likewise).
//
// Rank-count independence: the motion is per particle and reads owned and ghost cells only; the
// placement is identity-seeded and the identities follow a fixed order of the cells
// (tracer_placement.hpp), so every tracer has the same identity and trajectory on any rank count.
#include <array>
#include <string>
#include <vector>

#include "core/oct_tree.hpp"
#include "core/parameters.hpp"
#include "core/physics_module.hpp"
#include "core/timers.hpp"
#include "parallel/distributed_mesh.hpp"
#include "particles/particle_set.hpp"

namespace kosmo::tracers {

template <int D>
class TracerModule final : public core::PhysicsModule<D> {
 public:
  using Key = core::MortonKey;
  using Tree = core::OctTree<D, Key>;

  // `set` is the particle module's set, which carries the tracers. Registers the gas velocity of
  // the cells (transient, D fields).
  TracerModule(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh, core::Timers& timers,
               particles::ParticleSet<D>& set);

  std::string name() const override { return "tracers"; }
  // Finds the gas density and momentum (the hydro module's fields).
  void connect(const std::vector<core::PhysicsModule<D>*>& modules) override;
  // Places the tracers on the final initial mesh (tracer_feed_fmt). Collective.
  void end_initial_state() override;
  // Moves the tracers of `level` with the gas (see above), then migrates and locates them. Collective.
  void end_level_step(int level, double dt) override;

  // The tracers over all ranks. Collective.
  long long count() const;

 private:
  void place_in_cells();
  void place_from_file();
  // The largest identity of the particles already there, over all ranks (tracers number on from it).
  std::int64_t largest_identity() const;
  // Gas velocity on the owned and ghost cells of `level`.
  void compute_gas_velocity(int level);
  void add_tracer(const std::array<double, D>& position, std::int64_t id);

  Tree& tree_;
  parallel::DistributedMesh<D, Key>& mesh_;
  core::Timers& timers_;
  particles::ParticleSet<D>& set_;
  std::string feed_format_, feed_file_, source_;
  double tracer_mass_ = -1.0;
  double smallr_ = 1e-10;
  int density_ = -1;
  std::array<int, D> momentum_{};
  std::array<int, D> velocity_{};
};

}  // namespace kosmo::tracers
