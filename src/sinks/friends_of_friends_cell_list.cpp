// The threaded friends-of-friends backend (seeds/000 §6.4; docs/galaxy.md "Sink merging (friends of
// friends)"): a uniform grid of cells keyed by their packed integer coordinates, points radix-sorted
// by key, and a lock-free union–find over cells.
//
// The cell side is at most linking_length/1.75 (< linking_length/√3), so any two points of one cell
// are friends: a cell is one group from the start and needs no distance test. Neighbouring cells are
// joined by the first pair of their points closer than the linking length, and not tested at all
// once they are in one group already. Keys are x-major, so the cells of one row (x, y) are
// contiguous and sorted by z, and a row moved by a fixed offset stays in key order as the cells are
// swept: each neighbour row is found by a cursor that only moves forward (no hash table, no random
// lookups). Labels are the smallest point index of each group, for any thread count.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>

#include "sinks/friends_of_friends_union_find.hpp"

namespace kosmo::sinks::detail {
namespace {

// Ratio linking length / largest cell side: above √3 ≈ 1.7321 with a margin that keeps the
// "one cell, one group" rule exact under rounding of the cell assignment.
constexpr double kLinkingLengthPerCellSide = 1.75;

struct Grid {
  std::array<double, 3> origin{};
  std::array<double, 3> cell_side{};
  std::array<double, 3> inverse_cell_side{};
  std::array<std::int64_t, 3> cells{};  // per axis (periodic: the whole box)
  std::array<int, 3> reach{};           // neighbour offsets scanned per axis: -reach..reach
  std::array<int, 3> shift{};           // bit position of each coordinate in a key
  bool periodic = true;

