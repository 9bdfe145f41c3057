// The collective half of the RAMSES writer: ghost octs from their owners, then the files placed
// atomically (declarations and contract: io/ramses_writer.hpp).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <unordered_map>
#include <utility>

#include "core/error.hpp"
#include "io/ramses_sink_clouds.hpp"
#include "io/ramses_sink_file.hpp"
#include "io/info_file.hpp"
#include "io/ramses_particles.hpp"
#include "io/ramses_records.hpp"
#include "io/ramses_writer.hpp"

#include "io/ramses_gravity_file.hpp"
#include "io/snapshot_particles.hpp"
#include "io/snapshot_writer.hpp"
#include "parallel/collective_check.hpp"

namespace kosmo::io {
namespace {

namespace fs = std::filesystem;
using parallel::run_collectively;
using ramses_detail::AtomicFile;
using ramses_detail::number5;
using ramses_detail::pack_oct_key;

// (level, coordinates packed 21 bits per axis); ordered so that requests and answers come sorted.
using OctId = std::pair<int, std::uint64_t>;

void unpack(std::uint64_t key, int ndim, std::int64_t* coordinates) {
  for (int d = 0; d < ndim; ++d) coordinates[d] = static_cast<std::int64_t>((key >> (21 * d)) & ((1u << 21) - 1));
}

// The octs this file needs from other ranks (ramses-format.md, "Oct blocks"): (a) every ancestor
// of an owned oct (yt: "Too many roots" otherwise; levels below levelmin are kept too so that every
// father index in the file resolves), (b) every child oct of an owned refined cell (yt would count
// the refined cell as a leaf and double count its volume otherwise).
std::vector<OctId> needed_octs(const SnapshotMeta& meta, const std::vector<SnapshotLevel>& levels,
                               const std::vector<std::unordered_map<std::uint64_t, std::size_t>>& owned) {
  const int ndim = meta.ndim, nchild = 1 << ndim;
  std::map<OctId, bool> needed;
  const auto is_owned = [&](int level, std::uint64_t key) {
    return owned[static_cast<std::size_t>(level - 1)].count(key) > 0;
  };
  for (int l = 1; l <= meta.levelmax; ++l) {
    const auto& level = levels[static_cast<std::size_t>(l - 1)];
    const std::size_t n = level.oct_coordinates.size() / static_cast<std::size_t>(ndim);
    for (std::size_t o = 0; o < n; ++o) {
      std::int64_t c[3] = {0, 0, 0};
      std::copy_n(&level.oct_coordinates[o * static_cast<std::size_t>(ndim)], ndim, c);
      for (int child = 0; child < nchild && l < meta.levelmax; ++child) {
        if (!level.son_flags[o * static_cast<std::size_t>(nchild) + static_cast<std::size_t>(child)]) continue;
        std::int64_t sub[3] = {0, 0, 0};
        for (int d = 0; d < ndim; ++d) sub[d] = 2 * c[d] + ((child >> d) & 1);
        if (!is_owned(l + 1, pack_oct_key(sub, ndim))) needed[{l + 1, pack_oct_key(sub, ndim)}] = true;
      }
      for (int ancestor = l - 1; ancestor >= 1; --ancestor) {  // walk up until owned or known
        for (int d = 0; d < ndim; ++d) c[d] >>= 1;
        const std::uint64_t key = pack_oct_key(c, ndim);
        if (is_owned(ancestor, key) || !needed.emplace(OctId{ancestor, key}, true).second) break;
      }
    }
  }
  std::vector<OctId> list;
  for (const auto& entry : needed) list.push_back(entry.first);
  return list;
}

// MPI counts and displacements are int: refuse exchanges beyond them rather than overflow.
std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> offsets(counts.size(), 0);
  long long total = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    KOSMO_REQUIRE(total <= INT32_MAX, "RAMSES output: ghost-oct exchange larger than MPI int counts allow");
    offsets[i] = static_cast<int>(total);
    total += counts[i];
  }
  KOSMO_REQUIRE(total <= INT32_MAX, "RAMSES output: ghost-oct exchange larger than MPI int counts allow");
  return offsets;
}

