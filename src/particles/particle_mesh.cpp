#include "particles/particle_mesh.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "particles/cic_kernel.hpp"

namespace kosmo::particles {

namespace {

// The cells of one particle's cloud at `level`: cell of the level, or the covering cell of
// level - 1 where the level's cell does not exist (RAMSES cic_amr's igrid(j,ind) == 0 case).
template <int D>
struct CloudCells {
  static constexpr int corners = 1 << D;
  std::array<core::CellIndex, corners> cell{};
  std::array<double, corners> weight{};
  std::array<bool, corners> coarse{};
};

template <int D, class Key>
class CloudResolver {
 public:
  using Tree = core::OctTree<D, Key>;

  CloudResolver(const Tree& tree, int level)
      : tree_(tree), level_(level), h_(tree.cell_size(level)), periodic_(tree.geometry().periodic) {
    const typename Tree::Coordinates extent = tree.extent(level);
    for (int d = 0; d < D; ++d) cells_per_axis_[static_cast<std::size_t>(d)] = 2 * extent[static_cast<std::size_t>(d)];
  }

  // False when a cloud cell has neither a level-l cell nor a level-(l-1) cell (ungraded tree).
  // With `drop_missing`, a cloud cell without a level-l cell is marked dropped instead (no_cell,
  // weight kept) and the level-(l-1) cell is not looked for.
  bool resolve(const std::array<double, D>& position, CloudCells<D>& out, bool drop_missing = false) const {
    const CicCloud<D> cloud = cic_cloud<D>(position, h_);
    for (int k = 0; k < CicCloud<D>::corners; ++k) {
      typename Tree::Coordinates c = cloud.coordinates(k);
      for (int d = 0; d < D; ++d) {
        const auto axis = static_cast<std::size_t>(d);
        const std::int64_t n = cells_per_axis_[axis];
        if (c[axis] < 0 || c[axis] >= n) {
          if (periodic_[axis]) {
            c[axis] = ((c[axis] % n) + n) % n;
          } else {
            c[axis] = c[axis] < 0 ? 0 : n - 1;  // the cloud's part beyond a wall goes to the wall cell
          }
        }
      }
      const auto index = static_cast<std::size_t>(k);
      out.weight[index] = cloud.weight(k);
      out.coarse[index] = false;
      out.cell[index] = tree_.find_cell(level_, c);
      if (out.cell[index] == core::no_cell) {
        if (drop_missing) continue;
        if (level_ == 1) return false;
        for (int d = 0; d < D; ++d) c[static_cast<std::size_t>(d)] >>= 1;
        out.cell[index] = tree_.find_cell(level_ - 1, c);
        out.coarse[index] = true;
        if (out.cell[index] == core::no_cell) return false;
      }
    }
    return true;
  }

 private:
  const Tree& tree_;
  int level_;
  double h_;
  std::array<bool, D> periodic_;
  typename Tree::Coordinates cells_per_axis_{};
};

template <int D>
std::array<double, D> position_of(const ParticleSet<D>& particles, std::size_t i) {
  std::array<double, D> x{};
  for (int d = 0; d < D; ++d) x[static_cast<std::size_t>(d)] = particles.position(d)[i];
  return x;
}

template <int D, class Key>
bool selected(const core::OctTree<D, Key>& tree, core::OctIndex o, int level, LevelSelection selection) {
  if (o == core::no_oct) return false;
  const int l = tree.level(o);
  return selection == LevelSelection::finest_level ? l == level : l >= level;
}

template <int D>
constexpr int power_of_three() {
  return D == 1 ? 3 : (D == 2 ? 9 : 27);
}

// The selected particles sorted by host oct: order[bucket[o] .. bucket[o + 1]) are the particles
// hosted by oct o, in particle order.
struct HostBuckets {
  std::vector<std::size_t> bucket;
  std::vector<std::size_t> order;
};

template <int D, class Key>
HostBuckets sort_by_host_oct(const core::OctTree<D, Key>& tree, const ParticleSet<D>& particles, int level,
                             LevelSelection selection) {
  const std::size_t n = particles.size();
  const std::span<const core::OctIndex> particle_oct = particles.oct();
  const std::span<const Family> family = particles.family();

  // Host oct of each selected particle: its ancestor at `level` (RAMSES: the level-l grid whose
  // linked list holds the particle while level l is being solved).
  std::vector<core::OctIndex> host(n, core::no_oct);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    core::OctIndex o = particle_oct[i];
    if (family[i] == Family::tracer || !selected(tree, o, level, selection)) continue;
    while (tree.level(o) > level) o = tree.father_oct(o);
    host[i] = o;
  }

