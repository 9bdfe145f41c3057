// Recursive k-section tree of seeds/000 §2.1-2.2: build level by level, walls from cost histograms.
#include "parallel/ksection_tree.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "parallel/prime_factors.hpp"

namespace kosmo::parallel {

void UniformCostSource::histograms(std::span<const HistogramRequest> requests, std::vector<double>& costs) {
  for (const HistogramRequest& request : requests) {
    double volume = 1.0;
    for (int d = 0; d < 3; ++d) volume *= request.box.extent(d);
    for (int b = 0; b < request.bins; ++b) costs.push_back(volume / request.bins);
  }
}

int longest_axis(const Box& box) {
  int axis = 0;
  // A relative margin keeps round-off in wall coordinates from breaking a geometric tie differently
  // in sibling nodes, which would misalign their walls and add partners.
  for (int d = 1; d < 3; ++d)
    if (box.extent(d) > box.extent(axis) * (1.0 + 1e-12)) axis = d;
  return axis;
}

std::vector<int> place_walls(std::span<const double> histogram, int k, double tolerance, WallReport& report) {
  KOSMO_REQUIRE(k >= 1, "place_walls: k must be >= 1, got " << k);
  const int bins = static_cast<int>(histogram.size());
  std::vector<double> cumulative(bins + 1, 0.0);
  for (int b = 0; b < bins; ++b) cumulative[b + 1] = cumulative[b] + histogram[b];
  const double total = cumulative[bins];
  std::vector<int> edges(k + 1, 0);
  edges[k] = bins;
  for (int j = 1; j < k; ++j) {
    if (!(total > 0.0)) {  // nothing to balance: split the box geometrically
      edges[j] = static_cast<int>(std::lround(static_cast<double>(j) * bins / k));
      continue;
    }
    // seeds/000 eq. 3 with n_m = n / k: the left side of wall j holds j / k of the node's cost.
    const double target = total * j / k;
    const auto first = cumulative.begin() + edges[j - 1];
    int e = static_cast<int>(std::lower_bound(first, cumulative.end(), target) - cumulative.begin());
    e = std::min(e, bins);
    if (e > edges[j - 1] && target - cumulative[e - 1] <= cumulative[e] - target) --e;
    edges[j] = e;
    const double error = std::abs(cumulative[e] - target) / (total / k);
    ++report.walls;
    report.max_relative_error = std::max(report.max_relative_error, error);
    if (error > tolerance) ++report.unresolved_walls;  // cannot do better at this histogram resolution
  }
  return edges;
}

namespace {

// Index of coordinate x on the histogram lattice of `axis` (walls are lattice points).
long long lattice_index(const Box& domain, int axis, int resolution, double x) {
  return std::llround((x - domain.lo[axis]) / domain.extent(axis) * resolution);
}

double lattice_coordinate(const Box& domain, int axis, int resolution, long long index) {
  return domain.lo[axis] + domain.extent(axis) * static_cast<double>(index) / resolution;
}

}  // namespace

KSectionTree KSectionTree::build(int nrank, const Box& domain, CostSource& cost, const WallSettings& settings) {
  KOSMO_REQUIRE(nrank >= 1, "k-section tree: the number of ranks must be >= 1, got " << nrank);
  KOSMO_REQUIRE(settings.bins_per_domain >= 1,
                "k-section tree: bins_per_domain must be >= 1, got " << settings.bins_per_domain);
  for (int d = 0; d < 3; ++d)
    KOSMO_REQUIRE(domain.extent(d) > 0.0, "k-section tree: the domain has non-positive extent along axis " << d);
  KSectionTree tree;
  tree.nrank_ = nrank;
  tree.domain_ = domain;
  tree.splits_ = splitting_sequence(nrank);
  const auto nodes = static_cast<std::size_t>(ksection_node_count(tree.splits_));
  tree.level_.reserve(nodes);
  tree.box_.reserve(nodes);
  tree.add_node(0, domain, 0, nrank - 1);

  const int resolution = settings.bins_per_domain;
  std::vector<HistogramRequest> requests;
  std::vector<double> costs;
  int level_begin = 0, level_end = 1;
  for (int level = 0; level < tree.tree_levels(); ++level) {
    const int k = tree.splits_[level];
    // seeds/000 §2.2 step 1: one histogram per node of this level along its longest axis, all
    // requested at once (one MPI_Allreduce per level in a distributed build).
    requests.clear();
    for (int node = level_begin; node < level_end; ++node) {
      const Box& box = tree.box_[node];
      const int axis = longest_axis(box);
      const long long bins =
          lattice_index(domain, axis, resolution, box.hi[axis]) - lattice_index(domain, axis, resolution, box.lo[axis]);
      requests.push_back({box, axis, static_cast<int>(std::max(0LL, bins))});
    }
    costs.clear();
    cost.histograms(requests, costs);
    std::size_t expected = 0;
    for (const HistogramRequest& request : requests) expected += request.bins;
    KOSMO_REQUIRE(costs.size() == expected, "k-section tree: the cost source returned "
                                                << costs.size() << " histogram bins, expected " << expected);
    std::size_t offset = 0;
    for (int node = level_begin; node < level_end; ++node) {
      const HistogramRequest& request = requests[node - level_begin];
      const int axis = request.axis;
      const std::vector<int> edges = place_walls(std::span<const double>(costs).subspan(offset, request.bins), k,
                                                 settings.tolerance, tree.report_);
      offset += request.bins;
      const long long base = lattice_index(domain, axis, resolution, tree.box_[node].lo[axis]);
      std::vector<double> interior;
      for (int j = 1; j < k; ++j) interior.push_back(lattice_coordinate(domain, axis, resolution, base + edges[j]));
      tree.split_node(node, axis, interior);
    }
    level_begin = level_end;
    level_end = static_cast<int>(tree.level_.size());
  }
  tree.index_leaves();
  return tree;
}

void KSectionTree::add_node(int level, const Box& box, int rank_min, int rank_max) {
  level_.push_back(level);
  box_.push_back(box);
  rank_min_.push_back(rank_min);
  rank_max_.push_back(rank_max);
  first_child_.push_back(-1);
  axis_.push_back(-1);
  wall_offset_.push_back(-1);
}

void KSectionTree::split_node(int node, int axis, std::span<const double> interior_walls) {
  const int k = static_cast<int>(interior_walls.size()) + 1;
  const Box parent = box_[node];
  axis_[node] = axis;
  wall_offset_[node] = static_cast<int>(walls_.size());
  walls_.push_back(parent.lo[axis]);
  walls_.insert(walls_.end(), interior_walls.begin(), interior_walls.end());
  walls_.push_back(parent.hi[axis]);
  first_child_[node] = static_cast<int>(level_.size());
  const int ranks_per_child = (rank_max_[node] - rank_min_[node] + 1) / k;
  for (int j = 0; j < k; ++j) {
    Box child = parent;
    child.lo[axis] = walls_[wall_offset_[node] + j];
    child.hi[axis] = walls_[wall_offset_[node] + j + 1];
    const int first_rank = rank_min_[node] + j * ranks_per_child;
    add_node(level_[node] + 1, child, first_rank, first_rank + ranks_per_child - 1);
  }
}

void KSectionTree::index_leaves() {
  // Leaves in node order are ranks 0..N-1 because children are stored contiguously in order.
  leaf_of_rank_.assign(nrank_, -1);
  for (int node = 0; node < node_count(); ++node)
    if (is_leaf(node)) leaf_of_rank_[rank_min_[node]] = node;
}

KSectionTree KSectionTree::from_walls(int nrank, const Box& domain, std::span<const double> walls) {
  KOSMO_REQUIRE(nrank >= 1, "k-section tree: the number of ranks must be >= 1, got " << nrank);
  KSectionTree tree;
  tree.nrank_ = nrank;
  tree.domain_ = domain;
  tree.splits_ = splitting_sequence(nrank);
  tree.add_node(0, domain, 0, nrank - 1);
  std::size_t at = 0;
  int level_begin = 0, level_end = 1;
  for (int level = 0; level < tree.tree_levels(); ++level) {
    const int k = tree.splits_[level];
    for (int node = level_begin; node < level_end; ++node) {
      const int axis = longest_axis(tree.box_[node]);
      KOSMO_REQUIRE(at + static_cast<std::size_t>(k) + 1 <= walls.size() && walls[at] == tree.box_[node].lo[axis] &&
                        walls[at + static_cast<std::size_t>(k)] == tree.box_[node].hi[axis],
                    "k-section tree: the stored walls do not describe a k-section of this domain for " << nrank << " ranks");
      tree.split_node(node, axis, walls.subspan(at + 1, static_cast<std::size_t>(k - 1)));
      at += static_cast<std::size_t>(k) + 1;
    }
    level_begin = level_end;
    level_end = tree.node_count();
  }
  KOSMO_REQUIRE(at == walls.size(), "k-section tree: " << walls.size() - at << " stored walls left over");
  tree.index_leaves();
  return tree;
}

std::span<const double> KSectionTree::walls(int node) const {
  if (is_leaf(node)) return {};
  return std::span<const double>(walls_).subspan(wall_offset_[node], child_count(node) + 1);
}

std::vector<Box> periodic_images(const Box& box, const Box& domain) {
  // Split the query into its periodic images inside the domain, axis by axis.
  std::vector<Box> pieces{box};
  for (int d = 0; d < 3; ++d) {
    const double extent = domain.extent(d);
    std::vector<Box> folded;
    for (Box piece : pieces) {
      if (piece.hi[d] - piece.lo[d] >= extent) {  // covers the whole axis
        piece.lo[d] = domain.lo[d];
        piece.hi[d] = domain.hi[d];
        folded.push_back(piece);
        continue;
      }
      const double shift = std::floor((piece.lo[d] - domain.lo[d]) / extent) * extent;
      piece.lo[d] -= shift;
      piece.hi[d] -= shift;
      if (piece.hi[d] <= domain.hi[d]) {
        folded.push_back(piece);
      } else {
        Box upper = piece, lower = piece;
        upper.hi[d] = domain.hi[d];
        lower.lo[d] = domain.lo[d];
        lower.hi[d] = piece.hi[d] - extent;
        folded.push_back(upper);
        folded.push_back(lower);
      }
    }
    pieces.swap(folded);
  }
  return pieces;
}

std::vector<int> KSectionTree::ranks_overlapping(const Box& box) const {
  std::vector<int> ranks;
  const std::vector<Box> pieces = periodic_images(box, domain_);
  std::vector<int> stack;
  for (const Box& piece : pieces) {
    stack.assign(1, 0);
    while (!stack.empty()) {
      const int node = stack.back();
      stack.pop_back();
      const Box& b = box_[node];
      bool overlaps = true;
      for (int d = 0; d < 3; ++d) overlaps = overlaps && piece.lo[d] < b.hi[d] && b.lo[d] < piece.hi[d];
      if (!overlaps) continue;
      if (is_leaf(node)) {
        ranks.push_back(rank_min_[node]);
      } else {
        for (int j = 0; j < child_count(node); ++j) stack.push_back(first_child_[node] + j);
      }
    }
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

int KSectionTree::owner(std::array<double, 3> point) const {
  for (int d = 0; d < 3; ++d) {  // periodic wrap into [lo, hi)
    const double extent = domain_.extent(d);
    double x = std::fmod(point[d] - domain_.lo[d], extent);
    if (x < 0.0) x += extent;
    point[d] = domain_.lo[d] + x;
    if (point[d] >= domain_.hi[d]) point[d] = domain_.lo[d];
  }
  int node = 0;
  while (!is_leaf(node)) {
    const std::span<const double> w = walls(node);
    // Child j holds [w_j, w_{j+1}); the count of interior walls <= x is j.
    const auto j = std::upper_bound(w.begin() + 1, w.end() - 1, point[axis_[node]]) - (w.begin() + 1);
    node = first_child_[node] + static_cast<int>(j);
  }
  return rank_min_[node];
}

std::vector<std::int32_t> KSectionTree::owner_map(int grid) const {
  KOSMO_REQUIRE(grid >= 1, "k-section owner map: the grid size must be >= 1, got " << grid);
  const auto g = static_cast<std::size_t>(grid);
  std::vector<std::int32_t> owner(g * g * g, -1);
  for (int rank = 0; rank < nrank_; ++rank) {
    const Box& box = box_[leaf_of_rank_[rank]];
    std::array<long long, 3> begin{}, end{};
    for (int d = 0; d < 3; ++d) {
      // Cell i is inside when lo <= (i + 1/2) dx < hi: the cell-centre rule of owner().
      auto first_cell = [&](double x) {
        const double scaled = (x - domain_.lo[d]) / domain_.extent(d) * grid - 0.5;
        return std::clamp(static_cast<long long>(std::ceil(scaled)), 0LL, static_cast<long long>(grid));
      };
      begin[d] = first_cell(box.lo[d]);
      end[d] = box.hi[d] >= domain_.hi[d] ? grid : first_cell(box.hi[d]);
    }
    for (long long k = begin[2]; k < end[2]; ++k)
      for (long long j = begin[1]; j < end[1]; ++j) {
        std::int32_t* row = owner.data() + (static_cast<std::size_t>(k) * g + static_cast<std::size_t>(j)) * g;
        std::fill(row + begin[0], row + end[0], rank);
      }
  }
  return owner;
}

}  // namespace kosmo::parallel