// The owned octs of each level by packed coordinates (value: index in the level), after checking
// the levels against meta, and the octs this rank's file needs from other ranks.
struct OwnedOcts {
  std::vector<std::unordered_map<std::uint64_t, std::size_t>> owned;
  std::vector<OctId> needed;
};

OwnedOcts index_owned_octs(MPI_Comm comm, const SnapshotMeta& meta, const std::vector<SnapshotLevel>& levels,
                           int nrank) {
  const int ndim = meta.ndim, nchild = 1 << ndim;
  const auto nfield = meta.fields.size();
  const auto nlevel = static_cast<std::size_t>(meta.levelmax);
  OwnedOcts octs;
  octs.owned.resize(nlevel);
  auto& owned = octs.owned;
  run_collectively(comm, [&] {
    KOSMO_REQUIRE(meta.ncpu == nrank,
                  "RAMSES output: meta.ncpu = " << meta.ncpu << " but the communicator has " << nrank << " ranks");
    KOSMO_REQUIRE(levels.size() == nlevel,
                  "RAMSES output: " << levels.size() << " levels given, levelmax is " << nlevel);
    for (std::size_t l = 0; l < nlevel; ++l) {
      const auto& level = levels[l];
      const std::size_t n = level.oct_coordinates.size() / static_cast<std::size_t>(ndim);
      KOSMO_REQUIRE(level.level == static_cast<int>(l) + 1 &&
                        level.son_flags.size() == n * static_cast<std::size_t>(nchild) && level.fields.size() == nfield,
                    "RAMSES output: level " << l + 1 << " has inconsistent sizes");
      for (const auto& values : level.fields)
        KOSMO_REQUIRE(values.size() == n * static_cast<std::size_t>(nchild),
                      "RAMSES output: a field of level " << l + 1 << " has the wrong size");
      for (std::size_t o = 0; o < n; ++o) {
        for (int d = 0; d < ndim; ++d)
          KOSMO_REQUIRE(level.oct_coordinates[o * static_cast<std::size_t>(ndim) + static_cast<std::size_t>(d)] >= 0 &&
                            level.oct_coordinates[o * static_cast<std::size_t>(ndim) + static_cast<std::size_t>(d)] <
                                (std::int64_t{1} << 21),
                        "RAMSES output: oct coordinates of level " << l + 1 << " out of range");
        owned[l].emplace(pack_oct_key(&level.oct_coordinates[o * static_cast<std::size_t>(ndim)], ndim), o);
      }
    }
    octs.needed = needed_octs(meta, levels, owned);
  });
  return octs;
}

// The words an exchange delivered to this rank, with each rank's count and offset in them.
struct Exchanged {
  std::vector<std::int64_t> words;
  std::vector<int> counts, offsets;
};

// Every rank learns every rank's requests (they are domain surfaces, small next to the mesh).
Exchanged gather_requests(MPI_Comm comm, const std::vector<OctId>& needed, int nrank) {
  std::vector<std::int64_t> request;
  for (const auto& [level, key] : needed) {
    request.push_back(level);
    request.push_back(static_cast<std::int64_t>(key));
  }
  int request_count = static_cast<int>(request.size());
  Exchanged requests;
  requests.counts.resize(static_cast<std::size_t>(nrank));
  MPI_Allgather(&request_count, 1, MPI_INT, requests.counts.data(), 1, MPI_INT, comm);
  run_collectively(comm, [&] { requests.offsets = displacements(requests.counts); });
  requests.words.resize(static_cast<std::size_t>(requests.offsets.back()) +
                        static_cast<std::size_t>(requests.counts.back()));
  MPI_Allgatherv(request.data(), request_count, MPI_INT64_T, requests.words.data(), requests.counts.data(),
                 requests.offsets.data(), MPI_INT64_T, comm);
  return requests;
}

