#pragma once
// From the mesh to the writers' plain description of a snapshot (io/snapshot_data.hpp).
#include <algorithm>

#include "core/oct_tree.hpp"
#include "core/parameters.hpp"
#include "io/snapshot_data.hpp"

namespace kosmo::driver {

// This rank's share of every level: octs [n r / N, n (r + 1) / N) of the level's Morton-ordered
// list. Every rank holds the whole mesh until the domain decomposition lands; the writer does not
// care how the octs were shared out.
template <int D, class Key>
std::vector<io::SnapshotLevel> snapshot_levels(const core::OctTree<D, Key>& tree, int rank, int nrank) {
  using Tree = core::OctTree<D, Key>;
  std::vector<int> written_fields;
  for (int f = 0; f < tree.fields().size(); ++f)
    if (tree.fields().info(f).in_snapshots) written_fields.push_back(f);
  std::vector<io::SnapshotLevel> levels;
  for (int l = 1; l <= tree.levelmax(); ++l) {
    const auto& octs = tree.octs_at_level(l);
    const std::size_t n = octs.size();
    const std::size_t first = n * static_cast<std::size_t>(rank) / static_cast<std::size_t>(nrank);
    const std::size_t last = n * static_cast<std::size_t>(rank + 1) / static_cast<std::size_t>(nrank);
    io::SnapshotLevel level;
    level.level = l;
    level.oct_coordinates.reserve((last - first) * D);
    level.son_flags.reserve((last - first) * Tree::cells_per_oct);
    level.fields.assign(written_fields.size(), {});
    for (auto& values : level.fields) values.reserve((last - first) * Tree::cells_per_oct);
    for (std::size_t i = first; i < last; ++i) {
      const core::OctIndex o = octs[i];
      const auto c = tree.coordinates(o);
      level.oct_coordinates.insert(level.oct_coordinates.end(), c.begin(), c.end());
      for (int k = 0; k < Tree::cells_per_oct; ++k) {
        const core::CellIndex cell = Tree::cell_index(o, k);
        level.son_flags.push_back(tree.is_leaf(cell) ? 0 : 1);
        for (std::size_t f = 0; f < written_fields.size(); ++f) level.fields[f].push_back(tree.field(written_fields[f])[cell]);
      }
    }
    levels.push_back(std::move(level));
  }
  return levels;
}

template <int D, class Key>
std::vector<io::FieldDescription> snapshot_fields(const core::OctTree<D, Key>& tree) {
  std::vector<io::FieldDescription> fields;
  for (int f = 0; f < tree.fields().size(); ++f) {
    const auto& info = tree.fields().info(f);
    if (info.in_snapshots) fields.push_back({info.name, info.units, info.comoving_exponent});
  }
  return fields;
}

inline std::vector<io::ParameterRecord> snapshot_parameters(const core::ParameterSet& params) {
  std::vector<io::ParameterRecord> records;
  for (const auto& p : params.resolved()) records.push_back({p.block, p.name, p.value, p.from_file});
  return records;
}

}  // namespace kosmo::driver
