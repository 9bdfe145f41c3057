#pragma once
// The recursive k-section domain decomposition of seeds/000 §2: a k-ary tree whose levels follow
// the prime factors of N_rank (largest first, eq. 2); every node splits its box along its longest
// axis into k_l children, walls placed so each child gets a load proportional to its rank count
// (§2.2, eq. 3). The tree is stored as flat arrays indexed by node (§2.1): nodes of a level are
// contiguous, children of a node are contiguous, so leaves in node order are ranks 0..N-1 and every
// subtree owns the contiguous rank range [rank_min, rank_max].
#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace kosmo::parallel {

struct Box {
  std::array<double, 3> lo{0.0, 0.0, 0.0};
  std::array<double, 3> hi{1.0, 1.0, 1.0};
  double extent(int axis) const { return hi[axis] - lo[axis]; }
};

// One histogram the wall placement needs: the cost of `box` binned into `bins` equal slabs along
// `axis` (seeds/000 §2.2 step 1).
struct HistogramRequest {
  Box box;
  int axis = 0;
  int bins = 1;
};

// Where the costs come from. The wall placement asks once per tree level for the histograms of all
// nodes of that level, so an MPI implementation sums its local octs into one buffer and answers
// with a single MPI_Allreduce per level (§2.2 step 3); the dry run answers from a prefix sum of its
// synthetic grid (synthetic_load.hpp). A cell belongs to the bin holding its centre.
class CostSource {
 public:
  virtual ~CostSource() = default;
  // Appends, for each request in order, `bins` costs to `costs` (which arrives empty).
  virtual void histograms(std::span<const HistogramRequest> requests, std::vector<double>& costs) = 0;
};

// Uniform cost density: the cost of a bin is its volume. Builds the geometric k-section.
class UniformCostSource final : public CostSource {
 public:
  void histograms(std::span<const HistogramRequest> requests, std::vector<double>& costs) override;
};

struct WallSettings {
  // Histogram resolution Delta x_hist as bins per domain length along each axis; walls land on
  // multiples of domain extent / bins_per_domain (seeds/000 §2.2 step 1). The dry run uses G, so
  // walls fall on cell faces.
  int bins_per_domain = 1024;
  // A wall whose partition load misses its target (eq. 3) by more than this fraction of one
  // partition's share is counted as unresolved at the histogram resolution (§2.2 step 3, 5 %).
  double tolerance = 0.05;
};

struct WallReport {
  int walls = 0;
  int unresolved_walls = 0;       // relative error > tolerance even at histogram resolution
  double max_relative_error = 0;  // worst |C_left - f_j C_node| / (C_node / k) over all walls
};

class KSectionTree {
 public:
  // Builds the tree for `nrank` ranks over `domain`, placing walls level by level, top to bottom,
  // with histograms from `cost` (seeds/000 §2.2).
  static KSectionTree build(int nrank, const Box& domain, CostSource& cost, const WallSettings& settings = {});
  // The tree whose walls, in node order with each node's box ends (all_walls() of a built tree),
  // are `walls`: a decomposition read back from a checkpoint (seeds/000 §7.1's same-N fast path).
  static KSectionTree from_walls(int nrank, const Box& domain, std::span<const double> walls);
  std::span<const double> all_walls() const { return walls_; }

  int nrank() const { return nrank_; }
  const std::vector<int>& splits() const { return splits_; }
  int tree_levels() const { return static_cast<int>(splits_.size()); }
  int node_count() const { return static_cast<int>(level_.size()); }
  const Box& domain() const { return domain_; }
  const WallReport& wall_report() const { return report_; }

  // Per-node arrays (seeds/000 §2.1).
  int level(int node) const { return level_[node]; }
  bool is_leaf(int node) const { return first_child_[node] < 0; }
  int first_child(int node) const { return first_child_[node]; }
  int child_count(int node) const { return is_leaf(node) ? 0 : splits_[level_[node]]; }
  int split_axis(int node) const { return axis_[node]; }
  // k + 1 boundaries of the node's children along split_axis: box lo, the k - 1 walls, box hi.
  std::span<const double> walls(int node) const;
  const Box& box(int node) const { return box_[node]; }
  int rank_min(int node) const { return rank_min_[node]; }
  int rank_max(int node) const { return rank_max_[node]; }
  int leaf_rank(int node) const { return is_leaf(node) ? rank_min_[node] : -1; }
  int leaf_of_rank(int rank) const { return leaf_of_rank_[rank]; }

  // The rank owning `point` (wrapped periodically into the domain): a walk down the tree, taking at
  // each node the child whose half-open slab [wall_j, wall_{j+1}) holds the coordinate.
  int owner(std::array<double, 3> point) const;
  // Ranks whose domains overlap `box` (half-open, may extend past the domain: periodic images are
  // folded back), sorted and unique. A walk down the tree visiting only overlapping subtrees: how a
  // rank finds the partners for its ghost zone (its domain grown by the stencil width) without any
  // all-to-all (ARCHITECTURE §2, seeds/000 §2.1).
  std::vector<int> ranks_overlapping(const Box& box) const;

  // Owner of every cell of a regular grid x grid x grid mesh over the domain (cell (i, j, k) at
  // flat index (k grid + j) grid + i), by painting each leaf box once: O(G^3) with no tree walks.
  // A cell goes to the leaf holding its centre, the same rule as owner().
  std::vector<std::int32_t> owner_map(int grid) const;

 private:
  void add_node(int level, const Box& box, int rank_min, int rank_max);
  void split_node(int node, int axis, std::span<const double> interior_walls);
  void index_leaves();

  int nrank_ = 1;
  Box domain_;
  std::vector<int> splits_;
  std::vector<int> level_, first_child_, axis_, wall_offset_, rank_min_, rank_max_, leaf_of_rank_;
  std::vector<double> walls_;
  std::vector<Box> box_;
  WallReport report_;
};

// The pieces of `box` folded periodically into `domain` (a box reaching past a face continues at
// the opposite face), so that overlap tests need no wrap-around.
std::vector<Box> periodic_images(const Box& box, const Box& domain);

// Index of the longest axis of `box`, ties to the lowest axis (seeds/000 §2.1).
int longest_axis(const Box& box);

// Places the k - 1 walls of one node from its histogram (seeds/000 §2.2 step 2): wall j goes to the
// bin edge whose cumulative cost is closest to f_j = j / k of the node's total (eq. 3 with equal
// rank counts n_m = n / k), found by binary search on the cumulative histogram; walls never cross.
// Returns the k + 1 edge indices (0, e_1, ..., e_{k-1}, bins); an all-zero histogram splits
// geometrically. Adds to `report`.
std::vector<int> place_walls(std::span<const double> histogram, int k, double tolerance, WallReport& report);

}  // namespace kosmo::parallel
