#include "particles/particle_locate.hpp"

#include <atomic>

#include "core/error.hpp"
#include "particles/cic_kernel.hpp"

namespace kosmo::particles {

namespace {

// The finest oct containing particle i and its level, descending from the level-1 oct; marks
// `outside` with i when the particle lies outside the box.
template <int D, class Key>
class Locator {
 public:
  using Tree = core::OctTree<D, Key>;
  using Codec = typename Tree::Codec;

  Locator(const Tree& tree, ParticleSet<D>& particles) : tree_(tree), boxlen_(tree.geometry().boxlen) {
    for (int d = 0; d < D; ++d) x_[static_cast<std::size_t>(d)] = particles.position(d).data();
    oct_ = particles.oct().data();
    level_ = particles.level().data();
  }

  // False when the particle lies outside the box (oct = no_oct, level 0).
  bool locate(std::size_t i) const {
    for (int d = 0; d < D; ++d) {
      const double xd = x_[static_cast<std::size_t>(d)][i];
      if (!(xd >= 0.0 && xd <= boxlen_)) {
        oct_[i] = core::no_oct;
        level_[i] = 0;
        return false;
      }
    }
    // Level 1: the coarse-grid oct.
    int l = 1;
    typename Tree::Coordinates cell = cell_at(i, 1);
    core::OctIndex o = tree_.find_oct(1, Codec::encode(oct_of(cell)));
    // Descend through refined cells (floor(x / (h/2)) >> 1 == floor(x / h): halving h is exact).
    while (o != core::no_oct) {
      const core::OctIndex son = tree_.son(Tree::cell_index(o, child_of(cell)));
      if (son == core::no_oct) break;
      o = son;
      ++l;
      cell = cell_at(i, l);
    }
    oct_[i] = o;
    level_[i] = static_cast<std::int8_t>(o == core::no_oct ? 0 : l);
    return true;
  }

  // Whether particle i still lies in the leaf cell it was located in: its cell at the located
  // level, by the expression locate uses, is in the located oct and has no son. Then locate would
  // find that oct again: the oct's ancestors contain the particle, their cells holding it are
  // refined (each has the next ancestor as son), and the descent stops at the leaf.
  bool still_in_located_cell(std::size_t i) const {
    const core::OctIndex o = oct_[i];
    if (o == core::no_oct) return false;
    for (int d = 0; d < D; ++d) {
      const double xd = x_[static_cast<std::size_t>(d)][i];
      if (!(xd >= 0.0 && xd <= boxlen_)) return false;
    }
    const typename Tree::Coordinates cell = cell_at(i, level_[i]);
    return tree_.key(o) == Codec::encode(oct_of(cell)) && tree_.son(Tree::cell_index(o, child_of(cell))) == core::no_oct;
  }

 private:
  typename Tree::Coordinates cell_at(std::size_t i, int level) const {
    typename Tree::Coordinates cell{};
    const double h = tree_.cell_size(level);
    const typename Tree::Coordinates extent = tree_.extent(level);
    for (int d = 0; d < D; ++d)
      cell[static_cast<std::size_t>(d)] =
          cell_coordinate(x_[static_cast<std::size_t>(d)][i], h, 2 * extent[static_cast<std::size_t>(d)]);
    return cell;
  }
  static typename Tree::Coordinates oct_of(const typename Tree::Coordinates& cell) {
    typename Tree::Coordinates o{};
    for (int d = 0; d < D; ++d) o[static_cast<std::size_t>(d)] = cell[static_cast<std::size_t>(d)] >> 1;
    return o;
  }
  static int child_of(const typename Tree::Coordinates& cell) {
    int child = 0;
    for (int d = 0; d < D; ++d) child |= static_cast<int>(cell[static_cast<std::size_t>(d)] & 1) << d;
    return child;
  }

  const Tree& tree_;
  double boxlen_;
  std::array<const double*, D> x_{};
  core::OctIndex* oct_ = nullptr;
  std::int8_t* level_ = nullptr;
};

template <int D>
void require_located(const ParticleSet<D>& particles, std::size_t first_outside, double boxlen) {
  const std::size_t n = particles.size();
  KOSMO_REQUIRE(first_outside == n, "particles: particle id " << particles.id()[first_outside] << " lies outside the box [0, " << boxlen
                                                              << "] (wrap positions on periodic axes first)");
  for (std::size_t i = 0; i < n; ++i)
    KOSMO_REQUIRE(particles.oct()[i] != core::no_oct, "particles: no level-1 oct holds particle id " << particles.id()[i]);
}

}  // namespace

template <int D, class Key>
void locate_particles(const core::OctTree<D, Key>& tree, ParticleSet<D>& particles) {
  const std::size_t n = particles.size();
  const Locator<D, Key> locator(tree, particles);
  std::atomic<std::size_t> outside{n};  // first offending particle, or n
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    if (locator.locate(i)) continue;
    std::size_t expected = n;
    outside.compare_exchange_strong(expected, i);
  }
  require_located(particles, outside.load(), tree.geometry().boxlen);
}

template <int D, class Key>
std::size_t relocate_moved_particles(const core::OctTree<D, Key>& tree, ParticleSet<D>& particles, int level) {
  const std::size_t n = particles.size();
  const Locator<D, Key> locator(tree, particles);
  const std::span<const std::int8_t> particle_level = particles.level();
  const std::span<const core::OctIndex> particle_oct = particles.oct();
  std::atomic<std::size_t> outside{n};
  std::size_t relocated = 0;
#pragma omp parallel for schedule(static) reduction(+ : relocated)
  for (std::size_t i = 0; i < n; ++i) {
    if (particle_oct[i] != core::no_oct && (particle_level[i] != level || locator.still_in_located_cell(i))) continue;
    ++relocated;
    if (locator.locate(i)) continue;
    std::size_t expected = n;
    outside.compare_exchange_strong(expected, i);
  }
  require_located(particles, outside.load(), tree.geometry().boxlen);
  return relocated;
}

#define KOSMO_INSTANTIATE_LOCATE(D, Key)                                                   \
  template void locate_particles<D, Key>(const core::OctTree<D, Key>&, ParticleSet<D>&); \
  template std::size_t relocate_moved_particles<D, Key>(const core::OctTree<D, Key>&, ParticleSet<D>&, int);
KOSMO_INSTANTIATE_LOCATE(1, std::uint64_t)
KOSMO_INSTANTIATE_LOCATE(2, std::uint64_t)
KOSMO_INSTANTIATE_LOCATE(3, std::uint64_t)
KOSMO_INSTANTIATE_LOCATE(1, core::UInt128)
KOSMO_INSTANTIATE_LOCATE(2, core::UInt128)
KOSMO_INSTANTIATE_LOCATE(3, core::UInt128)
#undef KOSMO_INSTANTIATE_LOCATE

}  // namespace kosmo::particles