// The answers to the other ranks' requests for octs this rank owns, one list per requesting rank:
// level, key, son-flag bits, then the field values' bit patterns (bit for bit).
std::vector<std::vector<std::int64_t>> answer_requests(
    const SnapshotMeta& meta, const std::vector<SnapshotLevel>& levels,
    const std::vector<std::unordered_map<std::uint64_t, std::size_t>>& owned, const Exchanged& requests, int rank,
    int nrank) {
  const int nchild = 1 << meta.ndim;
  const std::vector<std::int64_t>& all_requests = requests.words;
  std::vector<std::vector<std::int64_t>> outgoing(static_cast<std::size_t>(nrank));
  for (int source = 0; source < nrank; ++source) {
    if (source == rank) continue;
    const auto first = static_cast<std::size_t>(requests.offsets[static_cast<std::size_t>(source)]);
    for (std::size_t i = first; i < first + static_cast<std::size_t>(requests.counts[static_cast<std::size_t>(source)]);
         i += 2) {
      const int level = static_cast<int>(all_requests[i]);
      if (level < 1 || level > meta.levelmax) continue;
      const auto found =
          owned[static_cast<std::size_t>(level - 1)].find(static_cast<std::uint64_t>(all_requests[i + 1]));
      if (found == owned[static_cast<std::size_t>(level - 1)].end()) continue;
      const auto& from = levels[static_cast<std::size_t>(level - 1)];
      const std::size_t o = found->second;
      std::int64_t bits = 0;
      for (int child = 0; child < nchild; ++child)
        if (from.son_flags[o * static_cast<std::size_t>(nchild) + static_cast<std::size_t>(child)])
          bits |= std::int64_t{1} << child;
      auto& answer = outgoing[static_cast<std::size_t>(source)];
      answer.insert(answer.end(), {all_requests[i], all_requests[i + 1], bits});
      for (const auto& field : from.fields)
        for (int child = 0; child < nchild; ++child) {
          std::int64_t word = 0;
          std::memcpy(&word, &field[o * static_cast<std::size_t>(nchild) + static_cast<std::size_t>(child)],
                      sizeof word);
          answer.push_back(word);
        }
    }
  }
  return outgoing;
}

// Each rank's answers to the rank that asked; returns the answers this rank receives.
Exchanged exchange_answers(MPI_Comm comm, const std::vector<std::vector<std::int64_t>>& outgoing, int nrank) {
  std::vector<int> send_counts(static_cast<std::size_t>(nrank));
  Exchanged answers;
  answers.counts.resize(static_cast<std::size_t>(nrank));
  std::vector<std::int64_t> send;
  for (int r = 0; r < nrank; ++r) {
    send_counts[static_cast<std::size_t>(r)] = static_cast<int>(outgoing[static_cast<std::size_t>(r)].size());
    send.insert(send.end(), outgoing[static_cast<std::size_t>(r)].begin(), outgoing[static_cast<std::size_t>(r)].end());
  }
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, answers.counts.data(), 1, MPI_INT, comm);
  std::vector<int> send_offsets;
  run_collectively(comm, [&] {
    send_offsets = displacements(send_counts);
    answers.offsets = displacements(answers.counts);
  });
  answers.words.resize(static_cast<std::size_t>(answers.offsets.back()) +
                       static_cast<std::size_t>(answers.counts.back()));
  MPI_Alltoallv(send.data(), send_counts.data(), send_offsets.data(), MPI_INT64_T, answers.words.data(),
                answers.counts.data(), answers.offsets.data(), MPI_INT64_T, comm);
  return answers;
}

