#pragma once
// Writes one snapshot: output_NNNNN/ holding RAMSES' info_NNNNN.txt and one HDF5 file written
// collectively by all ranks (layout and crash safety: docs/outputs.md).
#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include "io/snapshot_data.hpp"

namespace kosmo::io {

// Version of the HDF5 layout, stored as the root attribute `format_version`; bump it whenever a
// reader would have to change.
inline constexpr int kSnapshotFormatVersion = 1;

// Collective over `comm`: every rank passes the same meta and its own octs of every level
// 1..meta.levelmax (levels[l-1].level == l); the file holds all ranks' lists concatenated in rank
// order. `particles` are this rank's particles (nullptr: none); the group /particles holds all
// ranks' particles in rank order and is written, possibly empty, in every snapshot. `directory` is
// the parent of output_NNNNN/ ("." = current directory). On failure every rank throws the same
// kosmo::Error and an existing output_NNNNN/ is left untouched.
void write_snapshot(MPI_Comm comm, const std::string& directory, const SnapshotMeta& meta,
                    const std::vector<SnapshotLevel>& levels, const SnapshotParticles* particles = nullptr);

// The mesh one level at a time: `level(l)` makes this rank's share of level l when the writer
// reaches it (l = 1..levelmax, in order, once each), so that an output holds one level's copy of
// the fields instead of the whole mesh's (docs/performance.md, "Bytes per oct"). `octs[l - 1]`: the
// octs level(l) will hold. Same file, same checks (each level checked as it comes, on all ranks).
struct SnapshotLevelSource {
  std::vector<long long> octs;
  std::function<SnapshotLevel(int level)> level;
};
void write_snapshot(MPI_Comm comm, const std::string& directory, const SnapshotMeta& meta, const SnapshotLevelSource& levels,
                    const SnapshotParticles* particles = nullptr);

// "output_00042" for 42.
std::string output_directory_name(int output_number);

}  // namespace kosmo::io
