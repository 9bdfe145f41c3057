// The binned supernova search (seeds/000 §6.2, per oct group: docs/galaxy.md "The search") finds
// exactly the (cell, blast image) pairs of the all-pairs scan, in the same order, so average_SN's
// records and Sedov_blast's gas come out bit for bit the same — on an AMR mesh, with blasts wrapping
// around the periodic box, with bins both about r_max wide and capped at 128 per axis (then wider
// than r_max), with a cluster dense enough that groups of octs split and octs gather one by one, and
// on 1 and 2 threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/oct_tree.hpp"
#include "feedback/blast_kernels.hpp"
#include "feedback/supernova_bins.hpp"

using namespace kosmo;

namespace {

using Tree = core::OctTree<3>;
constexpr int kLevelmin = 4;
constexpr int kLevelmax = 8;

// A periodic unit box at levelmin, refined to levelmax in nested spheres around two centres, one
// at a box corner so that its refined cells and blasts wrap around the faces.
Tree make_mesh(const std::vector<std::array<double, 3>>& centres) {
  Tree::Geometry geometry;
  geometry.levelmax = kLevelmax;
  geometry.coarse_cells = {1, 1, 1};
  geometry.periodic = {true, true, true};
  Tree tree(geometry);
  const double radius[4] = {0.2, 0.12, 0.07, 0.04};  // of the regions refined to levels 5 to 8
  for (int level = 1; level < kLevelmax; ++level) {
    const std::vector<core::OctIndex> octs = tree.octs_at_level(level);
    for (core::OctIndex o : octs)
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(o, c);
        bool refine = level < kLevelmin;
        const auto x = tree.cell_centre(cell);
        for (const auto& g : centres) {
          double r2 = 0.0;
          for (int d = 0; d < 3; ++d) {
            const double dx = std::fabs(x[d] - g[d]);
            r2 += std::min(dx, 1.0 - dx) * std::min(dx, 1.0 - dx);
          }
          if (level >= kLevelmin) refine = refine || r2 < radius[level - kLevelmin] * radius[level - kLevelmin];
        }
        if (refine) tree.create_son(cell);
      }
    tree.rebuild_level_lists();
  }
  return tree;
}

struct Random {  // splitmix64
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  double operator()() {
    state += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
  }
};

// 150 events in a ball of radius rmax around the corner centre (so a group of octs there sees far
// more than the 32 blasts it shares, and splits), 150 in the finest spheres, 100 anywhere.
std::vector<feedback::SupernovaEvent> make_events(const std::vector<std::array<double, 3>>& centres, double rmax) {
  Random random;
  std::vector<feedback::SupernovaEvent> events(400);
  for (std::size_t i = 0; i < events.size(); ++i) {
    auto& e = events[i];
    const double spread = i < 150 ? rmax : (i < 300 ? 0.04 : 2.0);
    const auto& g = centres[i < 150 ? 0 : i % 2];
    std::array<double, 3> offset{};
    do {
      for (double& x : offset) x = 2.0 * random() - 1.0;
    } while (offset[0] * offset[0] + offset[1] * offset[1] + offset[2] * offset[2] > 1.0);
    for (int d = 0; d < 3; ++d) e.position[d] = i < 300 ? std::fmod(g[d] + spread * offset[d] + 2.0, 1.0) : 0.5 + 0.5 * offset[d];
    for (int d = 0; d < 3; ++d) e.velocity[d] = 0.1 * offset[d];
    e.ejected_mass = 1e-6 * (1.0 + random());
    e.energy = 1e-3 * (1.0 + random());
    e.identity = static_cast<std::int64_t>(i);
  }
  return events;
}

struct SearchResult {
  std::vector<feedback::BudgetRecord> records;
  std::vector<feedback::BlastBudget> budgets;
  std::vector<double> gas;  // density, momentum, energy of every leaf after Sedov_blast
};

SearchResult search(Tree& tree, const feedback::GasFields& fields, const feedback::LeafCells& cells,
                    const std::vector<feedback::SupernovaEvent>& events, double rmax, bool binned, int threads) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  const auto images = feedback::blast_images(tree, events, {0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, rmax);
  const feedback::SupernovaBins bins({-rmax, -rmax, -rmax}, {1.0 + rmax, 1.0 + rmax, 1.0 + rmax}, rmax, images);
  const feedback::SupernovaBins* search_bins = binned ? &bins : nullptr;
  SearchResult result;
  result.records = feedback::average_sn(cells, images, search_bins, rmax);
  result.budgets = feedback::sum_budgets(result.records, events.size());
  std::vector<feedback::BlastInjection> injections;
  for (std::size_t i = 0; i < events.size(); ++i)
    injections.push_back(feedback::blast_injection(result.budgets[i], events[i].ejected_mass, events[i].energy, 0.0, events[i].velocity, 0.5));
  const std::size_t capacity = tree.oct_capacity() * Tree::cells_per_oct;
  std::fill(tree.field(fields.density), tree.field(fields.density) + capacity, 1.0);
  for (int d = 0; d < 3; ++d) std::fill(tree.field(fields.momentum[d]), tree.field(fields.momentum[d]) + capacity, 0.0);
  std::fill(tree.field(fields.energy), tree.field(fields.energy) + capacity, 1e-5);
  feedback::sedov_blast(tree, fields, cells, images, search_bins, rmax, injections);
  for (int f : {fields.density, fields.momentum[0], fields.momentum[1], fields.momentum[2], fields.energy})
    for (core::CellIndex c : cells.cell) result.gas.push_back(tree.field(f)[c]);
  omp_set_num_threads(saved);
  return result;
}

