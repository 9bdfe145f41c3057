#pragma once
// The smallest real physics module (docs/developing.md, "Adding a module"): a constant external
// acceleration g, the uniform field of a box near a planet's surface. It registers the acceleration
// fields that the gravity module would otherwise own (acceleration_x, _y, _z) and fills them at each
// force update; the gas (hydro/hydro_module.cpp) and the particles then kick themselves with it, as
// they do under gravity, without knowing which module made the field. It also registers a particle
// attribute (the time each particle has spent in the field), to show that one appears in every
// output and restart with no edit outside the module.
#include <array>
#include <optional>
#include <string>

#include "core/oct_tree.hpp"
#include "core/physics_module.hpp"
#include "particles/particle_set.hpp"

namespace kosmo::examples {

template <int D>
class ConstantAcceleration final : public core::PhysicsModule<D> {
 public:
  using Tree = core::OctTree<D, core::MortonKey>;

  // Registration happens in the constructor: cell fields with their metadata, then particle
  // attributes on the run's particle set (nullptr in a run without particles).
  ConstantAcceleration(Tree& tree, particles::ParticleSet<D>* particles, const std::array<double, D>& g) : tree_(tree), g_(g) {
    for (int d = 0; d < D; ++d)
      acceleration_[static_cast<std::size_t>(d)] =
          tree_.add_field(core::velocity_field(std::string("acceleration_") + "xyz"[d], "code_acceleration")
                              .owned_by(name())
                              .comoving(-3)
                              .when_missing(core::MissingInRestart::recompute));
    if (particles)
      time_in_field_ = particles->add_attribute(
          particles::particle_attribute("time_in_field", particles::AttributeType::float64, "code_time", name(), 2));
    particles_ = particles;
  }

  std::string name() const override { return "constant_acceleration"; }

  // The field on owned and ghost cells alike: it is the same everywhere, so no ghost refresh is
  // needed (the fields carry no GhostStage).
  void update_forces(int level, std::optional<double> /*time*/) override {
    for (const auto* octs : {&tree_.octs_at_level(level), &tree_.ghost_octs_at_level(level)})
      for (core::OctIndex o : *octs)
        for (int c = 0; c < Tree::cells_per_oct; ++c)
          for (int d = 0; d < D; ++d) tree_.field(acceleration_[static_cast<std::size_t>(d)])[Tree::cell_index(o, c)] = g_[static_cast<std::size_t>(d)];
  }

  // Each particle of the level spends dt more in the field.
  void end_level_step(int level, double dt) override {
    if (!particles_) return;
    auto time = particles_->template values<double>(time_in_field_);
    for (std::size_t i = 0; i < particles_->size(); ++i)
      if (particles_->level()[i] == level) time[i] += dt;
  }

 private:
  Tree& tree_;
  std::array<double, D> g_;
  std::array<int, D> acceleration_{};
  particles::ParticleSet<D>* particles_ = nullptr;
  int time_in_field_ = -1;
};

}  // namespace kosmo::examples
