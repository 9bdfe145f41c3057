// The sinks in snapshots and at a restart (docs/outputs.md "/sinks" and "sink_NNNNN.csv";
// docs/galaxy.md "Sink particles"). Every rank holds every sink, so every rank hands the same
// sinks to the writers (rank 0 writes them) and every rank takes the whole file's sinks back: the
// state after a restart is the state that was written, on any rank count.
#include <algorithm>

#include "driver/particle_snapshot.hpp"
#include "io/snapshot_data.hpp"
#include "sinks/sink_module.hpp"

namespace kosmo::sinks {

template <int D>
void SinkModule<D>::write_snapshot_state(io::SnapshotMeta& meta) const {
  meta.sinks.present = true;
  meta.sinks.particles = driver::snapshot_particles(sinks_);
  meta.sinks.largest_identity = largest_identity_;
  meta.sinks.clouds = cloud_particles();
}

// A snapshot without sinks (written by a run without sink=.true.) starts with none, as RAMSES
// starts from an output without sink_NNNNN.csv.
template <int D>
void SinkModule<D>::restore_snapshot_state(const io::SnapshotMeta& meta, const std::string& file) {
  sinks_.clear();
  largest_identity_ = 0;
  if (!meta.sinks.present) return;
  driver::particles_from_snapshot<D>(meta.sinks.particles, file + " (sinks)", sinks_);
  largest_identity_ = meta.sinks.largest_identity;
  for (std::int64_t id : sinks_.id()) largest_identity_ = std::max(largest_identity_, id);
}

template void SinkModule<1>::write_snapshot_state(io::SnapshotMeta&) const;
template void SinkModule<2>::write_snapshot_state(io::SnapshotMeta&) const;
template void SinkModule<3>::write_snapshot_state(io::SnapshotMeta&) const;
template void SinkModule<1>::restore_snapshot_state(const io::SnapshotMeta&, const std::string&);
template void SinkModule<2>::restore_snapshot_state(const io::SnapshotMeta&, const std::string&);
template void SinkModule<3>::restore_snapshot_state(const io::SnapshotMeta&, const std::string&);

}  // namespace kosmo::sinks