// The domain before the answers: owned octs in block rank + 1 (moved there, without the restart
// fields), every other block empty.
RamsesDomain domain_with_owned_octs(const SnapshotMeta& meta, std::vector<SnapshotLevel>& levels, int rank,
                                    int nrank) {
  const auto nfield = meta.fields.size();
  const auto nlevel = static_cast<std::size_t>(meta.levelmax);
  RamsesDomain domain;
  domain.cpu = rank + 1;
  domain.blocks.assign(nlevel, std::vector<SnapshotLevel>(static_cast<std::size_t>(nrank)));
  for (std::size_t l = 0; l < nlevel; ++l) {
    for (int r = 0; r < nrank; ++r) {
      auto& block = domain.blocks[l][static_cast<std::size_t>(r)];
      block.level = static_cast<int>(l) + 1;
      block.fields.assign(nfield, {});
    }
    levels[l].restart_fields.clear();
    levels[l].restart_fields.shrink_to_fit();
    domain.blocks[l][static_cast<std::size_t>(rank)] = std::move(levels[l]);
  }
  return domain;
}

// Each answer in its owner's block; every needed oct must have come from exactly one rank.
void place_answers(MPI_Comm comm, const SnapshotMeta& meta, const std::vector<OctId>& needed,
                   const Exchanged& answers_received, int nrank, RamsesDomain& domain) {
  const int ndim = meta.ndim, nchild = 1 << ndim;
  const auto nfield = meta.fields.size();
  const std::size_t answer_words = 3 + nfield * static_cast<std::size_t>(nchild);
  const std::vector<std::int64_t>& received = answers_received.words;
  run_collectively(comm, [&] {
    std::map<OctId, int> answers;
    for (int source = 0; source < nrank; ++source) {
      const auto first = static_cast<std::size_t>(answers_received.offsets[static_cast<std::size_t>(source)]);
      const auto last = first + static_cast<std::size_t>(answers_received.counts[static_cast<std::size_t>(source)]);
      for (std::size_t i = first; i + answer_words <= last; i += answer_words) {
        const int level = static_cast<int>(received[i]);
        ++answers[{level, static_cast<std::uint64_t>(received[i + 1])}];
        auto& block = domain.blocks[static_cast<std::size_t>(level - 1)][static_cast<std::size_t>(source)];
        std::int64_t c[3] = {0, 0, 0};
        unpack(static_cast<std::uint64_t>(received[i + 1]), ndim, c);
        block.oct_coordinates.insert(block.oct_coordinates.end(), c, c + ndim);
        for (int child = 0; child < nchild; ++child) block.son_flags.push_back((received[i + 2] >> child) & 1);
        for (std::size_t f = 0; f < nfield; ++f)
          for (int child = 0; child < nchild; ++child) {
            double value = 0.0;
            std::memcpy(&value,
                        &received[i + 3 + f * static_cast<std::size_t>(nchild) + static_cast<std::size_t>(child)],
                        sizeof value);
            block.fields[f].push_back(value);
          }
      }
    }
    for (const auto& id : needed) {
      const auto found = answers.find(id);
      const int count = found == answers.end() ? 0 : found->second;
      KOSMO_REQUIRE(count == 1, "RAMSES output: the level-"
                                    << id.first
                                    << " oct a file needs (an ancestor or a child of an owned oct) is owned by "
                                    << count << " ranks instead of one");
    }
  });
}

// numbtot(1:4, level) and ngridmax: totals over all ranks.
void add_level_statistics(MPI_Comm comm, const SnapshotMeta& meta, const std::vector<SnapshotLevel>& levels, int nrank,
                          RamsesDomain& domain) {
  const int ndim = meta.ndim;
  const auto nlevel = static_cast<std::size_t>(meta.levelmax);
  std::vector<long long> local(nlevel), total(nlevel), lowest(nlevel), highest(nlevel);
  for (std::size_t l = 0; l < nlevel; ++l) local[l] = static_cast<long long>(levels[l].oct_coordinates.size()) / ndim;
  MPI_Allreduce(local.data(), total.data(), meta.levelmax, MPI_LONG_LONG, MPI_SUM, comm);
  MPI_Allreduce(local.data(), lowest.data(), meta.levelmax, MPI_LONG_LONG, MPI_MIN, comm);
  MPI_Allreduce(local.data(), highest.data(), meta.levelmax, MPI_LONG_LONG, MPI_MAX, comm);
  for (std::size_t l = 0; l < nlevel; ++l) {
    domain.ngridmax += total[l];
    const auto clamp = [](long long value) { return static_cast<std::int32_t>(std::min<long long>(value, INT32_MAX)); };
    domain.level_statistics.push_back({clamp(total[l]), clamp(lowest[l]), clamp(highest[l]), clamp(total[l] / nrank)});
  }
}

}  // namespace