  std::uint64_t key(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return (static_cast<std::uint64_t>(x) << shift[0]) | (static_cast<std::uint64_t>(y) << shift[1]) |
           static_cast<std::uint64_t>(z);
  }
  std::int64_t coordinate(std::uint64_t key, int d) const {
    const int bits = d == 0 ? 64 - shift[0] : shift[d - 1] - shift[d];
    return static_cast<std::int64_t>((key >> shift[d]) & ((std::uint64_t{1} << bits) - 1));
  }
};

// The grid, or false when the cell coordinates do not fit a 63-bit key (or the length is zero).
bool make_grid(const FriendsOfFriendsPoints& points, double linking_length, Grid& grid) {
  if (!(linking_length > 0.0)) return false;
  const double side = linking_length / kLinkingLengthPerCellSide;
  const std::span<const double> axes[3] = {points.x, points.y, points.z};
  grid.periodic = points.periodic;
  std::array<int, 3> bits{};
  for (std::size_t d = 0; d < 3; ++d) {
    double lowest = 0.0, extent = points.box_size;
    if (!points.periodic) {
      const auto [low, high] = std::minmax_element(axes[d].begin(), axes[d].end());
      lowest = *low;
      extent = *high - *low;
    }
    const double cells = points.periodic ? std::ceil(extent / side) : std::floor(extent / side) + 1.0;
    if (!(cells < 0x1.0p21)) return false;
    grid.cells[d] = std::max<std::int64_t>(1, static_cast<std::int64_t>(cells));
    grid.origin[d] = lowest;
    grid.cell_side[d] = points.periodic ? points.box_size / static_cast<double>(grid.cells[d]) : side;
    grid.inverse_cell_side[d] = 1.0 / grid.cell_side[d];
    // Points whose cells are k apart along an axis are more than (k-1) sides apart.
    grid.reach[d] = static_cast<int>(std::floor(linking_length / grid.cell_side[d] * (1.0 + 1e-12))) + 1;
    bits[d] = std::max(1, static_cast<int>(std::bit_width(static_cast<std::uint64_t>(grid.cells[d] - 1))));
  }
  grid.shift = {bits[1] + bits[2], bits[2], 0};
  return true;
}

// The cell of coordinate x along axis d. A point rounded into the next cell is within 10⁻¹⁶ of
// it, far inside the margin of kLinkingLengthPerCellSide.
std::int64_t cell_coordinate(const Grid& grid, std::size_t d, double x) {
  if (grid.periodic) {
    const double box = grid.cell_side[d] * static_cast<double>(grid.cells[d]);
    if (x < 0.0 || x >= box) x -= box * std::floor(x / box);
  } else {
    x -= grid.origin[d];
  }
  const auto c = static_cast<std::int64_t>(x * grid.inverse_cell_side[d]);
  return std::clamp<std::int64_t>(c, 0, grid.cells[d] - 1);
}

// Points sorted by cell key: cell c holds order[start[c] .. start[c+1]), in increasing point index.
struct CellList {
  std::vector<std::uint64_t> keys;  // of each cell, increasing
  std::vector<std::int64_t> start, order;
  std::vector<double> x, y, z;  // point positions in cell order
};

// Stable least-significant-digit radix sort of (key, point) pairs, points given in increasing order.
void radix_sort(std::vector<std::uint64_t>& keys, std::vector<std::int64_t>& order, int key_bits) {
  const int passes = (key_bits + 11) / 12;  // digits of at most 12 bits: the counts stay in L1
  const int digit_bits = (key_bits + passes - 1) / passes;
  const std::size_t buckets = std::size_t{1} << digit_bits;
  std::vector<std::uint64_t> other_keys(keys.size());
  std::vector<std::int64_t> other_order(order.size());
  std::vector<std::size_t> offsets(buckets);
  for (int low = 0; low < key_bits; low += digit_bits) {
    std::fill(offsets.begin(), offsets.end(), 0);
    for (std::uint64_t k : keys) ++offsets[(k >> low) & (buckets - 1)];
    std::size_t sum = 0;
    for (std::size_t& o : offsets) {
      const std::size_t count = o;
      o = sum;
      sum += count;
    }
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const std::size_t slot = offsets[(keys[i] >> low) & (buckets - 1)]++;
      other_keys[slot] = keys[i];
      other_order[slot] = order[i];
    }
    keys.swap(other_keys);
    order.swap(other_order);
  }
}

CellList sort_into_cells(const FriendsOfFriendsPoints& points, const Grid& grid) {
  const auto n = static_cast<std::int64_t>(points.x.size());
  std::vector<std::uint64_t> point_keys(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) if (n > kParallelThreshold)
  for (std::int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    point_keys[k] = grid.key(cell_coordinate(grid, 0, points.x[k]), cell_coordinate(grid, 1, points.y[k]),
                             cell_coordinate(grid, 2, points.z[k]));
  }
  CellList list;
  list.order.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) list.order[static_cast<std::size_t>(i)] = i;
  radix_sort(point_keys, list.order,
             grid.shift[0] + static_cast<int>(std::bit_width(static_cast<std::uint64_t>(grid.cells[0] - 1))));
  for (std::int64_t k = 0; k < n; ++k)
    if (k == 0 || point_keys[static_cast<std::size_t>(k)] != point_keys[static_cast<std::size_t>(k) - 1]) {
      list.keys.push_back(point_keys[static_cast<std::size_t>(k)]);
      list.start.push_back(k);
    }
  list.start.push_back(n);
  list.x.resize(static_cast<std::size_t>(n));
  list.y.resize(static_cast<std::size_t>(n));
  list.z.resize(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) if (n > kParallelThreshold)
  for (std::int64_t k = 0; k < n; ++k) {
    const auto i = static_cast<std::size_t>(list.order[static_cast<std::size_t>(k)]);
    list.x[static_cast<std::size_t>(k)] = points.x[i];
    list.y[static_cast<std::size_t>(k)] = points.y[i];
    list.z[static_cast<std::size_t>(k)] = points.z[i];
  }
  return list;
}

