#include "core/oct_tree.hpp"

#include <algorithm>
#include <numeric>

namespace kosmo::core {

template <int D, class Key>
OctTree<D, Key>::OctTree(const Geometry& geometry) : geometry_(geometry) {
  KOSMO_REQUIRE(geometry_.levelmax >= 1, "octree: levelmax must be >= 1, got " << geometry_.levelmax);
  KOSMO_REQUIRE(geometry_.levelmax <= 127, "octree: levelmax must be <= 127");
  std::int64_t widest = 1;
  for (int d = 0; d < D; ++d) {
    KOSMO_REQUIRE(geometry_.coarse_cells[d] >= 1, "octree: the coarse grid needs at least one cell per axis");
    widest = std::max(widest, geometry_.coarse_cells[d]);
  }
  const int deepest = deepest_level<Key>(widest);
  KOSMO_REQUIRE(geometry_.levelmax <= deepest,
                "octree: levelmax=" << geometry_.levelmax << " exceeds " << deepest << ", the deepest level "
                                    << 8 * sizeof(Key) << "-bit Morton keys address with " << widest
                                    << " coarse cells per axis (build with -DKOSMO_MORTON_BITS=128 for deeper levels)");
  hashes_.resize(static_cast<std::size_t>(geometry_.levelmax) + 1);
  level_octs_.resize(static_cast<std::size_t>(geometry_.levelmax) + 1);
  ghost_octs_.resize(static_cast<std::size_t>(geometry_.levelmax) + 1);

  // Level 1 tiles the coarse grid, in Morton order.
  const Coordinates n = geometry_.coarse_cells;
  std::int64_t count = 1;
  for (int d = 0; d < D; ++d) count *= n[d];
  std::vector<Key> coarse_keys;
  coarse_keys.reserve(static_cast<std::size_t>(count));
  for (std::int64_t linear = 0; linear < count; ++linear) {
    Coordinates c{};
    std::int64_t rest = linear;
    for (int d = 0; d < D; ++d) {
      c[d] = rest % n[d];
      rest /= n[d];
    }
    coarse_keys.push_back(Codec::encode(c));
  }
  std::sort(coarse_keys.begin(), coarse_keys.end());
  for (Key k : coarse_keys) {
    const OctIndex o = allocate_oct();
    keys_[static_cast<std::size_t>(o)] = k;
    levels_[static_cast<std::size_t>(o)] = 1;
    hashes_[1].insert(o, keys_);
    level_octs_[1].push_back(o);
  }
}

template <int D, class Key>
int OctTree<D, Key>::add_field(const FieldInfo& info) {
  const int id = registry_.add(info);
  field_values_.emplace_back(sons_.size(), 0.0);
  released_.push_back(0);
  return id;
}

template <int D, class Key>
void OctTree<D, Key>::release_field(int id) {
  const auto f = static_cast<std::size_t>(id);
  if (released_.at(f)) return;
  std::vector<double>().swap(field_values_[f]);
  released_[f] = 1;
}

template <int D, class Key>
void OctTree<D, Key>::acquire_field(int id) {
  const auto f = static_cast<std::size_t>(id);
  if (!released_.at(f)) return;
  field_values_[f].reserve(keys_.capacity() * cells_per_oct);
  field_values_[f].assign(sons_.size(), 0.0);
  released_[f] = 0;
}

// The pool grows by an eighth at a time, not by std::vector's doubling: a mesh that grows to N octs
// then holds at most 1.125 N octs' worth of fields instead of up to 2 N (RAMSES preallocates
// ngridmax; seeds/000 App. C counts bytes per oct in use).
template <int D, class Key>
void OctTree<D, Key>::reserve_octs(std::size_t octs) {
  keys_.reserve(octs);
  levels_.reserve(octs);
  roles_.reserve(octs);
  father_octs_.reserve(octs);
  sons_.reserve(octs * cells_per_oct);
  for (std::size_t f = 0; f < field_values_.size(); ++f)
    if (!released_[f]) field_values_[f].reserve(octs * cells_per_oct);
}

template <int D, class Key>
OctIndex OctTree<D, Key>::allocate_oct() {
  OctIndex o;
  if (!free_octs_.empty()) {
    o = free_octs_.back();
    free_octs_.pop_back();
  } else {
    o = static_cast<OctIndex>(keys_.size());
    KOSMO_REQUIRE(keys_.size() < static_cast<std::size_t>(INT32_MAX / cells_per_oct),
                  "octree: more octs than a 32-bit oct index can address on one rank");
    if (keys_.size() == keys_.capacity()) reserve_octs(keys_.size() + keys_.size() / 8 + 64);
    keys_.push_back(0);
    levels_.push_back(0);
    roles_.push_back(0);
    father_octs_.push_back(no_oct);
    sons_.resize(sons_.size() + cells_per_oct, no_oct);
    for (std::size_t f = 0; f < field_values_.size(); ++f) {
      if (released_[f]) continue;
      auto& values = field_values_[f];
      if (values.capacity() < sons_.size()) values.reserve(keys_.capacity() * cells_per_oct);  // a field added since
      values.resize(sons_.size(), 0.0);
    }
  }
  const auto first = static_cast<std::size_t>(cell_index(o, 0));
  std::fill_n(sons_.begin() + static_cast<std::ptrdiff_t>(first), cells_per_oct, no_oct);
  for (std::size_t f = 0; f < field_values_.size(); ++f)
    if (!released_[f]) std::fill_n(field_values_[f].begin() + static_cast<std::ptrdiff_t>(first), cells_per_oct, 0.0);
  return o;
}

template <int D, class Key>
typename OctTree<D, Key>::Coordinates OctTree<D, Key>::extent(int level) const {
  Coordinates e{};
  for (int d = 0; d < D; ++d) e[d] = geometry_.coarse_cells[d] << (level - 1);
  return e;
}

template <int D, class Key>
double OctTree<D, Key>::cell_size(int level) const {
  return geometry_.boxlen / static_cast<double>(geometry_.coarse_cells[0]) / static_cast<double>(std::int64_t{1} << level);
}

template <int D, class Key>
typename OctTree<D, Key>::Coordinates OctTree<D, Key>::cell_coordinates(CellIndex cell) const {
  Coordinates c = coordinates(oct_of(cell));
  const int child = child_of(cell);
  for (int d = 0; d < D; ++d) c[d] = 2 * c[d] + ((child >> d) & 1);
  return c;
}

template <int D, class Key>
typename OctTree<D, Key>::Position OctTree<D, Key>::cell_centre(CellIndex cell) const {
  const Coordinates c = cell_coordinates(cell);
  const double dx = cell_size(level(oct_of(cell)));
  Position x{};
  for (int d = 0; d < D; ++d) x[d] = (static_cast<double>(c[d]) + 0.5) * dx;
  return x;
}

template <int D, class Key>
CellIndex OctTree<D, Key>::father_cell(OctIndex o) const {
  const OctIndex f = father_oct(o);
  if (f == no_oct) return no_cell;
  return cell_index(f, Codec::child_index(key(o)));
}

template <int D, class Key>
OctIndex OctTree<D, Key>::find_oct(int level, Key k) const {
  return hashes_[static_cast<std::size_t>(level)].find(k, keys_);
}

template <int D, class Key>
OctIndex OctTree<D, Key>::neighbour_oct(OctIndex o, int dir) const {
  const int l = level(o);
  Key k;
  if (!Codec::neighbour_key(key(o), dir, extent(l), geometry_.periodic, k)) return no_oct;
  return find_oct(l, k);
}

template <int D, class Key>
CellIndex OctTree<D, Key>::neighbour_cell(OctIndex o, int dir) const {
  const int l = level(o);
  Key k;
  if (!Codec::neighbour_key(key(o), dir, extent(l), geometry_.periodic, k)) return no_cell;
  if (l == 1) {
    const Coordinates c = Codec::decode(k);
    std::int64_t linear = 0;
    for (int d = D - 1; d >= 0; --d) linear = linear * geometry_.coarse_cells[d] + c[d];
    return -2 - linear;
  }
  const OctIndex father = find_oct(l - 1, Codec::parent(k));
  if (father == no_oct) return no_cell;
  return cell_index(father, Codec::child_index(k));
}

template <int D, class Key>
CellIndex OctTree<D, Key>::find_cell(int level, Coordinates c) const {
  // Cells at `level` span 2 * extent(level) per axis.
  const Coordinates e = extent(level);
  int child = 0;
  for (int d = 0; d < D; ++d) {
    const std::int64_t n = 2 * e[d];
    if (c[d] < 0 || c[d] >= n) {
      if (!geometry_.periodic[d]) return no_cell;
      c[d] %= n;
      if (c[d] < 0) c[d] += n;
    }
    child |= static_cast<int>(c[d] & 1) << d;
    c[d] >>= 1;
  }
  const OctIndex o = find_oct(level, Codec::encode(c));
  return o == no_oct ? no_cell : cell_index(o, child);
}

template <int D, class Key>
CellIndex OctTree<D, Key>::cell_neighbour(CellIndex cell, const Offset& offset) const {
  const OctIndex o = oct_of(cell);
  const int child = child_of(cell);
  // Inside the same oct no lookup is needed.
  int target = child;
  bool inside = true;
  for (int d = 0; d < D; ++d) {
    const int bit = ((child >> d) & 1) + offset[d];
    if (bit < 0 || bit > 1) {
      inside = false;
      break;
    }
    target = (target & ~(1 << d)) | (bit << d);
  }
  if (inside) return cell_index(o, target);
  Coordinates c = cell_coordinates(cell);
  for (int d = 0; d < D; ++d) c[d] += offset[d];
  return find_cell(level(o), c);
}

template <int D, class Key>
OctIndex OctTree<D, Key>::create_son(CellIndex cell, OctRole role) {
  KOSMO_REQUIRE(is_leaf(cell), "octree: create_son on a cell that is already refined");
  const OctIndex father = oct_of(cell);
  const int l = level(father) + 1;
  KOSMO_REQUIRE(l <= geometry_.levelmax, "octree: cannot refine beyond levelmax=" << geometry_.levelmax);
  const Key k = Codec::child(key(father), child_of(cell));
  const OctIndex o = allocate_oct();  // may reallocate the pool: no references held across it
  keys_[static_cast<std::size_t>(o)] = k;
  levels_[static_cast<std::size_t>(o)] = static_cast<std::int8_t>(l);
  roles_[static_cast<std::size_t>(o)] = static_cast<std::uint8_t>(role);
  father_octs_[static_cast<std::size_t>(o)] = father;
  sons_[static_cast<std::size_t>(cell)] = o;
  hashes_[static_cast<std::size_t>(l)].insert(o, keys_);
  if (role == OctRole::owned) level_octs_[static_cast<std::size_t>(l)].push_back(o);
  if (role == OctRole::ghost) ghost_octs_[static_cast<std::size_t>(l)].push_back(o);
  ++generation_;
  return o;
}

template <int D, class Key>
void OctTree<D, Key>::destroy_son(CellIndex cell) {
  const OctIndex o = son(cell);
  KOSMO_REQUIRE(o != no_oct, "octree: destroy_son on a leaf cell");
  for (int c = 0; c < cells_per_oct; ++c) {
    KOSMO_REQUIRE(is_leaf(cell_index(o, c)), "octree: destroy_son on an oct whose cells are refined");
  }
  const int l = level(o);
  hashes_[static_cast<std::size_t>(l)].erase(key(o), keys_);
  levels_[static_cast<std::size_t>(o)] = 0;
  father_octs_[static_cast<std::size_t>(o)] = no_oct;
  sons_[static_cast<std::size_t>(cell)] = no_oct;
  free_octs_.push_back(o);
  ++generation_;
  // Level lists are rebuilt after a refinement pass; here only drop the entry if it is cheap.
  for (auto* lists : {&level_octs_, &ghost_octs_}) {
    auto& list = (*lists)[static_cast<std::size_t>(l)];
    if (!list.empty() && list.back() == o) list.pop_back();
  }
}


template <int D, class Key>
void OctTree<D, Key>::rebuild_level_lists() {
  for (auto& list : level_octs_) list.clear();
  for (auto& list : ghost_octs_) list.clear();
  for (std::size_t o = 0; o < keys_.size(); ++o) {
    if (levels_[o] <= 0) continue;
    const auto l = static_cast<std::size_t>(levels_[o]);
    if (roles_[o] == static_cast<std::uint8_t>(OctRole::owned)) level_octs_[l].push_back(static_cast<OctIndex>(o));
    if (roles_[o] == static_cast<std::uint8_t>(OctRole::ghost)) ghost_octs_[l].push_back(static_cast<OctIndex>(o));
  }
  for (auto* lists : {&level_octs_, &ghost_octs_})
    for (auto& list : *lists) std::sort(list.begin(), list.end(), [this](OctIndex a, OctIndex b) { return key(a) < key(b); });
}

template <int D, class Key>
void OctTree<D, Key>::compact() {
  // New numbering: level by level, Morton order inside a level (owned, ghost and idle octs
  // interleaved by key), for locality of sweeps.
  std::vector<std::vector<OctIndex>> alive(level_octs_.size());
  for (std::size_t o = 0; o < keys_.size(); ++o)
    if (levels_[o] > 0) alive[static_cast<std::size_t>(levels_[o])].push_back(static_cast<OctIndex>(o));
  std::vector<OctIndex> order;
  order.reserve(octs_in_use());
  for (auto& list : alive) {
    std::sort(list.begin(), list.end(), [this](OctIndex a, OctIndex b) { return key(a) < key(b); });
    order.insert(order.end(), list.begin(), list.end());
  }
  std::vector<OctIndex> new_index(keys_.size(), no_oct);
  for (std::size_t i = 0; i < order.size(); ++i) new_index[static_cast<std::size_t>(order[i])] = static_cast<OctIndex>(i);

  const std::size_t n = order.size();
  std::vector<Key> keys(n);
  std::vector<std::int8_t> levels(n);
  std::vector<std::uint8_t> roles(n);
  std::vector<OctIndex> fathers(n);
  std::vector<OctIndex> sons(n * cells_per_oct);
  for (std::size_t i = 0; i < n; ++i) {
    const auto o = static_cast<std::size_t>(order[i]);
    keys[i] = keys_[o];
    levels[i] = levels_[o];
    roles[i] = roles_[o];
    fathers[i] = father_octs_[o] == no_oct ? no_oct : new_index[static_cast<std::size_t>(father_octs_[o])];
    for (int c = 0; c < cells_per_oct; ++c) {
      const OctIndex s = sons_[o * cells_per_oct + static_cast<std::size_t>(c)];
      sons[i * cells_per_oct + static_cast<std::size_t>(c)] = s == no_oct ? no_oct : new_index[static_cast<std::size_t>(s)];
    }
  }
  for (std::size_t f = 0; f < field_values_.size(); ++f) {
    if (released_[f]) continue;
    auto& values = field_values_[f];
    std::vector<double> moved(n * cells_per_oct);
    for (std::size_t i = 0; i < n; ++i) {
      const auto o = static_cast<std::size_t>(order[i]);
      std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(o * cells_per_oct), cells_per_oct,
                  moved.begin() + static_cast<std::ptrdiff_t>(i * cells_per_oct));
    }
    values.swap(moved);
  }
  keys_.swap(keys);
  levels_.swap(levels);
  roles_.swap(roles);
  father_octs_.swap(fathers);
  sons_.swap(sons);
  std::vector<OctIndex>().swap(free_octs_);
  ++generation_;

