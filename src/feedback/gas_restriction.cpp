#include "feedback/gas_restriction.hpp"

#include "core/prolongation.hpp"

namespace kosmo::feedback {

template <int D>
void restrict_after_injection(core::OctTree<D, core::MortonKey>& tree, parallel::DistributedMesh<D, core::MortonKey>& mesh,
                              const std::vector<int>& fields, int levelmin) {
  using Tree = core::OctTree<D, core::MortonKey>;
  for (int level = tree.levelmax() - 1; level >= levelmin; --level) {
    if (mesh.distributed()) mesh.exchange_fields(tree, level + 1, fields);
    const auto& octs = tree.octs_at_level(level);
    for (int field : fields) {
      double* u = tree.field(field);
#pragma omp parallel for schedule(static)
      for (std::size_t i = 0; i < octs.size(); ++i)
        for (int c = 0; c < Tree::cells_per_oct; ++c) {
          const core::CellIndex cell = Tree::cell_index(octs[i], c);
          const core::OctIndex son = tree.son(cell);
          if (son != core::no_oct) u[cell] = core::restrict_children<D>(u + Tree::cell_index(son, 0));
        }
    }
  }
}

template void restrict_after_injection<1>(core::OctTree<1, core::MortonKey>&, parallel::DistributedMesh<1, core::MortonKey>&,
                                          const std::vector<int>&, int);
template void restrict_after_injection<2>(core::OctTree<2, core::MortonKey>&, parallel::DistributedMesh<2, core::MortonKey>&,
                                          const std::vector<int>&, int);
template void restrict_after_injection<3>(core::OctTree<3, core::MortonKey>&, parallel::DistributedMesh<3, core::MortonKey>&,
                                          const std::vector<int>&, int);

}  // namespace kosmo::feedback
