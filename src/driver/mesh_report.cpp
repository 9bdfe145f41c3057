#include "driver/mesh_report.hpp"

#include <cstdio>

namespace kosmo::driver {

template <int D, class Key>
std::string level_summary(const core::OctTree<D, Key>& tree) {
  using Tree = core::OctTree<D, Key>;
  std::string out;
  char line[160];
  std::size_t total_octs = 0, total_leaves = 0;
  for (int l = 1; l <= tree.levelmax(); ++l) {
    const auto& octs = tree.octs_at_level(l);
    if (octs.empty()) continue;
    std::size_t leaves = 0;
    for (core::OctIndex o : octs)
      for (int c = 0; c < Tree::cells_per_oct; ++c) leaves += tree.is_leaf(Tree::cell_index(o, c)) ? 1 : 0;
    std::snprintf(line, sizeof line, " Level %2d has %10zu octs %12zu cells %12zu leaves  dx= %.4E\n", l, octs.size(),
                  octs.size() * Tree::cells_per_oct, leaves, tree.cell_size(l));
    out += line;
    total_octs += octs.size();
    total_leaves += leaves;
  }
  std::snprintf(line, sizeof line, " Total         %10zu octs %12zu cells %12zu leaves\n", total_octs,
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
  return text;
}

#define KOSMO_INSTANTIATE_REPORT(D, Key)                                    \
  template std::string level_summary<D, Key>(const core::OctTree<D, Key>&); \
  template std::string memory_summary<D, Key>(const core::OctTree<D, Key>&);
KOSMO_INSTANTIATE_REPORT(1, core::MortonKey)
KOSMO_INSTANTIATE_REPORT(2, core::MortonKey)
KOSMO_INSTANTIATE_REPORT(3, core::MortonKey)
#undef KOSMO_INSTANTIATE_REPORT

}  // namespace kosmo::driver
