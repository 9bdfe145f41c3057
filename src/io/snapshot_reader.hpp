#pragma once
// Reading a kosmo HDF5 snapshot back for a restart (nrestart, seeds/000 §7.1): every rank reads a
// contiguous share of every level's octs with collective MPI-IO, whatever number of ranks wrote
// the file; the driver then sends each oct to its owner under the new decomposition.
#include <mpi.h>

#include <string>
#include <vector>

#include "io/snapshot_data.hpp"

namespace kosmo::io {

struct RestartShare {
  SnapshotMeta meta;                 // the file's header (fields and parameters are not read back)
  std::vector<std::string> restart_field_names;
  std::vector<SnapshotLevel> levels;  // this rank's share: oct_coordinates and restart_fields only
  // This rank's share of the snapshot's particles, in no particular spatial order: the driver sends
  // each to the rank owning its position. Empty for a snapshot without particles.
  SnapshotParticles particles;
};

// Reads output_NNNNN/kosmo_NNNNN.h5 under `directory`. Rank r of P reads octs
// [n r / P, n (r + 1) / P) of each level and particles [n r / P, n (r + 1) / P) of /particles (a
// file without that group, written before kosmo stored particles, reads as 0 particles). A missing
// or unreadable file, or one without restart data, is a kosmo::Error naming the file on every rank.
// Collective.
RestartShare read_restart_share(MPI_Comm comm, const std::string& directory, int output_number);

}  // namespace kosmo::io