// True when some point of cell a and some point of cell b are friends.
bool cells_touch(const CellList& list, const FriendsOfFriendsPoints& points, std::int64_t a, std::int64_t b,
                 double linking_length2) {
  for (std::int64_t p = list.start[static_cast<std::size_t>(a)]; p < list.start[static_cast<std::size_t>(a) + 1]; ++p) {
    const auto i = static_cast<std::size_t>(p);
    for (std::int64_t q = list.start[static_cast<std::size_t>(b)]; q < list.start[static_cast<std::size_t>(b) + 1];
         ++q) {
      const auto j = static_cast<std::size_t>(q);
      const double dx = axis_separation(list.x[i], list.x[j], points.box_size, points.periodic);
      const double dy = axis_separation(list.y[i], list.y[j], points.box_size, points.periodic);
      const double dz = axis_separation(list.z[i], list.z[j], points.box_size, points.periodic);
      if (dx * dx + dy * dy + dz * dz <= linking_length2) return true;
    }
  }
  return false;
}

// First cell whose key is ≥ target, from a cursor that mostly moves forward (the sweep keeps row
// offsets in key order); it jumps by binary search when the target went back (periodic wrap) or far.
std::int64_t seek(const std::vector<std::uint64_t>& keys, std::int64_t cursor, std::uint64_t target) {
  const auto n = static_cast<std::int64_t>(keys.size());
  if (cursor < 0 || (cursor > 0 && keys[static_cast<std::size_t>(cursor) - 1] >= target))
    return std::lower_bound(keys.begin(), keys.end(), target) - keys.begin();
  for (int steps = 0; cursor < n && keys[static_cast<std::size_t>(cursor)] < target; ++cursor)
    if (++steps > 8) return std::lower_bound(keys.begin() + cursor, keys.end(), target) - keys.begin();
  return cursor;
}

// The neighbour rows of a cell: offsets (dx, dy) of the lexicographically positive half plus the
// cell's own row, where only the cells above it (dz > 0) are taken; an axis on which all points
// share one cell needs offset 0 only.
struct RowOffset {
  int dx, dy, dz_low, dz_high;
};

std::vector<RowOffset> half_stencil(const Grid& grid, const CellList& list) {
  std::array<int, 3> reach = grid.reach;
  for (int d = 0; d < 3; ++d) {
    const std::int64_t first = grid.coordinate(list.keys.front(), d);
    if (std::all_of(list.keys.begin(), list.keys.end(),
                    [&](std::uint64_t k) { return grid.coordinate(k, d) == first; }))
      reach[static_cast<std::size_t>(d)] = 0;
  }
  std::vector<RowOffset> rows;
  for (int dx = -reach[0]; dx <= reach[0]; ++dx)
    for (int dy = -reach[1]; dy <= reach[1]; ++dy) {
      if (dx > 0 || (dx == 0 && dy > 0)) rows.push_back({dx, dy, -reach[2], reach[2]});
      if (dx == 0 && dy == 0 && reach[2] > 0) rows.push_back({0, 0, 1, reach[2]});
    }
  return rows;
}

class CellLinker {
 public:
  CellLinker(const FriendsOfFriendsPoints& points, const Grid& grid, const CellList& list, double linking_length)
      : points_(points),
        grid_(grid),
        list_(list),
        rows_(half_stencil(grid, list)),
        linking_length2_(linking_length * linking_length) {}

  std::size_t rows() const { return rows_.size(); }

