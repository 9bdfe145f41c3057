// The distributed mesh's support for particles, on any rank count, both orderings, D = 1, 2, 3,
// with the geometric walls and after a cost-weighted load balance:
//  - owner_of_position gives every oct centre the oct's owner, and every point (random ones,
//    points exactly on k-section walls and just below them) the one rank whose domain holds it,
//    checked by brute force against the leaf boxes (k-section) or the key ranges (Hilbert);
//  - reverse_accumulate adds into every owned cell exactly the values the other ranks hold in
//    their ghost copies of it (found by gathering every rank's ghost list), leaving ghosts as
//    they were (RAMSES make_virtual_reverse_dp).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "refined_mesh_support.hpp"

using namespace kosmo;
using namespace kosmo::test;

namespace {

template <int D>
std::array<double, 3> as_3d(const std::array<double, D>& x) {
  std::array<double, 3> p{0.0, 0.0, 0.0};
  for (int d = 0; d < D; ++d) p[static_cast<std::size_t>(d)] = x[static_cast<std::size_t>(d)];
  return p;
}

// The ranks whose domains hold x, by brute force over all ranks: k-section leaf boxes are
// half-open [lo, hi) on the D axes; Hilbert ranges are [bound_r, bound_r+1) of the point's key.
template <int D>
std::vector<int> holders_of(const Mesh<D>& mesh, const std::array<double, D>& x) {
  std::vector<int> holders;
  for (int r = 0; r < mesh.nrank(); ++r) {
    bool inside = true;
    if (mesh.hilbert()) {
      const auto& h = mesh.hilbert_decomposition();
      const std::uint64_t key = h.key(as_3d<D>(x));
      inside = h.bounds()[static_cast<std::size_t>(r)] <= key && key < h.bounds()[static_cast<std::size_t>(r) + 1];
    } else {
      const parallel::Box& box = mesh.decomposition().box(mesh.decomposition().leaf_of_rank(r));
      for (int d = 0; d < D; ++d) inside = inside && box.lo[static_cast<std::size_t>(d)] <= x[static_cast<std::size_t>(d)] &&
                                           x[static_cast<std::size_t>(d)] < box.hi[static_cast<std::size_t>(d)];
    }
    if (inside) holders.push_back(r);
  }
  return holders;
}

template <int D>
void check_owner_of_position(const char* ordering, bool balanced) {
  SCOPED_TRACE(std::string(ordering) + (balanced ? " balanced" : " geometric") + ", D = " + std::to_string(D));
  Tree<D> tree = refined_tree<D>();
  Mesh<D> mesh(MPI_COMM_WORLD, "p2p", ordering);
  distribute<D>(tree, mesh, balanced);
  const int rank = mesh.rank();
  long long centres = 0, disagree = 0, role_mismatch = 0, not_held = 0;
  for (std::size_t i = 0; i < tree.oct_capacity(); ++i) {
    const auto o = static_cast<core::OctIndex>(i);
    if (!tree.alive(o)) continue;
    const auto c = tree.coordinates(o);
    const double width = 2.0 * tree.cell_size(tree.level(o));
    std::array<double, D> centre{};
    for (int d = 0; d < D; ++d) centre[static_cast<std::size_t>(d)] = (static_cast<double>(c[static_cast<std::size_t>(d)]) + 0.5) * width;
    const int owner = mesh.owner_of_position(centre);
    ++centres;
    disagree += owner != mesh.owner(tree, o);
    if (tree.role(o) == core::OctRole::owned) role_mismatch += owner != rank;
    if (tree.role(o) == core::OctRole::ghost) role_mismatch += owner == rank;
    const auto holders = holders_of<D>(mesh, centre);
    not_held += holders.size() != 1 || holders[0] != owner;
  }
  EXPECT_GT(centres, 0);
  EXPECT_EQ(disagree, 0) << "owner_of_position(centre) differs from owner(tree, oct)";
  EXPECT_EQ(role_mismatch, 0) << "an owned oct's centre is not on this rank, or a ghost's is";
  EXPECT_EQ(not_held, 0) << "an oct centre's owner is not the one domain holding it";

  // Random points anywhere in the box.
  const parallel::Box box = Mesh<D>::domain_box(tree);
  std::mt19937_64 random(12345);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  long long wrong = 0;
  for (int i = 0; i < 2000; ++i) {
    std::array<double, D> x{};
    for (int d = 0; d < D; ++d) x[static_cast<std::size_t>(d)] = unit(random) * box.hi[static_cast<std::size_t>(d)];
    const auto holders = holders_of<D>(mesh, x);
    wrong += holders.size() != 1 || holders[0] != mesh.owner_of_position(x);
  }
  EXPECT_EQ(wrong, 0) << "random points";

  // Points exactly on every k-section wall (and just below it) belong to exactly one domain: the
  // one above the wall, the one below.
  if (!mesh.hilbert()) {
    const auto& tree_k = mesh.decomposition();
    long long walls = 0, wrong_on_wall = 0;
    for (int node = 0; node < tree_k.node_count(); ++node) {
      if (tree_k.is_leaf(node) || tree_k.split_axis(node) >= D) continue;
      const auto w = tree_k.walls(node);
      const auto axis = static_cast<std::size_t>(tree_k.split_axis(node));
      for (std::size_t j = 1; j + 1 < w.size(); ++j) {
        std::array<double, D> x{};
        for (int d = 0; d < D; ++d)
          x[static_cast<std::size_t>(d)] = 0.5 * (tree_k.box(node).lo[static_cast<std::size_t>(d)] + tree_k.box(node).hi[static_cast<std::size_t>(d)]);
        x[axis] = w[j];
        const auto above = holders_of<D>(mesh, x);
        const int child_above = tree_k.first_child(node) + static_cast<int>(j);
        wrong_on_wall += above.size() != 1 || above[0] != mesh.owner_of_position(x) || above[0] < tree_k.rank_min(child_above) ||
                         above[0] > tree_k.rank_max(child_above);
        x[axis] = std::nextafter(w[j], -std::numeric_limits<double>::infinity());
        const auto below = holders_of<D>(mesh, x);
        wrong_on_wall += below.size() != 1 || below[0] != mesh.owner_of_position(x) || below[0] >= tree_k.rank_min(child_above) ||
                         below[0] < tree_k.rank_min(node);
        ++walls;
      }
    }
    // A node of k children has k - 1 walls, so a tree of N leaves has N - 1 (all on axes < D: the
    // sliver axes beyond D are never split).
    EXPECT_EQ(walls, mesh.nrank() - 1);
    EXPECT_EQ(wrong_on_wall, 0) << walls << " walls";
  }

  // Outside the box is an error, not a silent periodic wrap.
  if (mesh.distributed()) {
    std::array<double, D> x{};
    x[0] = box.hi[0];
    EXPECT_THROW((void)mesh.owner_of_position(x), Error);
    x[0] = -1e-12;
    EXPECT_THROW((void)mesh.owner_of_position(x), Error);
  }
}

TEST(DistributedOwnerOfPosition, AgreesWithOctOwnersAndDomainsKsection) {
  for (bool balanced : {false, true}) {
    check_owner_of_position<1>("ksection", balanced);
    check_owner_of_position<2>("ksection", balanced);
    check_owner_of_position<3>("ksection", balanced);
  }
}

TEST(DistributedOwnerOfPosition, AgreesWithOctOwnersAndDomainsHilbert) {
  for (bool balanced : {false, true}) {
    check_owner_of_position<2>("hilbert", balanced);
    check_owner_of_position<3>("hilbert", balanced);
  }
}

// A small integer from (rank, field, level, cell coordinates): sums of a few of them are exact in
// any order, so the expected sums below are bitwise.
template <int D>
double cell_value(int rank, int field, int level, const typename Tree<D>::Coordinates& x) {
  std::uint64_t h = static_cast<std::uint64_t>(level) * 0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(field) * 0x632be59bd9b4e019ULL;
  for (int d = 0; d < D; ++d) h = (h ^ static_cast<std::uint64_t>(x[static_cast<std::size_t>(d)])) * 0xbf58476d1ce4e5b9ULL;
  return static_cast<double>((rank + 1) * 4096 + static_cast<int>((h >> 40) % 4096));
}

template <int D>
void check_reverse_accumulate(const char* ordering, bool balanced, int nfield) {
  SCOPED_TRACE(std::string(ordering) + (balanced ? " balanced" : " geometric") + ", D = " + std::to_string(D) + ", " +
               std::to_string(nfield) + " field(s)");
  constexpr int ncell = Tree<D>::cells_per_oct;
  Tree<D> tree = refined_tree<D>();
  std::vector<int> fields;
  for (int f = 0; f < nfield; ++f) fields.push_back(tree.add_field(core::scalar_field("deposit" + std::to_string(f))));
  Mesh<D> mesh(MPI_COMM_WORLD, "auto", ordering);
  distribute<D>(tree, mesh, balanced);
  const int rank = mesh.rank(), nrank = mesh.nrank();

  // Every rank's ghost octs (level, key words), gathered: who holds which oct as ghost.
  std::vector<std::uint64_t> mine;
  for (int l = 1; l <= tree.levelmax(); ++l)
    for (core::OctIndex g : tree.ghost_octs_at_level(l)) {
      const core::MortonKey key = tree.key(g);
      mine.insert(mine.end(), {static_cast<std::uint64_t>(l), static_cast<std::uint64_t>(key), static_cast<std::uint64_t>(core::UInt128{key} >> 64)});
    }
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(nrank)), offsets(static_cast<std::size_t>(nrank) + 1, 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < nrank; ++r) offsets[static_cast<std::size_t>(r) + 1] = offsets[static_cast<std::size_t>(r)] + counts[static_cast<std::size_t>(r)];
  std::vector<std::uint64_t> all(static_cast<std::size_t>(offsets.back()));
  MPI_Allgatherv(mine.data(), count, MPI_UINT64_T, all.data(), counts.data(), offsets.data(), MPI_UINT64_T, MPI_COMM_WORLD);
  std::map<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>, std::vector<int>> ghost_holders;
  for (int r = 0; r < nrank; ++r)
    for (int at = offsets[static_cast<std::size_t>(r)]; at < offsets[static_cast<std::size_t>(r) + 1]; at += 3)
      ghost_holders[{all[static_cast<std::size_t>(at)], all[static_cast<std::size_t>(at) + 1], all[static_cast<std::size_t>(at) + 2]}].push_back(r);

