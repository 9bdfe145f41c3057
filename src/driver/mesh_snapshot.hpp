#pragma once
// From the mesh to the writers' plain description of a snapshot (io/snapshot_data.hpp).
#include <mpi.h>

#include <algorithm>
#include <functional>
#include <utility>

#include "core/oct_tree.hpp"
#include "core/physics_module.hpp"
#include "core/parameters.hpp"
#include "io/snapshot_data.hpp"
#include "io/ramses_writer.hpp"
#include "io/snapshot_writer.hpp"

namespace kosmo::driver {

// Snapshot variables computed from the stored ones when written (core/physics_module.hpp).
using DerivedOutput = core::DerivedOutput;

// This rank's share of level l: octs [n r / N, n (r + 1) / N) of the level's Morton-ordered list of
// owned octs (r = 0, N = 1 for a distributed tree: all of them). The writer does not care how the
// octs were shared out. Without `with_restart_fields` (RAMSES' files, which do not hold them) the
// restart arrays are left empty.
template <int D, class Key>
std::pair<std::size_t, std::size_t> snapshot_share(const core::OctTree<D, Key>& tree, int l, int rank, int nrank) {
  const std::size_t n = tree.octs_at_level(l).size();
  return {n * static_cast<std::size_t>(rank) / static_cast<std::size_t>(nrank),
          n * static_cast<std::size_t>(rank + 1) / static_cast<std::size_t>(nrank)};
}

template <int D, class Key>
io::SnapshotLevel snapshot_level(const core::OctTree<D, Key>& tree, int l, int rank, int nrank,
                                 const std::vector<DerivedOutput>& derived = {}, bool with_restart_fields = true) {
  using Tree = core::OctTree<D, Key>;
  std::vector<int> written_fields, restart_fields;
  for (int f = 0; f < tree.fields().size(); ++f) {
    if (tree.fields().info(f).in_snapshots) written_fields.push_back(f);
    if (tree.fields().info(f).in_restarts && with_restart_fields) restart_fields.push_back(f);
  }
  const auto& octs = tree.octs_at_level(l);
  const auto [first, last] = snapshot_share(tree, l, rank, nrank);
  io::SnapshotLevel level;
  level.level = l;
  level.oct_coordinates.reserve((last - first) * D);
  level.son_flags.reserve((last - first) * Tree::cells_per_oct);
  std::size_t nderived = 0;
  for (const auto& source : derived) nderived += source.fields.size();
  level.fields.assign(written_fields.size() + nderived, {});
  level.restart_fields.assign(with_restart_fields ? restart_fields.size() : 0, {});
  std::vector<double> values;
  for (auto& values : level.fields) values.reserve((last - first) * Tree::cells_per_oct);
  for (auto& values : level.restart_fields) values.reserve((last - first) * Tree::cells_per_oct);
  for (std::size_t i = first; i < last; ++i) {
    const core::OctIndex o = octs[i];
    const auto c = tree.coordinates(o);
    level.oct_coordinates.insert(level.oct_coordinates.end(), c.begin(), c.end());
    for (int k = 0; k < Tree::cells_per_oct; ++k) {
      const core::CellIndex cell = Tree::cell_index(o, k);
      level.son_flags.push_back(tree.is_leaf(cell) ? 0 : 1);
      for (std::size_t f = 0; f < written_fields.size(); ++f) level.fields[f].push_back(tree.field(written_fields[f])[cell]);
      for (std::size_t f = 0; f < restart_fields.size(); ++f) level.restart_fields[f].push_back(tree.field(restart_fields[f])[cell]);
    }
    std::size_t next = written_fields.size();
    for (const auto& source : derived) {
      values.resize(source.fields.size() * Tree::cells_per_oct);
      source.values(o, values.data());
      for (std::size_t f = 0; f < source.fields.size(); ++f, ++next)
        level.fields[next].insert(level.fields[next].end(), values.begin() + static_cast<std::ptrdiff_t>(f * Tree::cells_per_oct),
                                  values.begin() + static_cast<std::ptrdiff_t>((f + 1) * Tree::cells_per_oct));
    }
  }
  return level;
}

// Every level at once (the RAMSES writer assembles its files from the whole mesh).
template <int D, class Key>
std::vector<io::SnapshotLevel> snapshot_levels(const core::OctTree<D, Key>& tree, int rank, int nrank,
                                               const std::vector<DerivedOutput>& derived = {}, bool with_restart_fields = true) {
  std::vector<io::SnapshotLevel> levels;
  for (int l = 1; l <= tree.levelmax(); ++l) levels.push_back(snapshot_level(tree, l, rank, nrank, derived, with_restart_fields));
  return levels;
}

// The HDF5 writer takes one level at a time (io/snapshot_writer.hpp).
template <int D, class Key>
io::SnapshotLevelSource snapshot_level_source(const core::OctTree<D, Key>& tree, int rank, int nrank,
                                              const std::vector<DerivedOutput>& derived) {
  io::SnapshotLevelSource source;
  for (int l = 1; l <= tree.levelmax(); ++l) {
    const auto [first, last] = snapshot_share(tree, l, rank, nrank);
    source.octs.push_back(static_cast<long long>(last - first));
  }
  source.level = [&tree, rank, nrank, &derived](int l) { return snapshot_level(tree, l, rank, nrank, derived); };
  return source;
}

template <int D, class Key>
std::vector<io::FieldDescription> snapshot_fields(const core::OctTree<D, Key>& tree, const std::vector<DerivedOutput>& derived = {}) {
  std::vector<io::FieldDescription> fields;
  for (int f = 0; f < tree.fields().size(); ++f) {
    const auto& info = tree.fields().info(f);
    if (info.in_snapshots) fields.push_back({info.name, info.units, info.comoving_exponent});
  }
  for (const auto& source : derived)
    for (const auto& info : source.fields) fields.push_back({info.name, info.units, info.comoving_exponent});
  return fields;
}

template <int D, class Key>
std::vector<io::FieldDescription> snapshot_restart_fields(const core::OctTree<D, Key>& tree) {
  std::vector<io::FieldDescription> fields;
  for (int f = 0; f < tree.fields().size(); ++f) {
    const auto& info = tree.fields().info(f);
    if (info.in_restarts) fields.push_back({info.name, info.units, info.comoving_exponent});
  }
  return fields;
}

inline std::vector<io::ParameterRecord> snapshot_parameters(const core::ParameterSet& params) {
  std::vector<io::ParameterRecord> records;
  for (const auto& p : params.resolved()) records.push_back({p.block, p.name, p.value, p.from_file});
  return records;
}

// What a snapshot holds besides the mesh. `particles`: this rank's particles (each particle on
// exactly one rank), written to /particles of the HDF5 file and, with outformat 'ramses' or 'both',
// to part_NNNNN.outCCCCC; nullptr for a run without particles (an empty /particles group, no part
// files). `complete_meta`: called on the finished meta just before writing, the same way on every
// rank, for what the mesh does not know (aexp, cosmology and units of a cosmological run).
struct SnapshotExtras {
  const io::SnapshotParticles* particles = nullptr;
  // Each level's latest step (Simulation::level_time_steps), for the RAMSES files' dtnew.
  std::vector<double> level_time_steps;
  std::function<void(io::SnapshotMeta&)> complete_meta;
};

// Frees the storage of every field that is neither in snapshots nor in restarts for its lifetime.
template <int D, class Key>
class ScratchFieldsReleased {
 public:
  explicit ScratchFieldsReleased(core::OctTree<D, Key>& tree) : tree_(tree) {
    for (int f = 0; f < tree.fields().size(); ++f) {
      const core::FieldInfo& info = tree.fields().info(f);
      if (info.in_snapshots || info.in_restarts || tree.field_released(f)) continue;
      tree.release_field(f);
      released_.push_back(f);
    }
  }
  ~ScratchFieldsReleased() {
    for (int f : released_) tree_.acquire_field(f);
  }
  ScratchFieldsReleased(const ScratchFieldsReleased&) = delete;
  ScratchFieldsReleased& operator=(const ScratchFieldsReleased&) = delete;