void write_ramses_hydro_descriptor(const fs::path& directory, const SnapshotMeta& meta) {
  AtomicFile file(directory / "hydro_file_descriptor.txt");
  file.stream() << "# version:  1\n# ivar, variable_name, variable_type\n";
  const std::vector<std::size_t> hydro = split_ramses_fields(meta).hydro;  // grav_ variables have no descriptor
  for (std::size_t i = 0; i < hydro.size(); ++i)  // (I2,", ",a,", ",a)
    file.stream() << format_fortran_i(static_cast<long long>(i + 1), 2) << ", " << meta.fields[hydro[i]].name << ", d\n";
  file.commit();
}

void write_ramses_info_file(const fs::path& directory, const SnapshotMeta& meta, long long total_octs) {
  AtomicFile file(directory / ("info_" + number5(meta.output_number) + ".txt"));
  file.stream() << format_info_file(meta, total_octs);
  file.commit();
}

double ramses_gamma(const SnapshotMeta& meta) {
  for (const auto& parameter : meta.parameters) {
    if (parameter.block != "HYDRO_PARAMS" || parameter.name != "gamma") continue;
    std::string text = parameter.value;
    for (char& character : text)
      if (character == 'd' || character == 'D') character = 'e';  // Fortran 1.4d0
    char* end = nullptr;
    const double gamma = std::strtod(text.c_str(), &end);
    KOSMO_REQUIRE(end != text.c_str() && gamma > 1.0,
                  "RAMSES output: cannot read &HYDRO_PARAMS gamma = '" << parameter.value << "'");
    return gamma;
  }
  return 1.4;
}

RamsesDomain assemble_ramses_domain(MPI_Comm comm, const SnapshotMeta& meta, std::vector<SnapshotLevel> levels) {
  int rank = 0, nrank = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nrank);
  const OwnedOcts octs = index_owned_octs(comm, meta, levels, nrank);
  const Exchanged requests = gather_requests(comm, octs.needed, nrank);
  const auto outgoing = answer_requests(meta, levels, octs.owned, requests, rank, nrank);
  const Exchanged answers = exchange_answers(comm, outgoing, nrank);
  RamsesDomain domain;
  add_level_statistics(comm, meta, levels, nrank, domain);  // before the levels move into the domain
  RamsesDomain owned = domain_with_owned_octs(meta, levels, rank, nrank);
  owned.ngridmax = domain.ngridmax;
  owned.level_statistics = std::move(domain.level_statistics);
  place_answers(comm, meta, octs.needed, answers, nrank, owned);
  return owned;
}

