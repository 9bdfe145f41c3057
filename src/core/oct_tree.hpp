#pragma once
// The cell-based octree (ARCHITECTURE §1): octs of 2^D cells in structure-of-arrays pools,
// one Morton hash per level for connectivity (seeds/000 §4, Appendix B), no nbor array.
//
// Oct o at level l has integer coordinates in [0, 2^(l-1) n_d) per axis and cells of size
// boxlen / nx / 2^l; cell c of oct o is o * 2^D + c with bit d of c the offset along axis d.
// Level-1 octs tile the coarse grid (nx * ny * nz of them) and always exist.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "core/field_registry.hpp"
#include "core/morton_hash.hpp"
#include "core/morton_key.hpp"

namespace kosmo::core {

using CellIndex = std::int64_t;
inline constexpr CellIndex no_cell = -1;

// Neighbour cells of level-1 octs are coarse-grid cells, which hold no data in the pool; they are
// returned as -2 - (index of the coarse cell) so that they can never be mistaken for pool cells.
constexpr bool is_coarse_cell(CellIndex cell) { return cell <= -2; }
constexpr std::int64_t coarse_cell_number(CellIndex cell) { return -2 - cell; }

// Bytes per oct in use, by array (pool capacity included, so over-allocation shows).
// What an oct is to this rank (ARCHITECTURE §1): one it owns and updates; a ghost, a copy of
// another rank's oct kept current by exchanges; or idle, a level-1 oct of the coarse grid that
// exists on every rank (level 1 always tiles the box) but lies outside this rank's ghost zone, so
// its values are never read by an owned oct's computation.
enum class OctRole : std::uint8_t { owned = 0, ghost = 1, idle = 2 };

struct OctMemory {
  std::size_t octs_in_use = 0;
  double keys = 0, levels = 0, fathers = 0, sons = 0, fields = 0, hash = 0, level_lists = 0;
  double total() const { return keys + levels + fathers + sons + fields + hash + level_lists; }
};

template <int D, class Key = MortonKey>
class OctTree {
 public:
  using Codec = MortonCodec<D, Key>;
  using Coordinates = typename Codec::Coordinates;
  using Position = std::array<double, D>;
  using Offset = std::array<int, D>;
  static constexpr int dimension = D;
  static constexpr int cells_per_oct = 1 << D;
  static constexpr int directions = 2 * D;

  struct Geometry {
    int levelmax = 1;
    Coordinates coarse_cells{};  // nx, ny, nz: level-1 octs per axis
    std::array<bool, D> periodic{};
    double boxlen = 1.0;
  };

  explicit OctTree(const Geometry& geometry);

  // --- fields -------------------------------------------------------------------------------
  int add_field(const FieldInfo& info);
  const FieldRegistry& fields() const { return registry_; }
  void add_ghost_stage(int id, GhostStage stage) { registry_.add_ghost_stage(id, stage); }
  double* field(int id) { return field_values_[static_cast<std::size_t>(id)].data(); }
  const double* field(int id) const { return field_values_[static_cast<std::size_t>(id)].data(); }
  // A scratch field's storage exists only while a computation uses it (seeds/000 App. C: no array
  // a run does not use; docs/performance.md, "Bytes per oct"): release_field() frees it (field()
  // is then null, and the pool's growth and compaction skip it), acquire_field() gives it back,
  // every value zero, as for a new oct. Both do nothing when the field is already so.
  void release_field(int id);
  void acquire_field(int id);
  bool field_released(int id) const { return released_[static_cast<std::size_t>(id)] != 0; }

  // --- pool and geometry ----------------------------------------------------------------------
  const Geometry& geometry() const { return geometry_; }
  int levelmax() const { return geometry_.levelmax; }
  std::size_t oct_capacity() const { return keys_.size(); }
  std::size_t octs_in_use() const { return keys_.size() - free_octs_.size(); }
  bool alive(OctIndex o) const { return levels_[static_cast<std::size_t>(o)] > 0; }
  int level(OctIndex o) const { return levels_[static_cast<std::size_t>(o)]; }
  Key key(OctIndex o) const { return keys_[static_cast<std::size_t>(o)]; }
  std::span<const Key> keys() const { return keys_; }
  Coordinates coordinates(OctIndex o) const { return Codec::decode(key(o)); }
  OctIndex father_oct(OctIndex o) const { return father_octs_[static_cast<std::size_t>(o)]; }
  CellIndex father_cell(OctIndex o) const;
  OctIndex son(CellIndex cell) const { return sons_[static_cast<std::size_t>(cell)]; }
  bool is_leaf(CellIndex cell) const { return son(cell) == no_oct; }