void expect_same(const SearchResult& a, const SearchResult& b) {
  ASSERT_EQ(a.records.size(), b.records.size());
  for (std::size_t r = 0; r < a.records.size(); ++r) {
    EXPECT_EQ(a.records[r].event, b.records[r].event) << r;
    EXPECT_EQ(a.records[r].image, b.records[r].image) << r;
    EXPECT_EQ(a.records[r].level_child, b.records[r].level_child) << r;
    EXPECT_EQ(a.records[r].key, b.records[r].key) << r;
    EXPECT_EQ(std::memcmp(a.records[r].values.data(), b.records[r].values.data(), sizeof(feedback::BlastBudget)), 0) << r;
  }
  ASSERT_EQ(a.budgets.size(), b.budgets.size());
  EXPECT_EQ(std::memcmp(a.budgets.data(), b.budgets.data(), a.budgets.size() * sizeof(feedback::BlastBudget)), 0);
  ASSERT_EQ(a.gas.size(), b.gas.size());
  EXPECT_EQ(std::memcmp(a.gas.data(), b.gas.data(), a.gas.size() * sizeof(double)), 0);
}

class SupernovaSearch : public ::testing::TestWithParam<double> {};

TEST_P(SupernovaSearch, BinnedFindsTheAllPairsPairsInTheSameOrderOnAnyThreadCount) {
  const std::vector<std::array<double, 3>> centres{{0.01, 0.99, 0.005}, {0.6, 0.4, 0.55}};
  Tree tree = make_mesh(centres);
  feedback::GasFields fields;
  fields.density = tree.add_field(core::scalar_field("density"));
  for (int d = 0; d < 3; ++d) fields.momentum[d] = tree.add_field(core::scalar_field(std::string("momentum_") + "xyz"[d]));
  fields.energy = tree.add_field(core::scalar_field("total_energy"));
  const feedback::LeafCells cells = feedback::owned_leaf_cells(tree, kLevelmin);
  ASSERT_GT(cells.octs(), 0U);
  ASSERT_EQ(cells.oct_first.back(), cells.size());
  const double rmax = GetParam() * tree.cell_size(kLevelmax);
  const auto events = make_events(centres, rmax);

  const SearchResult brute = search(tree, fields, cells, events, rmax, false, 2);
  const SearchResult binned = search(tree, fields, cells, events, rmax, true, 2);
  const SearchResult binned_one_thread = search(tree, fields, cells, events, rmax, true, 1);
  expect_same(brute, binned);
  expect_same(binned, binned_one_thread);

  // Not a comparison of empty results: the cluster's blasts overlap (a cell sees more than the 32
  // blasts a group shares), some reach across a box face (images other than the event itself,
  // image 13 = no shift), and the injection changed the gas.
  std::vector<int> blasts_per_cell(cells.size(), 0);
  int wrapped = 0;
  for (const auto& r : binned.records) wrapped += r.image != 13;
  for (std::size_t i = 0, r = 0; i < cells.size(); ++i)
    for (; r < binned.records.size() && binned.records[r].key == cells.key[i] && binned.records[r].level_child == cells.level_child[i]; ++r)
      ++blasts_per_cell[i];
  EXPECT_GT(*std::max_element(blasts_per_cell.begin(), blasts_per_cell.end()), 32);
  EXPECT_GT(wrapped, 0);
  EXPECT_GT(binned.records.size(), 1000U);
  double injected = 0.0;
  for (std::size_t i = 0; i < cells.size(); ++i) injected += binned.gas[i] - 1.0;
  EXPECT_GT(injected, 0.0);
}

// rmax = 4 dx_min: 66 bins per axis, each rmax wide; rmax = 2 and 1.5 dx_min: eq. 11's cap
// of 128 bins per axis makes them 1.02 and 1.35 rmax wide.
INSTANTIATE_TEST_SUITE_P(BinWidths, SupernovaSearch, ::testing::Values(4.0, 2.0, 1.5));

}  // namespace