void write_ramses_snapshot(MPI_Comm comm, const std::string& directory, const SnapshotMeta& meta,
                           std::vector<SnapshotLevel> levels, RamsesDirectoryMode mode,
                           const SnapshotParticles* particles) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  double gamma = 1.4;
  // With sinks the part files also hold their clouds, as RAMSES' (io/ramses_sink_clouds.hpp).
  const SnapshotParticles with_clouds = meta.sinks.present ? particles_with_clouds(particles, meta.sinks.clouds) : SnapshotParticles{};
  if (meta.sinks.present) particles = &with_clouds;
  // Part files are written when any rank hands particles over (a rank passing nullptr then writes
  // an empty file): RAMSES writes them exactly when the run has particles (pic), even if none.
  const bool with_particles = parallel::any_rank(comm, particles != nullptr);
  const SnapshotParticles none;
  const SnapshotParticles& mine = particles != nullptr ? *particles : none;
  run_collectively(comm, [&] {
    KOSMO_REQUIRE(meta.output_number >= 0 && meta.output_number <= 99999 && meta.ndim >= 1 && meta.ndim <= 3 &&
                      meta.levelmax >= 1,
                  "RAMSES output: bad output_number, ndim or levelmax");
    gamma = ramses_gamma(meta);
    check_snapshot_particles(mine, meta.ndim, "RAMSES output: particles");
  });
  const RamsesDomain domain = assemble_ramses_domain(comm, meta, std::move(levels));
  if (with_particles) require_same_restart_names(comm, mine, "RAMSES output: particles");
  const RamsesParticleTotals particle_totals = with_particles ? ramses_particle_totals(comm, mine) : RamsesParticleTotals{};

  const std::string name = output_directory_name(meta.output_number);
  const fs::path parent = directory.empty() ? fs::path(".") : fs::path(directory);
  const fs::path final_path = parent / name;
  const fs::path target = mode == RamsesDirectoryMode::create_new ? parent / (name + ".ramses.tmp") : final_path;
  run_collectively(comm, [&] {
    if (rank != 0) return;
    std::error_code error;
    if (mode == RamsesDirectoryMode::add_to_existing) {
      KOSMO_REQUIRE(fs::is_directory(final_path), "RAMSES output: '" << final_path.string() << "' does not exist");
      return;
    }
    fs::remove_all(target, error);  // left by an interrupted earlier attempt
    KOSMO_REQUIRE(!error, "RAMSES output: cannot remove the stale '" << target.string() << "': " << error.message());
    fs::create_directories(target, error);
    KOSMO_REQUIRE(!error, "RAMSES output: cannot create '" << target.string() << "': " << error.message());
  });

  try {
    run_collectively(comm, [&] {
      write_ramses_domain_files(target, meta, domain, gamma);
      if (with_particles) write_ramses_particle_file(target, meta, rank + 1, mine, particle_totals);
      if (rank != 0) return;
      if (!split_ramses_fields(meta).hydro.empty()) write_ramses_hydro_descriptor(target, meta);
      if (with_particles) write_ramses_particle_descriptor(target, meta, particle_totals);
      // RAMSES writes header_NNNNN.txt into every output, with zero counts when there are no particles.
      write_ramses_output_header(target, meta, particle_totals);
      write_ramses_sink_file(target, meta);  // sink_NNNNN.csv with sinks (io/ramses_sink_file.hpp)
      write_ramses_info_file(target, meta, domain.ngridmax);
    });
  } catch (const Error&) {
    std::error_code ignored;
    if (rank == 0 && mode == RamsesDirectoryMode::create_new) fs::remove_all(target, ignored);
    throw;
  }

  // Every rank's files are in place: the directory entries are synced, then (create_new) an existing
  // output_NNNNN/ is replaced: moved aside, the new one renamed in, the old one removed.
  run_collectively(comm, [&] {
    if (rank != 0) return;
    ramses_detail::sync_path(target, false);
    if (mode == RamsesDirectoryMode::add_to_existing) return;
    const fs::path aside = parent / (name + ".old");
    std::error_code error;
    fs::remove_all(aside, error);
    if (fs::exists(final_path)) {
      fs::rename(final_path, aside, error);
      KOSMO_REQUIRE(!error,
                    "RAMSES output: cannot move the old '" << final_path.string() << "' aside: " << error.message());
    }
    fs::rename(target, final_path, error);
    KOSMO_REQUIRE(!error, "RAMSES output: cannot rename '" << target.string() << "' to '" << final_path.string()
                                                           << "': " << error.message());
    fs::remove_all(aside, error);
  });
}

}  // namespace kosmo::io
