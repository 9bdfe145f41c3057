#pragma once
// RAMSES binary outputs (amr_, hydro_, part_NNNNN.outCCCCC, their descriptors, info_NNNNN.txt) that
// yt, osyris and pynbody load unchanged. Layouts and reader traps: shared/reference/ramses-format.md;
// what is written and the limits: docs/outputs.md, "RAMSES binary format".
//
// Two layers: write_ramses_domain_files() writes one cpu domain's files from a fully assembled
// RamsesDomain (pure file I/O, no MPI, unit-tested record by record), and write_ramses_snapshot()
// is the collective wrapper that assembles each rank's domain, ghost octs included, and places the
// files atomically.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/snapshot_data.hpp"

namespace kosmo::io {

// What one amr/hydro file pair holds: the octs of every (level, cpu) block of RAMSES' linked lists.
// blocks[l - 1][c - 1] lists the octs of level l stored in cpu c's block, in file order; field values
// follow meta.fields. Block `cpu` holds the octs this domain owns; the other blocks hold the ghost
// octs readers need (ramses-format.md, "Oct blocks": ancestors of owned octs and other ranks'
// children of owned cells).
struct RamsesDomain {
  int cpu = 1;  // 1-based file number CCCCC (rank + 1)
  // Grid-index stride of RAMSES cell indices (cell = ncoarse + (ind - 1) * ngridmax + grid); must be
  // at least the number of octs in the file. The wrapper uses the snapshot's total oct count, the
  // value the info file prints as ngridmax, so all files and the info file agree.
  long long ngridmax = 0;
  std::vector<std::vector<SnapshotLevel>> blocks;  // [level - 1][cpu - 1]
  // numbtot(1:4, level) of the AMR header: octs of the level over all cpus, min, max and mean per
  // cpu. Empty: computed from this file's blocks.
  std::vector<std::array<std::int32_t, 4>> level_statistics;
};

// Writes amr_NNNNN.outCCCCC and hydro_NNNNN.outCCCCC (CCCCC = domain.cpu) into `directory`, each
// first under a ".tmp" name and renamed once complete. Throws kosmo::Error naming the file on any
// inconsistency or I/O failure. Ratio of adiabatic heats for the hydro header: `gamma`.
void write_ramses_domain_files(const std::filesystem::path& directory, const SnapshotMeta& meta,
                               const RamsesDomain& domain, double gamma);

// hydro_file_descriptor.txt for meta.fields (every type 'd'), same temporary-name rule.
void write_ramses_hydro_descriptor(const std::filesystem::path& directory, const SnapshotMeta& meta);

// info_NNNNN.txt (io/info_file.hpp) with ngridmax = total_octs, same temporary-name rule.
void write_ramses_info_file(const std::filesystem::path& directory, const SnapshotMeta& meta, long long total_octs);

// The ratio of specific heats from meta.parameters (&HYDRO_PARAMS gamma, "1.4d0" accepted),
// RAMSES' default 1.4 when absent.
double ramses_gamma(const SnapshotMeta& meta);

// Collective: this rank's RamsesDomain for the octs `levels` it owns (SnapshotLevel lists as for
// write_snapshot: levels[l - 1].level == l, each oct owned by exactly one rank). Fetches from their
// owners the ghost octs the file needs; also used by tests. The levels are moved into the domain's
// own blocks (an output holds one copy of the mesh, not two: docs/performance.md); their
// restart_fields, which RAMSES' files do not hold, are dropped.
RamsesDomain assemble_ramses_domain(MPI_Comm comm, const SnapshotMeta& meta, std::vector<SnapshotLevel> levels);

enum class RamsesDirectoryMode {
  // output_NNNNN/ is built as output_NNNNN.ramses.tmp/ and renamed into place when every rank's
  // files are complete (an existing output_NNNNN/ is replaced only then).
  create_new,
  // output_NNNNN/ already exists (the HDF5 writer made it, outformat='both'): the files are added
  // to it, each written under a temporary name and renamed.
  add_to_existing,
};

// Collective over `comm` (ncpu = comm size; meta.ncpu must equal it). `directory` is the parent of
// output_NNNNN/. Every rank passes the same meta and the octs it owns per level 1..meta.levelmax.
// Writes info_NNNNN.txt (rank 0), hydro_file_descriptor.txt (rank 0) and amr_/hydro_NNNNN.outCCCCC
// (rank r writes CCCCC = r + 1). When any rank passes `particles` (its own; nullptr elsewhere counts
// as none), also part_NNNNN.outCCCCC on every rank, even empty, and part_file_descriptor.txt and
// header_NNNNN.txt (rank 0; io/ramses_particles.hpp). On failure every rank throws the same
// kosmo::Error.
void write_ramses_snapshot(MPI_Comm comm, const std::string& directory, const SnapshotMeta& meta,
                           std::vector<SnapshotLevel> levels,
                           RamsesDirectoryMode mode = RamsesDirectoryMode::create_new,
                           const SnapshotParticles* particles = nullptr);

}  // namespace kosmo::io
