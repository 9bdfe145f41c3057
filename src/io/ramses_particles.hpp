#pragma once
// The particle files of a RAMSES output (shared/reference/ramses-format.md, "part_NNNNN.outCCCCC,
// part_file_descriptor.txt"; RAMSES pm/output_part.f90 and amr/output_amr.f90 output_header), in the
// "new" layout RAMSES writes since particle families exist, which yt, osyris and pynbody read:
//
//   part_NNNNN.outCCCCC   one per rank, also when it holds no particle: header records ncpu, ndim,
//                         npart, localseed(4), nstar_tot, mstar_tot, mstar_lost, nsink, then one
//                         record per field of the descriptor, npart values each
//   part_file_descriptor.txt  "# version:  1", then " 1, position_x, d" ... (field, struct type code)
//   header_NNNNN.txt      particle counts per family and the "Particle fields" line
//
// Writer (ramses_particle_writer.cpp) and restart reader (ramses_particle_reader.cpp). What is
// written and why: docs/outputs.md, "RAMSES binary format".
#include <mpi.h>

#include <array>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "io/snapshot_data.hpp"

namespace kosmo::io {

// RAMSES' families run over -5..5 (pm_commons NFAMILIES = 5); header_NNNNN.txt counts each.
inline constexpr int kRamsesFamilies = 5;

// What every particle file and the shared text files must agree on, from all ranks' particles.
struct RamsesParticleTotals {
  std::array<long long, 2 * kRamsesFamilies + 1> family_count{};  // index family + 5
  long long undefined = 0;  // particles whose family lies outside -5..5
  long long total = 0;
  long long stars = 0;      // nstar_tot: family 2
  double star_mass = 0.0;   // mstar_tot
  // RAMSES writes identity as int32 ('i') unless compiled with -DLONGINT ('q', int64). kosmo writes
  // 'i' when every id of the snapshot fits int32 (what readers assume without a descriptor) and 'q'
  // otherwise; the choice is global so that the one descriptor describes every file.
  bool identity_int64 = false;
  // SnapshotParticles::attributes (name, struct type code d, q or b), written after `tag` (yt reads
  // every one as particle_<name>); the same on every rank. SnapshotParticles::restart_fields are
  // not written: RAMSES files hold analysis quantities only, and a restart from them rebuilds the
  // leapfrog's state (docs/outputs.md, "Restarts").
  std::vector<std::pair<std::string, char>> attributes;
};

// The particle restart field holding half the length of the step that last kicked each particle
// (driver/level_particles.hpp: the leapfrog's pending_half_dt). The part files' levelp is the level
// whose latest step (SnapshotMeta::level_time_steps) that is half of, as RAMSES' levelp is the level
// of the particle's last kick.
inline constexpr const char* kRamsesKickHalfStepField = "pending_half_dt";

// Collective over `comm`: the totals of all ranks' `particles` (each rank passes its own; the
// restart field names must agree, see io/snapshot_particles.hpp).
RamsesParticleTotals ramses_particle_totals(MPI_Comm comm, const SnapshotParticles& particles);

// part_NNNNN.outCCCCC (CCCCC = cpu) in `directory`, under a temporary name renamed when complete.
// Throws a kosmo::Error naming the file on inconsistent arrays, counts beyond int32 or I/O failure.
void write_ramses_particle_file(const std::filesystem::path& directory, const SnapshotMeta& meta, int cpu,
                                const SnapshotParticles& particles, const RamsesParticleTotals& totals);

// part_file_descriptor.txt and header_NNNNN.txt (rank 0 writes them), same temporary-name rule.
// RAMSES writes the header into every output (amr/output_amr.f90 output_header), also without
// particles: then every count is 0 (pass RamsesParticleTotals{}).
void write_ramses_particle_descriptor(const std::filesystem::path& directory, const SnapshotMeta& meta,
                                      const RamsesParticleTotals& totals);
void write_ramses_output_header(const std::filesystem::path& directory, const SnapshotMeta& meta,
                                const RamsesParticleTotals& totals);

// ---- restart reader ------------------------------------------------------------------------------

// The record layout of the part files of one output: the descriptor's (name, struct type code) list,
// or, without a descriptor, RAMSES' layout before descriptors existed (positions, velocities, mass,
// identity 'i', levelp 'i'). `present` is false when the output has no particles at all (neither a
// descriptor nor part_NNNNN.out00001), as for a RAMSES hydro run.
struct RamsesParticleLayout {
  bool present = false;
  std::string why;  // which file says the output has particles, for the missing-file message
  std::vector<std::pair<std::string, char>> fields;
  long long header_total = -1;  // total count from header_NNNNN.txt, -1 when absent or unreadable
};

// `output` is the output_NNNNN directory, `shown` how messages name it. Descriptor fields beyond the
// standard ones (position_*, velocity_*, mass, identity, levelp, family, tag, potential) are the
// registered attributes and restart state of the run that wrote them (the descriptor does not say
// which): those of type 'd' are returned as SnapshotParticles::restart_fields, those of type 'q' or
// 'b' as SnapshotParticles::attributes, under their names (kosmo's own, or RAMSES' birth_time and
// metallicity), and the driver matches either against its registry by name. Throws a kosmo::Error
// naming the descriptor for a field of another type or a standard field of an unexpected type.
RamsesParticleLayout read_ramses_particle_layout(const std::filesystem::path& output, const std::string& shown,
                                                 int output_number, int ndim);

// No particles, but the restart field and attribute names (and types) of `layout`: what a rank that
// reads no part file holds, so that every rank hands the driver the same names.
SnapshotParticles empty_ramses_particles(const RamsesParticleLayout& layout);

// The particles of part_NNNNN.outCCCCC. A missing file, a header contradicting ncpu/ndim, a record
// of the wrong length or a truncated file is a kosmo::Error naming the file.
SnapshotParticles read_ramses_particle_file(const std::filesystem::path& output, const std::string& shown,
                                            int output_number, int cpu, int ncpu, int ndim,
                                            const RamsesParticleLayout& layout);

}  // namespace kosmo::io