  // Joins cell a with its friends among the neighbour cells; cursors[r] follows row offset r.
  void link(std::int64_t a, std::vector<std::int64_t>& cursors, ConcurrentUnionFind& sets) const {
    const std::uint64_t key = list_.keys[static_cast<std::size_t>(a)];
    const std::int64_t x = grid_.coordinate(key, 0), y = grid_.coordinate(key, 1), z = grid_.coordinate(key, 2);
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      std::int64_t row_x = x + rows_[r].dx, row_y = y + rows_[r].dy;
      if (!wrap(row_x, 0) || !wrap(row_y, 1)) continue;
      std::int64_t low = z + rows_[r].dz_low, high = z + rows_[r].dz_high;
      const std::int64_t nz = grid_.cells[2];
      if (grid_.periodic && high - low + 1 >= nz) {
        low = 0;
        high = nz - 1;
      } else if (grid_.periodic && low < 0) {
        scan(a, row_x, row_y, low + nz, nz - 1, -1, sets);
        low = 0;
      } else if (grid_.periodic && high >= nz) {
        scan(a, row_x, row_y, 0, high - nz, -1, sets);
        high = nz - 1;
      }
      low = std::max<std::int64_t>(low, 0);
      high = std::min<std::int64_t>(high, nz - 1);
      if (low <= high) cursors[r] = scan(a, row_x, row_y, low, high, cursors[r], sets);
    }
  }

  // Joins the cells [begin, end) of one row (one x, y) with their friends: one seek per neighbour
  // row, then a z window sliding along it; a cell whose window crosses a periodic face goes alone.
  void link_row(std::int64_t begin, std::int64_t end, std::vector<std::int64_t>& cursors,
                ConcurrentUnionFind& sets) const {
    const std::int64_t nz = grid_.cells[2];
    std::int64_t reach_z = 0;
    for (const RowOffset& row : rows_) reach_z = std::max<std::int64_t>(reach_z, row.dz_high);
    auto crosses_face = [&](std::int64_t z) { return grid_.periodic && (z < reach_z || z >= nz - reach_z); };
    for (std::int64_t a = begin; a < end; ++a)
      if (crosses_face(z_of(a))) link(a, cursors, sets);
    const std::uint64_t key = list_.keys[static_cast<std::size_t>(begin)];
    const std::int64_t x = grid_.coordinate(key, 0), y = grid_.coordinate(key, 1);
    const auto cells = static_cast<std::int64_t>(list_.keys.size());
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      std::int64_t row_x = x + rows_[r].dx, row_y = y + rows_[r].dy;
      if (!wrap(row_x, 0) || !wrap(row_y, 1)) continue;
      std::int64_t b = cursors[r] = seek(list_.keys, cursors[r], grid_.key(row_x, row_y, 0));
      for (std::int64_t a = begin; a < end; ++a) {
        const std::int64_t z = z_of(a);
        if (crosses_face(z)) continue;
        const std::uint64_t low = grid_.key(row_x, row_y, std::max<std::int64_t>(z + rows_[r].dz_low, 0));
        const std::uint64_t high = grid_.key(row_x, row_y, std::min<std::int64_t>(z + rows_[r].dz_high, nz - 1));
        while (b < cells && list_.keys[static_cast<std::size_t>(b)] < low) ++b;  // z only grows along the row
        std::int64_t root_a = sets.find(a);
        for (std::int64_t c = b; c < cells && list_.keys[static_cast<std::size_t>(c)] <= high; ++c)
          test(a, c, root_a, sets);
      }
    }
  }

 private:
  std::int64_t z_of(std::int64_t cell) const { return grid_.coordinate(list_.keys[static_cast<std::size_t>(cell)], 2); }

  // Joins cells a and b if they are not in one group yet and some of their points are friends.
  void test(std::int64_t a, std::int64_t b, std::int64_t& root_a, ConcurrentUnionFind& sets) const {
    if (b == a || sets.find(b) == root_a) return;
    if (cells_touch(list_, points_, a, b, linking_length2_)) {
      sets.unite(a, b);
      root_a = sets.find(a);
    }
  }

  bool wrap(std::int64_t& c, std::size_t d) const {
    if (grid_.periodic) {  // offsets are a few cells: no division
      while (c < 0) c += grid_.cells[d];
      while (c >= grid_.cells[d]) c -= grid_.cells[d];
      return true;
    }
    return c >= 0 && c < grid_.cells[d];
  }

  // Tests cell a against the cells (row_x, row_y, low..high); returns the cursor at the row's start.
  std::int64_t scan(std::int64_t a, std::int64_t row_x, std::int64_t row_y, std::int64_t low, std::int64_t high,
                    std::int64_t cursor, ConcurrentUnionFind& sets) const {
    cursor = seek(list_.keys, cursor, grid_.key(row_x, row_y, low));
    const std::uint64_t last = grid_.key(row_x, row_y, high);
    std::int64_t root_a = sets.find(a);
    for (std::int64_t b = cursor;
         b < static_cast<std::int64_t>(list_.keys.size()) && list_.keys[static_cast<std::size_t>(b)] <= last; ++b)
      test(a, b, root_a, sets);
    return cursor;
  }

  const FriendsOfFriendsPoints& points_;
  const Grid& grid_;
  const CellList& list_;
  std::vector<RowOffset> rows_;
  double linking_length2_;
};

}  // namespace