 private:
  core::OctTree<D, Key>& tree_;
  std::vector<int> released_;
};

// Writes snapshot `output_number` of the mesh and its fields, collectively on `comm`. A
// distributed tree (non-empty `ordering`: its decomposition) is written as every rank's owned
// octs; otherwise every rank holds the whole mesh and writes its share.
template <int D, class Key>
void write_mesh_snapshot(MPI_Comm comm, const core::OctTree<D, Key>& tree, const core::ParameterSet& params, int output_number,
                         double time, long long step, const std::vector<DerivedOutput>& derived = {},
                         const std::string& ordering = "", std::vector<double> ksection_walls = {},
                         std::vector<std::uint64_t> hilbert_bounds = {}, const SnapshotExtras& extras = {}) {
  const bool distributed = !ordering.empty();
  int rank = 0, nrank = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nrank);
  io::SnapshotMeta meta;
  meta.output_number = output_number;
  meta.ndim = D;
  meta.levelmin = static_cast<int>(params.get_int("AMR_PARAMS", "levelmin"));
  meta.levelmax = tree.levelmax();
  const auto& n = tree.geometry().coarse_cells;
  meta.nx = static_cast<int>(n[0]);
  if constexpr (D > 1) meta.ny = static_cast<int>(n[1]);
  if constexpr (D > 2) meta.nz = static_cast<int>(n[2]);
  meta.boxlen = tree.geometry().boxlen;
  meta.time = time;
  meta.step = step;
  meta.ncpu = nrank;
  meta.unit_l = params.get_real("UNITS_PARAMS", "units_length");
  meta.unit_d = params.get_real("UNITS_PARAMS", "units_density");
  meta.unit_t = params.get_real("UNITS_PARAMS", "units_time");
  meta.ordering = distributed ? ordering : "morton";
  meta.ksection_walls = std::move(ksection_walls);
  meta.hilbert_bounds = std::move(hilbert_bounds);
  meta.fields = snapshot_fields(tree, derived);
  meta.restart_fields = snapshot_restart_fields(tree);
  meta.single_precision_fields = params.get_string("OUTPUT_PARAMS", "output_precision") == "single";
  meta.parameters = snapshot_parameters(params);
  meta.level_time_steps = extras.level_time_steps;
  if (extras.complete_meta) extras.complete_meta(meta);
  // Comoving exponents mean something only when the units follow aexp.
  if (!meta.cosmological) {
    for (auto& field : meta.fields) field.comoving_exponent = 0;
    for (auto& field : meta.restart_fields) field.comoving_exponent = 0;
  }
  // The writers' copies of the fields are made as they write (one level for the HDF5 file, the
  // fields without the restart arrays for RAMSES' files), not all before: docs/performance.md.
  const int share_rank = distributed ? 0 : rank, share_ranks = distributed ? 1 : nrank;
  // &OUTPUT_PARAMS outformat: kosmo's HDF5 snapshot (restarts read it), RAMSES' binary files (yt,
  // osyris, pynbody), or both in the same output_NNNNN/.
  const std::string format = params.get_string("OUTPUT_PARAMS", "outformat");
  if (format == "ramses") {
    io::write_ramses_snapshot(comm, ".", meta, snapshot_levels(tree, share_rank, share_ranks, derived, false),
                              io::RamsesDirectoryMode::create_new, extras.particles);
    return;
  }
  io::write_snapshot(comm, ".", meta, snapshot_level_source(tree, share_rank, share_ranks, derived), extras.particles);
  if (format == "both")
    io::write_ramses_snapshot(comm, ".", meta, snapshot_levels(tree, share_rank, share_ranks, derived, false),
                              io::RamsesDirectoryMode::add_to_existing, extras.particles);
}

// The same for the running simulation's tree: the modules' scratch fields (neither in snapshots nor
// in restarts: the multigrid's, the Poisson source, the particles' deposit) hold nothing a later
// step reads, as a restart from this output shows, so their storage is freed while the writers
// make their copies and given back zeroed after (docs/performance.md, "Bytes per oct").
template <int D, class Key>
void write_mesh_snapshot(MPI_Comm comm, core::OctTree<D, Key>& tree, const core::ParameterSet& params, int output_number,
                         double time, long long step, const std::vector<DerivedOutput>& derived = {},
                         const std::string& ordering = "", std::vector<double> ksection_walls = {},
                         std::vector<std::uint64_t> hilbert_bounds = {}, const SnapshotExtras& extras = {}) {
  const ScratchFieldsReleased released(tree);
  write_mesh_snapshot(comm, std::as_const(tree), params, output_number, time, step, derived, ordering, std::move(ksection_walls),
                      std::move(hilbert_bounds), extras);
}

}  // namespace kosmo::driver