  std::size_t first = 0;
  for (std::size_t l = 1; l < alive.size(); ++l) {
    auto& list = alive[l];
    std::iota(list.begin(), list.end(), static_cast<OctIndex>(first));
    first += list.size();
    hashes_[l].rebuild(list, keys_);
  }
  rebuild_level_lists();
  for (auto& list : level_octs_) list.shrink_to_fit();
  for (auto& list : ghost_octs_) list.shrink_to_fit();
}

template <int D, class Key>
OctMemory OctTree<D, Key>::memory() const {
  OctMemory m;
  m.octs_in_use = octs_in_use();
  const double n = static_cast<double>(std::max<std::size_t>(m.octs_in_use, 1));
  m.keys = static_cast<double>(keys_.capacity() * sizeof(Key)) / n;
  m.levels = static_cast<double>(levels_.capacity() * sizeof(std::int8_t) + roles_.capacity()) / n;
  m.fathers = static_cast<double>(father_octs_.capacity() * sizeof(OctIndex)) / n;
  m.sons = static_cast<double>(sons_.capacity() * sizeof(OctIndex) + free_octs_.capacity() * sizeof(OctIndex)) / n;
  double fields = 0, hash = 0, lists = 0;
  for (const auto& values : field_values_) fields += static_cast<double>(values.capacity() * sizeof(double));
  for (std::size_t l = 1; l < hashes_.size(); ++l) hash += static_cast<double>(hashes_[l].bytes());
  for (const auto& list : level_octs_) lists += static_cast<double>(list.capacity() * sizeof(OctIndex));
  for (const auto& list : ghost_octs_) lists += static_cast<double>(list.capacity() * sizeof(OctIndex));
  m.fields = fields / n;
  m.hash = hash / n;
  m.level_lists = lists / n;
  return m;
}

template class OctTree<1, std::uint64_t>;
template class OctTree<2, std::uint64_t>;
template class OctTree<3, std::uint64_t>;
template class OctTree<1, UInt128>;
template class OctTree<2, UInt128>;
template class OctTree<3, UInt128>;

}  // namespace kosmo::core
