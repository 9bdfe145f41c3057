#include "particles/particle_locate.hpp"

#include <atomic>

#include "core/error.hpp"
#include "particles/cic_kernel.hpp"

namespace kosmo::particles {

template <int D, class Key>
void locate_particles(const core::OctTree<D, Key>& tree, ParticleSet<D>& particles) {
  using Tree = core::OctTree<D, Key>;
  using Codec = typename Tree::Codec;
  const std::size_t n = particles.size();
  const double boxlen = tree.geometry().boxlen;
  std::array<const double*, D> x{};
  for (int d = 0; d < D; ++d) x[static_cast<std::size_t>(d)] = particles.position(d).data();
  core::OctIndex* oct = particles.oct().data();
  std::int8_t* level = particles.level().data();
  std::atomic<std::size_t> outside{n};  // first offending particle, or n

#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    bool inside = true;
    for (int d = 0; d < D; ++d) {
      const double xd = x[static_cast<std::size_t>(d)][i];
      inside = inside && xd >= 0.0 && xd <= boxlen;
    }
    if (!inside) {
      std::size_t expected = n;
      outside.compare_exchange_strong(expected, i);
      oct[i] = core::no_oct;
      level[i] = 0;
      continue;
    }
    // Level 1: the coarse-grid oct.
    int l = 1;
    typename Tree::Coordinates cell{};
    auto cell_at = [&](int at_level) {
      const double h = tree.cell_size(at_level);
      const typename Tree::Coordinates extent = tree.extent(at_level);
      for (int d = 0; d < D; ++d)
        cell[static_cast<std::size_t>(d)] =
            cell_coordinate(x[static_cast<std::size_t>(d)][i], h, 2 * extent[static_cast<std::size_t>(d)]);
    };
    auto child_of_cell = [&] {
      int child = 0;
      for (int d = 0; d < D; ++d) child |= static_cast<int>(cell[static_cast<std::size_t>(d)] & 1) << d;
      return child;
    };
    cell_at(1);
    typename Tree::Coordinates oct_coordinates{};
    for (int d = 0; d < D; ++d) oct_coordinates[static_cast<std::size_t>(d)] = cell[static_cast<std::size_t>(d)] >> 1;
    core::OctIndex o = tree.find_oct(1, Codec::encode(oct_coordinates));
    // Descend through refined cells (floor(x / (h/2)) >> 1 == floor(x / h): halving h is exact).
    while (o != core::no_oct) {
      const core::OctIndex son = tree.son(Tree::cell_index(o, child_of_cell()));
      if (son == core::no_oct) break;
      o = son;
      ++l;
      cell_at(l);
    }
    oct[i] = o;
    level[i] = static_cast<std::int8_t>(o == core::no_oct ? 0 : l);
  }
  const std::size_t first = outside.load();
  KOSMO_REQUIRE(first == n, "particles: particle id " << particles.id()[first] << " lies outside the box [0, " << boxlen
                                                      << "] (wrap positions on periodic axes first)");
  for (std::size_t i = 0; i < n; ++i)
    KOSMO_REQUIRE(oct[i] != core::no_oct, "particles: no level-1 oct holds particle id " << particles.id()[i]);
}

#define KOSMO_INSTANTIATE_LOCATE(D, Key) \
  template void locate_particles<D, Key>(const core::OctTree<D, Key>&, ParticleSet<D>&);
KOSMO_INSTANTIATE_LOCATE(1, std::uint64_t)
KOSMO_INSTANTIATE_LOCATE(2, std::uint64_t)
KOSMO_INSTANTIATE_LOCATE(3, std::uint64_t)
KOSMO_INSTANTIATE_LOCATE(1, core::UInt128)
KOSMO_INSTANTIATE_LOCATE(2, core::UInt128)
KOSMO_INSTANTIATE_LOCATE(3, core::UInt128)
#undef KOSMO_INSTANTIATE_LOCATE

}  // namespace kosmo::particles
