#include "driver/mesh_report.hpp"

#include <cstdio>
#include <vector>

namespace kosmo::driver {

template <int D, class Key>
std::string level_summary(const core::OctTree<D, Key>& tree, MPI_Comm comm) {
  using Tree = core::OctTree<D, Key>;
  // Octs and leaves per level of the octs this rank owns, summed over `comm`.
  const auto levels = static_cast<std::size_t>(tree.levelmax()) + 1;
  std::vector<long long> counts(2 * levels, 0);
  for (int l = 1; l <= tree.levelmax(); ++l) {
    const auto& octs = tree.octs_at_level(l);
    counts[2 * static_cast<std::size_t>(l)] = static_cast<long long>(octs.size());
    for (core::OctIndex o : octs)
      for (int c = 0; c < Tree::cells_per_oct; ++c) counts[2 * static_cast<std::size_t>(l) + 1] += tree.is_leaf(Tree::cell_index(o, c)) ? 1 : 0;
  }
  if (comm != MPI_COMM_NULL) MPI_Allreduce(MPI_IN_PLACE, counts.data(), static_cast<int>(counts.size()), MPI_LONG_LONG, MPI_SUM, comm);
  std::string out;
  char line[160];
  long long total_octs = 0, total_leaves = 0;
  for (int l = 1; l <= tree.levelmax(); ++l) {
    const long long octs = counts[2 * static_cast<std::size_t>(l)], leaves = counts[2 * static_cast<std::size_t>(l) + 1];
    if (octs == 0) continue;
    std::snprintf(line, sizeof line, " Level %2d has %10lld octs %12lld cells %12lld leaves  dx= %.4E\n", l, octs,
                  octs * Tree::cells_per_oct, leaves, tree.cell_size(l));
    out += line;
    total_octs += octs;
    total_leaves += leaves;
  }
  std::snprintf(line, sizeof line, " Total         %10lld octs %12lld cells %12lld leaves\n", total_octs,
                total_octs * Tree::cells_per_oct, total_leaves);
  return out + line;
}

template <int D, class Key>
std::string memory_summary(const core::OctTree<D, Key>& tree) {
  const core::OctMemory m = tree.memory();
  const int nfields = tree.fields().size();
  // Five hydro variables in two time levels (RAMSES uold and unew): ten cell fields.
  const double hydro_fields = 10.0 * 8.0 * core::OctTree<D, Key>::cells_per_oct;
  char text[512];
  std::snprintf(text, sizeof text,
                " Memory: %.1f bytes per oct in use (%zu octs): keys %.1f, level %.1f, father %.1f, sons %.1f, "
                "fields %.1f (%d field%s), hash %.1f, level lists %.1f\n"
                " Memory: with 5 hydro variables in two time levels the same mesh needs %.1f bytes per oct\n",
                m.total(), m.octs_in_use, m.keys, m.levels, m.fathers, m.sons, m.fields, nfields, nfields == 1 ? "" : "s",
                m.hash, m.level_lists, m.total() - m.fields + hydro_fields);
  // Field by field (docs/performance.md justifies each): the live fields share the pool's capacity,
  // a released scratch field holds nothing.
  int live = 0;
  for (int f = 0; f < nfields; ++f) live += tree.field_released(f) ? 0 : 1;
  std::string out = text;
  out += " Memory: bytes per oct by field:";
  for (int f = 0; f < nfields; ++f) {
    std::snprintf(text, sizeof text, "%s %s %.1f", f == 0 ? "" : ",", tree.fields().info(f).name.c_str(),
                  tree.field_released(f) || live == 0 ? 0.0 : m.fields / live);
    out += text;
  }
  return out + "\n";
}

#define KOSMO_INSTANTIATE_REPORT(D, Key)                                    \
  template std::string level_summary<D, Key>(const core::OctTree<D, Key>&, MPI_Comm); \
  template std::string memory_summary<D, Key>(const core::OctTree<D, Key>&);
KOSMO_INSTANTIATE_REPORT(1, core::MortonKey)
KOSMO_INSTANTIATE_REPORT(2, core::MortonKey)
KOSMO_INSTANTIATE_REPORT(3, core::MortonKey)
#undef KOSMO_INSTANTIATE_REPORT

}  // namespace kosmo::driver
