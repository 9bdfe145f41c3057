// The sinks' cloud particles for RAMSES' part_ files (docs/outputs.md "RAMSES binary format", part
// file; RAMSES pm/sink_particle.f90 create_cloud_from_sink, whose clouds are real particles that
// backup_part writes): each sink's cloud points (the lattice of step dx_min / 2 within r_acc that
// carries its mass in the Poisson source, sink_module.hpp) as particles of family 3 (FAM_CLOUD)
// with RAMSES' identity -(sink index), the sink's velocity, an even share of its mass, level
// levelmin and, when the run's particles carry a birth time, the sink's (RAMSES tp = tsink). Each
// point goes to the part file of the rank owning the levelmin cell holding it (RAMSES: the cpu
// owning its position); a point outside a non-periodic box is dropped (RAMSES in_box).
#include <cmath>

#include "io/snapshot_data.hpp"
#include "sinks/sink_module.hpp"

namespace kosmo::sinks {

template <int D>
io::SnapshotParticles SinkModule<D>::cloud_particles() const {
  io::SnapshotParticles clouds;
  const auto& cloud = cloud_offsets();
  const double h = tree_.cell_size(levelmin_);
  const double boxlen = tree_.geometry().boxlen;
  for (std::size_t s = 0; s < sinks_.size(); ++s) {
    for (const Vector& offset : cloud) {
      Vector x{};
      typename Tree::Coordinates holder{};
      bool inside = true;
      for (int d = 0; d < D; ++d) {
        const auto axis = static_cast<std::size_t>(d);
        x[axis] = sinks_.position(d)[s] + offset[axis];
        if (tree_.geometry().periodic[axis]) x[axis] = particles::wrap_coordinate(x[axis], boxlen);
        inside = inside && x[axis] >= 0.0 && x[axis] < boxlen;
        holder[axis] = static_cast<std::int64_t>(std::floor(x[axis] / h));
      }
      if (!inside) continue;
      const core::CellIndex cell = tree_.find_cell(levelmin_, holder);
      if (cell == core::no_cell || tree_.role(Tree::oct_of(cell)) != core::OctRole::owned) continue;
      for (int d = 0; d < D; ++d) {
        clouds.position[static_cast<std::size_t>(d)].push_back(x[static_cast<std::size_t>(d)]);
        clouds.velocity[static_cast<std::size_t>(d)].push_back(sinks_.velocity(d)[s]);
      }
      clouds.mass.push_back(sinks_.mass()[s] / static_cast<double>(cloud.size()));
      clouds.id.push_back(-static_cast<std::int64_t>(s + 1));
      clouds.level.push_back(static_cast<std::int8_t>(levelmin_));
      clouds.family.push_back(static_cast<std::int8_t>(particles::Family::sink));
    }
  }
  // The sink's birth time per cloud particle, for the part files' birth_time column (if any).
  io::ParticleAttributeArray birth;
  birth.name = "birth_time";
  std::vector<double> times;
  const auto sink_birth = sinks_.template values<double>(ids_.birth_time);
  for (std::int64_t id : clouds.id) times.push_back(sink_birth[static_cast<std::size_t>(-id - 1)]);
  birth.values = std::move(times);
  clouds.attributes.push_back(std::move(birth));
  return clouds;
}

template io::SnapshotParticles SinkModule<1>::cloud_particles() const;
template io::SnapshotParticles SinkModule<2>::cloud_particles() const;
template io::SnapshotParticles SinkModule<3>::cloud_particles() const;

}  // namespace kosmo::sinks
