#pragma once
// Attaching particles to the octree (docs/cosmology.md; the role of RAMSES' make_tree_fine /
// remove_parts: each particle belongs to the finest grid whose cell contains it).
#include "core/oct_tree.hpp"
#include "particles/particle_set.hpp"

namespace kosmo::particles {

// For every particle: the finest existing oct one of whose cells contains it, found by descending
// from the level-1 oct through son(cell), and that oct's level (RAMSES levelp). The cell at each
// level is floor(x / h_level), the expression the CIC kernel uses, so the two always agree.
// Positions must lie inside the box (wrap_positions on periodic axes); OpenMP over particles.
// Invalidates the per-oct ranges (call sort_by_oct afterwards).
template <int D, class Key>
void locate_particles(const core::OctTree<D, Key>& tree, ParticleSet<D>& particles);

// After the particles of `level` drifted on an unchanged tree: locates again only those of them
// that left the leaf cell they were located in (a check against that cell, no hash lookup), and
// the particles not located yet (oct = no_oct, a migration's arrivals). The result is
// locate_particles' for every particle, provided the others were located on this tree.
// Invalidates the per-oct ranges. Returns the number located.
template <int D, class Key>
std::size_t relocate_moved_particles(const core::OctTree<D, Key>& tree, ParticleSet<D>& particles, int level);

}  // namespace kosmo::particles