  // Stable counting sort of the selected particles by host oct.
  const std::size_t capacity = tree.oct_capacity();
  HostBuckets buckets;
  std::vector<std::size_t>& bucket = buckets.bucket;
  bucket.assign(capacity + 1, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (host[i] != core::no_oct) ++bucket[static_cast<std::size_t>(host[i]) + 1];
  for (std::size_t o = 0; o < capacity; ++o) bucket[o + 1] += bucket[o];
  const std::size_t count = bucket[capacity];
  std::vector<std::size_t>& order = buckets.order;
  order.resize(count);
  {
    std::vector<std::size_t> next(bucket.begin(), bucket.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
      if (host[i] != core::no_oct) order[next[static_cast<std::size_t>(host[i])]++] = i;
  }
  return buckets;
}

// Each sorted particle's cloud cells and mass shares m w, 2^D slots per particle in bucket order
// (RAMSES cic_amr: vol(j,ind), indp(j,ind)); coarse marks a share onto a level-(l-1) cell
// (on_coarser_cell) or a dropped one (dropped_share), both skipped by the level's gather.
constexpr std::uint8_t on_level_cell = 0, on_coarser_cell = 1, dropped_share = 2;
struct CloudShares {
  std::vector<core::CellIndex> cloud_cell;
  std::vector<double> share;
  std::vector<std::uint8_t> coarse;
};

template <int D, class Key>
CloudShares resolve_cloud_shares(const core::OctTree<D, Key>& tree, const ParticleSet<D>& particles, int level,
                                 const std::vector<std::size_t>& order, std::span<const double> mass, bool drop_missing) {
  constexpr int corners = core::OctTree<D, Key>::cells_per_oct;
  const std::size_t count = order.size();
  const CloudResolver<D, Key> resolver(tree, level);
  CloudShares shares{std::vector<core::CellIndex>(count * corners), std::vector<double>(count * corners),
                     std::vector<std::uint8_t>(count * corners)};
  std::vector<core::CellIndex>& cloud_cell = shares.cloud_cell;
  std::vector<double>& share = shares.share;
  std::vector<std::uint8_t>& coarse = shares.coarse;
  std::atomic<bool> ungraded{false};
#pragma omp parallel for schedule(static)
  for (std::size_t p = 0; p < count; ++p) {
    const std::size_t i = order[p];
    CloudCells<D> cloud;
    if (!resolver.resolve(position_of(particles, i), cloud, drop_missing)) ungraded.store(true, std::memory_order_relaxed);
    for (int k = 0; k < corners; ++k) {
      const std::size_t slot = p * corners + static_cast<std::size_t>(k);
      cloud_cell[slot] = cloud.cell[static_cast<std::size_t>(k)];
      share[slot] = mass[i] * cloud.weight[static_cast<std::size_t>(k)];
      coarse[slot] = cloud.cell[static_cast<std::size_t>(k)] == core::no_cell ? dropped_share
                     : cloud.coarse[static_cast<std::size_t>(k)]            ? on_coarser_cell
                                                                            : on_level_cell;
    }
  }
  KOSMO_REQUIRE(!ungraded.load(), "particles: CIC deposit at level "
                                      << level
                                      << " found a cloud cell with no cell at this level or the one below "
                                         "(the octree must be 2:1 graded)");
  return shares;
}

// Gather onto the level's octs (owned and ghost): each oct sums, for its own cells, the shares of
// the particles of its 3^D neighbour octs, in neighbour then bucket order.
// Sum is the per-cell accumulator type, convert(share) its term, store(cell, sum) writes a touched
// oct's sums.
template <int D, class Key, class Sum, class Convert, class Store>
void gather_onto_level_octs(const core::OctTree<D, Key>& tree, int level, const std::vector<std::size_t>& bucket,
                            const CloudShares& shares, Convert convert, Store store) {
  using Tree = core::OctTree<D, Key>;
  using Codec = typename Tree::Codec;
  constexpr int corners = Tree::cells_per_oct;
  const std::vector<core::CellIndex>& cloud_cell = shares.cloud_cell;
  const std::vector<double>& share = shares.share;
  const std::vector<std::uint8_t>& coarse = shares.coarse;
  std::vector<core::OctIndex> targets(tree.octs_at_level(level));
  targets.insert(targets.end(), tree.ghost_octs_at_level(level).begin(), tree.ghost_octs_at_level(level).end());
  const typename Tree::Coordinates extent = tree.extent(level);
  const std::array<bool, D> periodic = tree.geometry().periodic;
#pragma omp parallel for schedule(dynamic, 16)
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const core::OctIndex target = targets[t];
    std::array<core::OctIndex, power_of_three<D>()> neighbours{};
    int neighbour_count = 0;
    for (int k = 0; k < power_of_three<D>(); ++k) {
      std::array<int, D> offset{};
      int rest = k;
      for (int d = 0; d < D; ++d) {
        offset[static_cast<std::size_t>(d)] = rest % 3 - 1;
        rest /= 3;
      }
      Key neighbour_key;
      if (!Codec::offset_key(tree.key(target), offset, extent, periodic, neighbour_key)) continue;
      const core::OctIndex neighbour = tree.find_oct(level, neighbour_key);
      if (neighbour == core::no_oct) continue;
      // A small periodic box can wrap two offsets onto one oct: visit each oct once.
      bool seen = false;
      for (int j = 0; j < neighbour_count; ++j) seen = seen || neighbours[static_cast<std::size_t>(j)] == neighbour;
      if (!seen) neighbours[static_cast<std::size_t>(neighbour_count++)] = neighbour;
    }
    std::array<Sum, corners> sum{};
    bool touched = false;
    for (int j = 0; j < neighbour_count; ++j) {
      const auto neighbour = static_cast<std::size_t>(neighbours[static_cast<std::size_t>(j)]);
      for (std::size_t p = bucket[neighbour]; p < bucket[neighbour + 1]; ++p) {
        for (int k = 0; k < corners; ++k) {
          const std::size_t slot = p * corners + static_cast<std::size_t>(k);
          if (coarse[slot] || Tree::oct_of(cloud_cell[slot]) != target) continue;
          sum[static_cast<std::size_t>(Tree::child_of(cloud_cell[slot]))] += convert(share[slot]);
          touched = true;
        }
      }
    }
    if (!touched) continue;
    for (int c = 0; c < corners; ++c) store(Tree::cell_index(target, c), sum[static_cast<std::size_t>(c)]);
  }
}

// Fallback shares onto level-(l-1) cells: few (coarse-fine boundaries only), summed per cell in
// bucket order after a sort on (cell, slot), which has a unique result.
template <int D>
void deposit_fallback_shares(const CloudShares& shares, double* rho, double volume) {
  constexpr int corners = 1 << D;
  std::vector<std::pair<core::CellIndex, std::size_t>> fallback;
  for (std::size_t slot = 0; slot < shares.coarse.size(); ++slot)
    if (shares.coarse[slot] == on_coarser_cell) fallback.emplace_back(shares.cloud_cell[slot], slot);
  if (fallback.empty()) return;
  std::sort(fallback.begin(), fallback.end());
  const double coarse_volume = volume * static_cast<double>(corners);  // h_{l-1} = 2 h_l exactly
  for (std::size_t first = 0; first < fallback.size();) {
    const core::CellIndex cell = fallback[first].first;
    double sum = 0.0;
    std::size_t last = first;
    for (; last < fallback.size() && fallback[last].first == cell; ++last) sum += shares.share[fallback[last].second];
    rho[cell] += sum / coarse_volume;
    first = last;
  }
}

}  // namespace

template <int D, class Key>
std::size_t deposit_density(core::OctTree<D, Key>& tree, const ParticleSet<D>& particles, int level, int density_field,
                            LevelSelection selection) {
  return deposit_charge(tree, particles, level, density_field, selection, particles.mass(),
                        MissingCloudCells::onto_coarser_cell);
}

namespace {

// The particles to deposit at `level`, sorted by host oct, after checking the arguments both deposits share.
template <int D, class Key>
HostBuckets deposit_buckets(const core::OctTree<D, Key>& tree, const ParticleSet<D>& particles, int level,
                            LevelSelection selection, std::span<const double> charge) {
  KOSMO_REQUIRE(level >= 1 && level <= tree.levelmax(),
                "particles: deposit at level " << level << " outside [1, " << tree.levelmax() << "]");
  KOSMO_REQUIRE(charge.size() == particles.size(),
                "particles: " << charge.size() << " charges for " << particles.size() << " particles");
  return sort_by_host_oct(tree, particles, level, selection);
}

}  // namespace

template <int D, class Key>
std::size_t deposit_charge(core::OctTree<D, Key>& tree, const ParticleSet<D>& particles, int level, int field,
                           LevelSelection selection, std::span<const double> charge, MissingCloudCells missing) {
  const HostBuckets buckets = deposit_buckets(tree, particles, level, selection, charge);
  const std::size_t count = buckets.order.size();
  if (count == 0) return 0;
  const CloudShares shares =
      resolve_cloud_shares(tree, particles, level, buckets.order, charge, missing == MissingCloudCells::dropped);
  double* rho = tree.field(field);
  const double volume = [&] {
    double v = 1.0;
    for (int d = 0; d < D; ++d) v *= tree.cell_size(level);
    return v;
  }();
  gather_onto_level_octs<D, Key, double>(
      tree, level, buckets.bucket, shares, [](double share) { return share; },
      [rho, volume](core::CellIndex cell, double sum) { rho[cell] += sum / volume; });
  deposit_fallback_shares<D>(shares, rho, volume);
  return count;
}

template <int D, class Key>
std::size_t deposit_charge_exactly(core::OctTree<D, Key>& tree, const ParticleSet<D>& particles, int level,
                                   const std::array<int, 2>& limb_fields, LevelSelection selection,
                                   std::span<const double> charge, const ExactChargeSum& exact) {
  const HostBuckets buckets = deposit_buckets(tree, particles, level, selection, charge);
  const std::size_t count = buckets.order.size();
  if (count == 0) return 0;
  const CloudShares shares = resolve_cloud_shares(tree, particles, level, buckets.order, charge, true);
  double* low = tree.field(limb_fields[0]);
  double* high = tree.field(limb_fields[1]);
  using Integer = ExactChargeSum::Integer;
  gather_onto_level_octs<D, Key, Integer>(
      tree, level, buckets.bucket, shares, [&exact](double share) { return exact.quantise(share); },
      [low, high](core::CellIndex cell, Integer sum) {
        low[cell] += ExactChargeSum::low_limb(sum);
        high[cell] += ExactChargeSum::high_limb(sum);
      });
  return count;
}

template <int D, class Key>
std::size_t interpolate_acceleration(const core::OctTree<D, Key>& tree, ParticleSet<D>& particles, int level,
                                     const std::type_identity_t<std::array<int, D>>& acceleration_fields,
                                     LevelSelection selection) {
  constexpr int corners = 1 << D;
  KOSMO_REQUIRE(level >= 1 && level <= tree.levelmax(),
                "particles: interpolation at level " << level << " outside [1, " << tree.levelmax() << "]");
  const std::size_t n = particles.size();
  std::array<const double*, D> field{};
  std::array<double*, D> acceleration{};
  for (int d = 0; d < D; ++d) {
    field[static_cast<std::size_t>(d)] = tree.field(acceleration_fields[static_cast<std::size_t>(d)]);
    acceleration[static_cast<std::size_t>(d)] = particles.acceleration(d).data();
  }
  const std::span<const core::OctIndex> particle_oct = particles.oct();
  const CloudResolver<D, Key> resolver(tree, level);
  std::atomic<bool> ungraded{false};
  std::size_t count = 0;
#pragma omp parallel for schedule(static) reduction(+ : count)
  for (std::size_t i = 0; i < n; ++i) {
    if (!selected(tree, particle_oct[i], level, selection)) continue;
    CloudCells<D> cloud;
    if (!resolver.resolve(position_of(std::as_const(particles), i), cloud)) {
      ungraded.store(true, std::memory_order_relaxed);
      continue;
    }
    // RAMSES move_fine: ff(j,idim) = sum over the cloud's cells of f(indp(j,ind),idim) * vol(j,ind).
    for (int d = 0; d < D; ++d) {
      double g = 0.0;
      for (int k = 0; k < corners; ++k)
        g += cloud.weight[static_cast<std::size_t>(k)] *
             field[static_cast<std::size_t>(d)][cloud.cell[static_cast<std::size_t>(k)]];
      acceleration[static_cast<std::size_t>(d)][i] = g;
    }
    ++count;
  }
  KOSMO_REQUIRE(!ungraded.load(), "particles: CIC interpolation at level "
                                      << level
                                      << " found a cloud cell with no cell at this level or the one below "
                                         "(the octree must be 2:1 graded)");
  return count;
}

#define KOSMO_INSTANTIATE_PARTICLE_MESH(D, Key)                                                             \
  template std::size_t deposit_density<D, Key>(core::OctTree<D, Key>&, const ParticleSet<D>&, int, int,     \
                                               LevelSelection);                                             \
  template std::size_t deposit_charge<D, Key>(core::OctTree<D, Key>&, const ParticleSet<D>&, int, int,      \
                                              LevelSelection, std::span<const double>, MissingCloudCells);  \
  template std::size_t deposit_charge_exactly<D, Key>(core::OctTree<D, Key>&, const ParticleSet<D>&, int,   \
                                                      const std::array<int, 2>&, LevelSelection,           \
                                                      std::span<const double>, const ExactChargeSum&);     \
  template std::size_t interpolate_acceleration<D, Key>(const core::OctTree<D, Key>&, ParticleSet<D>&, int, \
                                                        const std::type_identity_t<std::array<int, D>>&,    \
                                                        LevelSelection);
KOSMO_INSTANTIATE_PARTICLE_MESH(1, std::uint64_t)
KOSMO_INSTANTIATE_PARTICLE_MESH(2, std::uint64_t)
KOSMO_INSTANTIATE_PARTICLE_MESH(3, std::uint64_t)
KOSMO_INSTANTIATE_PARTICLE_MESH(1, core::UInt128)
KOSMO_INSTANTIATE_PARTICLE_MESH(2, core::UInt128)
KOSMO_INSTANTIATE_PARTICLE_MESH(3, core::UInt128)
#undef KOSMO_INSTANTIATE_PARTICLE_MESH

}  // namespace kosmo::particles