  // Every rank writes its values into its owned and its ghost cells.
  for (int l = 1; l <= tree.levelmax(); ++l)
    for (const auto* list : {&tree.octs_at_level(l), &tree.ghost_octs_at_level(l)})
      for (core::OctIndex o : *list)
        for (int c = 0; c < ncell; ++c)
          for (int f = 0; f < nfield; ++f)
            tree.field(fields[static_cast<std::size_t>(f)])[Tree<D>::cell_index(o, c)] =
                cell_value<D>(rank, f, l, tree.cell_coordinates(Tree<D>::cell_index(o, c)));

  const long long calls_before = mesh.stats().reverse_calls;
  for (int l = 1; l <= tree.levelmax(); ++l) mesh.reverse_accumulate(tree, l, fields);
  if (mesh.distributed()) {
    EXPECT_EQ(mesh.stats().reverse_calls - calls_before, tree.levelmax());
  }

  long long owned_cells = 0, wrong = 0, contributed = 0, ghost_changed = 0;
  for (int l = 1; l <= tree.levelmax(); ++l) {
    for (core::OctIndex o : tree.octs_at_level(l)) {
      const core::MortonKey key = tree.key(o);
      const auto it = ghost_holders.find({static_cast<std::uint64_t>(l), static_cast<std::uint64_t>(key), static_cast<std::uint64_t>(core::UInt128{key} >> 64)});
      for (int c = 0; c < ncell; ++c) {
        const core::CellIndex cell = Tree<D>::cell_index(o, c);
        for (int f = 0; f < nfield; ++f) {
          double expected = cell_value<D>(rank, f, l, tree.cell_coordinates(cell));
          if (it != ghost_holders.end())
            for (int holder : it->second) expected += cell_value<D>(holder, f, l, tree.cell_coordinates(cell));
          wrong += tree.field(fields[static_cast<std::size_t>(f)])[cell] != expected;
        }
        ++owned_cells;
      }
      if (it != ghost_holders.end()) ++contributed;
    }
    for (core::OctIndex g : tree.ghost_octs_at_level(l))
      for (int c = 0; c < ncell; ++c)
        for (int f = 0; f < nfield; ++f)
          ghost_changed += tree.field(fields[static_cast<std::size_t>(f)])[Tree<D>::cell_index(g, c)] !=
                           cell_value<D>(rank, f, l, tree.cell_coordinates(Tree<D>::cell_index(g, c)));
  }
  EXPECT_GT(owned_cells, 0);
  EXPECT_EQ(wrong, 0) << "owned cells whose sum is not their own value plus every ghost copy's";
  EXPECT_EQ(ghost_changed, 0) << "reverse_accumulate changed ghost cells";
  // Not vacuous: with several ranks some owned octs are somebody's ghosts.
  const long long contributed_total = mesh.sum(contributed);
  if (nrank > 1) {
    EXPECT_GT(contributed_total, 0);
  }
}

TEST(DistributedReverseAccumulate, OwnersAddEveryGhostCopyKsection) {
  for (bool balanced : {false, true}) {
    check_reverse_accumulate<1>("ksection", balanced, 1);
    check_reverse_accumulate<2>("ksection", balanced, 2);
    check_reverse_accumulate<3>("ksection", balanced, 1);
    check_reverse_accumulate<3>("ksection", balanced, 3);
  }
}

TEST(DistributedReverseAccumulate, OwnersAddEveryGhostCopyHilbert) {
  check_reverse_accumulate<2>("hilbert", true, 1);
  check_reverse_accumulate<3>("hilbert", false, 2);
}

}  // namespace
