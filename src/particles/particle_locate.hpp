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

}  // namespace kosmo::particles
