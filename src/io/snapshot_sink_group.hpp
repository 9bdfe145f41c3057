#pragma once
// The HDF5 group /sinks of a snapshot (docs/outputs.md "/sinks"): the sink particles, which every
// rank holds whole (io/snapshot_data.hpp SnapshotSinks). Rank 0 adds the group to the file after
// the collective write has closed it; at a restart every rank reads the whole group.
#include <string>

#include "io/snapshot_data.hpp"

namespace kosmo::io {

// Adds /sinks to the closed snapshot file at `path` (one process: not collective). Nothing when
// sinks.present is false. Throws a kosmo::Error naming the file on failure.
void write_sink_group(const std::string& path, const SnapshotSinks& sinks, int ndim);

// The group /sinks of the snapshot file at `path`, or present = false when the file has none (a
// run without sinks). Every array the writer wrote comes back bit for bit. Not collective.
SnapshotSinks read_sink_group(const std::string& path, int ndim);

}  // namespace kosmo::io