std::vector<std::int64_t> cell_list_groups(const FriendsOfFriendsPoints& points, double linking_length) {
  Grid grid;
  if (points.x.empty()) return {};
  if (!make_grid(points, linking_length, grid)) return tree_groups(points, linking_length);
  const auto n = static_cast<std::int64_t>(points.x.size());
  const CellList list = sort_into_cells(points, grid);
  const auto cells = static_cast<std::int64_t>(list.keys.size());
  const CellLinker linker(points, grid, list, linking_length);
  ConcurrentUnionFind cell_sets(cells);
  std::vector<std::int64_t> row_start;  // cells of one (x, y) are contiguous
  for (std::int64_t c = 0; c < cells; ++c)
    if (c == 0 || (list.keys[static_cast<std::size_t>(c)] >> grid.shift[1]) !=
                      (list.keys[static_cast<std::size_t>(c) - 1] >> grid.shift[1]))
      row_start.push_back(c);
  row_start.push_back(cells);
  const auto rows = static_cast<std::int64_t>(row_start.size()) - 1;
  constexpr std::int64_t kChunk = 256;  // rows swept by one set of cursors
#pragma omp parallel for schedule(dynamic, 1) if (n > kParallelThreshold)
  for (std::int64_t chunk = 0; chunk < (rows + kChunk - 1) / kChunk; ++chunk) {
    std::vector<std::int64_t> cursors(linker.rows(), -1);
    for (std::int64_t r = chunk * kChunk; r < std::min(rows, (chunk + 1) * kChunk); ++r)
      linker.link_row(row_start[static_cast<std::size_t>(r)], row_start[static_cast<std::size_t>(r) + 1], cursors,
                      cell_sets);
  }
  // The label of a group is its smallest point: the smallest first point of its cells (each cell
  // lists its points in increasing order).
  std::vector<std::int64_t> group_label(static_cast<std::size_t>(cells), std::numeric_limits<std::int64_t>::max());
  for (std::int64_t c = 0; c < cells; ++c) {
    std::int64_t& label = group_label[static_cast<std::size_t>(cell_sets.find(c))];
    label = std::min(label, list.order[static_cast<std::size_t>(list.start[static_cast<std::size_t>(c)])]);
  }
  std::vector<std::int64_t> labels(points.x.size());
#pragma omp parallel for schedule(static) if (n > kParallelThreshold)
  for (std::int64_t c = 0; c < cells; ++c) {
    const std::int64_t label = group_label[static_cast<std::size_t>(cell_sets.find(c))];
    for (std::int64_t p = list.start[static_cast<std::size_t>(c)]; p < list.start[static_cast<std::size_t>(c) + 1]; ++p)
      labels[static_cast<std::size_t>(list.order[static_cast<std::size_t>(p)])] = label;
  }
  return labels;
}

}  // namespace kosmo::sinks::detail
