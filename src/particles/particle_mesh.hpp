#pragma once
// Particle-mesh kernels on one AMR level (docs/cosmology.md): cloud-in-cell mass deposit (RAMSES
// rho_fine / cic_amr) and CIC interpolation of the acceleration back to the particles (RAMSES
// move_fine), with the same kernel and the same cells, so that the PM force conserves momentum.
//
// Cloud cells. At level l a particle's cloud has the level's cell width h_l and covers 2^D cells
// of level l (cic_kernel.hpp), wrapped on periodic axes and clamped into the box on the others
// (the part of a cloud beyond a non-periodic wall lands in the wall cell, so no mass is lost).
// Where a cloud cell does not exist at level l (coarse-fine boundary), its share goes to the
// level l-1 cell that covers it. RAMSES cic_amr drops that share at level l (its mass reaches the
// Poisson solve only through the coarser level); kosmo keeps it on the mesh, so that mass is
// conserved exactly. The tree must be graded (2:1): the coarser cell then always exists, because a
// cloud cell lies in the 3^D neighbourhood of the particle's level-l oct.
//
// What is conserved. deposit_density adds rho = m w / V to each cloud cell, V = h^D of that cell's
// own level (l, or l-1 for a fallback cell). Hence
//     sum over all cells c of (added rho_c) * V_c  =  sum over deposited particles of m
// to round-off (a few ulps: the weights of a cloud sum to one, each cell sum is divided by V once).
//
// Determinism. The result is bitwise identical for any number of OpenMP threads: particles are
// bucketed by their oct at level l (stable counting sort); each level-l oct gathers the
// contributions to its own cells from the buckets of its 3^D neighbour octs in a fixed order, and
// fallback contributions are summed per coarse cell in bucket order. No atomics, no per-thread sums.
//
// Physics kernels never call MPI: contributions to ghost octs are accumulated in the ghost cells
// (the driver reverse-exchanges them, as RAMSES make_virtual_reverse_dp); the interpolation reads
// the acceleration of level-l cells and of the fallback level-(l-1) cells, which must be valid on
// owned and ghost octs.
#include <array>
#include <cstddef>
#include <span>
#include <type_traits>

#include "core/oct_tree.hpp"
#include "particles/exact_charge_sum.hpp"
#include "particles/particle_set.hpp"

namespace kosmo::particles {

// Which located particles take part at level l.
enum class LevelSelection {
  finest_level,     // particles whose finest oct is at level l (each particle once over all levels)
  level_and_finer,  // particles whose finest oct is at level >= l (RAMSES rho_fine: all particles in level-l octs)
};

// Where the share of a cloud cell that does not exist at level l goes.
enum class MissingCloudCells {
  onto_coarser_cell,  // the covering level-(l-1) cell (the Poisson source: mass is conserved)
  dropped,            // nowhere (RAMSES cic_amr: igrid == 0; the m_refine count of a level)
};

// Adds the CIC density of the selected particles (tracers excluded: they carry no mass) into
// `density_field` on the level-l cells and the level-(l-1) fallback cells. Particles must be
// located (locate_particles); the per-oct ranges are not needed. Returns the number deposited.
template <int D, class Key>
std::size_t deposit_density(core::OctTree<D, Key>& tree, const ParticleSet<D>& particles, int level, int density_field,
                            LevelSelection selection);

// The same kernel with charge[i] in place of particle i's mass (charge.size() == particles.size()),
// and the shares of missing cloud cells sent where `missing` says: field += sum of charge * weight
// / h^D over the selected particles' clouds. deposit_density is deposit_charge with the masses and
// onto_coarser_cell.
template <int D, class Key>
std::size_t deposit_charge(core::OctTree<D, Key>& tree, const ParticleSet<D>& particles, int level, int field,
                           LevelSelection selection, std::span<const double> charge, MissingCloudCells missing);

// The same deposit, exact (particles/exact_charge_sum.hpp): the shares on the level's cells (owned
// and ghost) are summed as integers of exact.unit() and ADDED into the two limb fields
// (limb_fields[0] the low limb, [1] the high); shares of missing cloud cells are dropped. The cell's
// sum is exact.value(low, high) once every contribution (ghost copies included) is in.
template <int D, class Key>
std::size_t deposit_charge_exactly(core::OctTree<D, Key>& tree, const ParticleSet<D>& particles, int level,
                                   const std::array<int, 2>& limb_fields, LevelSelection selection,
                                   std::span<const double> charge, const ExactChargeSum& exact);

// Writes into particles.acceleration the CIC interpolation, at each selected particle, of the
// cell fields acceleration_fields[d] over the same cloud cells as deposit_density (RAMSES
// move_fine). Other particles' accelerations are left unchanged. Returns the number interpolated.
template <int D, class Key>
std::size_t interpolate_acceleration(const core::OctTree<D, Key>& tree, ParticleSet<D>& particles, int level,
                                     const std::type_identity_t<std::array<int, D>>& acceleration_fields,
                                     LevelSelection selection);

}  // namespace kosmo::particles