  static constexpr CellIndex cell_index(OctIndex o, int child) { return CellIndex{o} * cells_per_oct + child; }
  static constexpr OctIndex oct_of(CellIndex cell) { return static_cast<OctIndex>(cell / cells_per_oct); }
  static constexpr int child_of(CellIndex cell) { return static_cast<int>(cell % cells_per_oct); }

  Coordinates extent(int level) const;        // octs per axis at `level`
  double cell_size(int level) const;          // boxlen / nx / 2^level
  Position cell_centre(CellIndex cell) const;
  Coordinates cell_coordinates(CellIndex cell) const;  // integer cell coordinates at the cell's level

  // Owned octs at each level, sorted by Morton key (valid after rebuild_level_lists()). On one
  // rank every oct is owned.
  const std::vector<OctIndex>& octs_at_level(int level) const { return level_octs_[static_cast<std::size_t>(level)]; }
  // Ghost octs at each level, sorted by Morton key.
  const std::vector<OctIndex>& ghost_octs_at_level(int level) const { return ghost_octs_[static_cast<std::size_t>(level)]; }
  OctRole role(OctIndex o) const { return static_cast<OctRole>(roles_[static_cast<std::size_t>(o)]); }
  // Changes an oct's role; the level lists follow at the next rebuild_level_lists().
  void set_role(OctIndex o, OctRole role) { roles_[static_cast<std::size_t>(o)] = static_cast<std::uint8_t>(role); }

  // --- connectivity (seeds/000 Appendix B) ----------------------------------------------------
  OctIndex find_oct(int level, Key key) const;
  // Same-level face neighbour in direction dir = 2 * axis + (0: -, 1: +), or no_oct.
  OctIndex neighbour_oct(OctIndex o, int dir) const;
  // Father cell (level l-1) of the neighbour oct in direction dir: RAMSES' nbor(igrid, dir).
  // Exists whenever the tree is graded; no_cell outside a non-periodic box.
  CellIndex neighbour_cell(OctIndex o, int dir) const;
  // Cell at `level` with integer cell coordinates `c` (wrapped into the box first on periodic
  // axes), or no_cell when its oct does not exist or c lies outside a non-periodic box.
  CellIndex find_cell(int level, Coordinates c) const;
  // Same-level cell displaced by `offset` cells from `cell`, or no_cell.
  CellIndex cell_neighbour(CellIndex cell, const Offset& offset) const;

  // --- mutation -------------------------------------------------------------------------------
  // Creates the son oct of a leaf cell (son cells are leaves, field values zero) and returns it.
  // The new oct is owned and appended to its level's list; call rebuild_level_lists() to re-sort.
  OctIndex create_son(CellIndex cell, OctRole role = OctRole::owned);
  // Destroys the son oct of `cell`; all son cells must be leaves.
  void destroy_son(CellIndex cell);
  // Rebuilds every level's list of octs, sorted by key.
  void rebuild_level_lists();
  // Renumbers the octs contiguously in (level, key) order, releases free slots and rebuilds the
  // hash tables from scratch (seeds/000 Appendix B: morton_hash_rebuild after defragmentation).
  void compact();

  // Changes whenever an oct is created or destroyed or the pool is compacted, so that caches
  // derived from the mesh (neighbour stencils) know when to rebuild.
  std::uint64_t generation() const { return generation_; }

  // --- diagnostics ----------------------------------------------------------------------------
  const MortonHash<Key>& hash(int level) const { return hashes_[static_cast<std::size_t>(level)]; }
  OctMemory memory() const;

 private:
  OctIndex allocate_oct();
  void reserve_octs(std::size_t octs);

  Geometry geometry_;
  FieldRegistry registry_;
  // Structure-of-arrays pool, indexed by oct (cells: oct * 2^D + child).
  std::vector<Key> keys_;
  std::vector<std::int8_t> levels_;  // 0 marks a free slot
  std::vector<std::uint8_t> roles_;  // OctRole
  std::vector<OctIndex> father_octs_;
  std::vector<OctIndex> sons_;
  std::vector<std::vector<double>> field_values_;
  std::vector<std::uint8_t> released_;  // per field: storage freed by release_field()
  std::vector<OctIndex> free_octs_;
  std::uint64_t generation_ = 0;
  // Per level (index 0 unused).
  std::vector<MortonHash<Key>> hashes_;
  std::vector<std::vector<OctIndex>> level_octs_;
  std::vector<std::vector<OctIndex>> ghost_octs_;
};

// Largest levelmax a key width allows with `coarse_cells` level-1 octs along the widest axis.
template <class Key>
constexpr int deepest_level(std::int64_t coarse_cells) {
  int level = 1;
  while ((coarse_cells << level) <= (std::int64_t{1} << morton_bits_per_axis<Key>)) ++level;
  return level;
}

}  // namespace kosmo::core
