#pragma once
// Multigrid Poisson solve on one AMR level of the octree: RAMSES' multigrid_fine (Guillet & Teyssier
// 2011) with the cuRAMSES exchange optimisations of seeds/000 §5.1.1 and App. D, each behind a flag.
//
// Solving level L, the multigrid levels are the tree's own levels L, L-1, ..., restricted to the
// cells that are "active" (RAMSES mask convention: +1 on every level-L cell, a coarser cell's mask is
// the mean of its 2^D children's masks with -1 for a child that does not exist; active = mask > 0).
// Level L carries phi itself; each coarser level k carries a correction e_k for the residual equation
// A_k e_k = R r_{k+1}: the 2D+1-point Laplacian on the active cells, where
//  - a masked face neighbour (inactive; missing or beyond a Dirichlet box wall: mask -1) counts as
//    e_c mask_n / mask_c, the correction vanishing where the mask, linear between the two centres,
//    crosses zero (RAMSES' mask-weighted coarse operator, multigrid_fine_coarse.f90; Guillet &
//    Teyssier 2011);
//  - holes the level cannot resolve (inactive children inside its active cells) add a sink to the
//    diagonal, the row sum of the Galerkin operator with piecewise-constant interpolation
//    (octree_multigrid_sinks.hpp);
//  - a zero-gradient wall's missing cell equals the cell itself.
// Measured (tests/unit/test_octree_multigrid_coverage.cpp): a refined level over 50-95 % of a
// periodic 16^3 box, as a smooth region, scattered single-cell holes or clumps, converges at 3.8-6.2
// per V-cycle with 1+1 sweeps (4.6 on a fully refined periodic level). With e = 0 on every masked
// cell and no sinks (before) the smooth regions converged at 1.7-2.2 per V-cycle and the scattered
// holes of m_refine = 2 made the V-cycles diverge.
//
// Setup: the neighbour tables, coarse levels and prolongation stencils are kept between solves
// while the mesh is unchanged (tree generation, level lists, coarse masks and sinks compared each
// solve). Per solve: the masks (computed level by level from L-1 down, each level's mask refreshed
// to its ghosts: L-1 refreshes), the sinks (one refresh per coarse level from L-2 down), one batched
// sum, one refresh of phi's ghosts and the initial residual norm (one sum).
//
// V-cycle (seeds/000 §5.1.1, Fig. 3): pre-smoothing by red-black Gauss-Seidel, residual, restriction
// (mean of the 2^D children), recursion, prolongation (cell-centred (tri)linear, RAMSES
// interpolate_and_correct: weights 27/9/3/1 over 64 in 3-D), post-smoothing; on the coarsest level with
// active cells, `coarsest_sweeps` sweeps. Convergence (RAMSES): ||r||_2 <= epsilon ||r_0||_2 on level L.
//
// The solver makes no MPI call (ARCHITECTURE §2, "kernels have no MPI"): every ghost refresh and
// every global sum goes through the caller's MultigridCommunication, and is counted.
//
// Exchanges per V-cycle at the solved level with one pre- and one post-sweep (the paper's 9 -> 5,
// measured in tests/mpi/test_distributed_octree_multigrid.cpp):
//   red | black | residual (restriction) | prolongation | red | black | residual (RAMSES' refresh
//   after cmp_residual_mg_fine) | norm (sum)
//   merged_red_black: the red|black pairs become one refresh each (-2); fused_residual_norm: the
//   convergence residual and its norm are one loop and RAMSES' residual refresh, which no one reads,
//   is gone (-1). Unmerged + unfused: 8, merged + fused: 5. RAMSES' ninth communication is the reverse
//   (ghost -> owner) accumulation of the restricted residual (restrict_residual_fine_reverse +
//   make_reverse_mg_dp); here restriction gathers each owned coarse cell's children after the forward
//   residual refresh, so that refresh is the only restriction exchange.
// On a coarser multigrid level: 2 per sweep (1 merged), one residual and one prolongation refresh
// (6 unmerged, 4 merged with 1+1 sweeps); on the coarsest, coarsest_sweeps x (2 or 1). The coarse
// correction needs no refresh before prolongation: its last sweep ended with one.
// halo_red_black (the rank-independent saving): 1 exchange per sweep and none after the prolongation;
// the solved level 4 with 1+1 sweeps (fused), a coarser level 4 (its rhs refresh included), the
// coarsest coarsest_sweeps + 1 (docs/parallel.md, "Multigrid exchanges on several ranks").
#include <array>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "core/morton_key.hpp"
#include "core/oct_tree.hpp"

namespace kosmo::gravity {

struct OctreeMultigridSettings {
  double epsilon = 1e-4;  // RAMSES `epsilon`: stop when ||r|| <= epsilon * ||r_0|| (r_0: residual of the initial guess)
  int max_vcycles = 50;   // give up (converged = false) after this many V-cycles
  // RAMSES' defaults are ngs_fine = 2 and ngs_coarse = 2 (poisson_parameters.f90). One sweep each is
  // the configuration the paper counts (seeds/000 Fig. 3: "two smoothing steps (pre + post)", 9 -> 5).
  // Measured on a 32^3 periodic level (tests/unit/test_octree_multigrid.cpp): 1+1 sweeps reduce the
  // residual 4.6x per V-cycle with 5 exchanges at the level (merged + fused), 2+2 sweeps 8.75x with 7:
  // about the same reduction per exchange (ln 4.6 / 5 = 0.31, ln 8.75 / 7 = 0.31), and 1+1 is the
  // paper's configuration, hence the default. Set 2 and 2 to reproduce RAMSES.
  int pre_smoothing_sweeps = 1, post_smoothing_sweeps = 1;
  int coarsest_sweeps = 8;  // red-black sweeps on the coarsest multigrid level (RAMSES: 2 * ngs_coarse)
  // seeds/000 §5.1.1 item 2, App. D.2: no ghost refresh between the red and black half-sweeps; black
  // reads stale red ghost values, so a distributed result differs (slightly) from the unmerged one
  // and from every other rank count's. Off by default: with a refresh after each colour every owned
  // cell gets the one-rank bits on any rank count (docs/gravity.md), and on one rank the refreshes
  // cost nothing; merged saves 2 of the 7 exchanges per V-cycle at a level (2 + 2 sweeps), which
  // only matters when the exchanges, not the sweeps, dominate.
  bool merged_red_black = false;
  // Halo red-black (kosmo; POISSON_PARAMS mg_halo_rb): each rank also relaxes the red cells of the
  // ghost octs that its owned cells read (the "halo", one cell deep), from the same inputs as their
  // owners (ghost rhs, masks and sinks refreshed once), so the black half-sweep finds the red ghosts
  // it needs without an exchange: one exchange per sweep instead of two, the same bits as the
  // unmerged sequence on any rank count. Costs one rhs refresh per coarse level per V-cycle (the
  // solved level's goes with the warm start's) and one sink refresh per coarse level per solve.
  // Ignored when merged_red_black is on.
  bool halo_red_black = false;
  // seeds/000 §5.1.1 item 3, App. D.2: the convergence residual and its squared norm in one loop,
  // without RAMSES' residual ghost refresh in between. (The setup sums - active cells per level,
  // Dirichlet faces, sum of rhs, cell count - always go as one batched sum call.)
  bool fused_residual_norm = true;
  // seeds/000 App. D.2 eq. (17): multiply by precomputed 1/diag, h^2/diag and 1/h^2 instead of dividing.
  bool precomputed_reciprocal = true;
};

// The communication the solver needs, supplied by the caller (the solver itself has no MPI calls).
// On one rank: refresh does nothing, sum is the identity.
struct MultigridCommunication {
  // owners -> ghost copies of these cell fields on every ghost oct of `level`
  std::function<void(int level, std::span<const int> fields)> refresh_ghosts;
  // in-place global sum of a small vector (one Allreduce)
  std::function<void(std::span<double> values)> sum;
};

struct OctreeMultigridReport {
  int vcycles = 0;
  bool converged = false;
  double initial_residual = 0.0, final_residual = 0.0;  // ||r_0||_2, ||r_N||_2 on the solved level
  double reduction_per_vcycle = 0.0;                     // (||r_0|| / ||r_N||)^(1/N)
  long long ghost_refreshes = 0, reductions = 0;         // calls made, all levels, whole solve (setup included)
  // (ghost refreshes + reductions) made at each multigrid level in one V-cycle (the last one, its
  // convergence check included), index = tree level; the reductions are all at the solved level.
  std::vector<long long> exchanges_per_vcycle_by_level;
  double seconds = 0.0;
  // Of `seconds`, the time inside the ghost refreshes and sums (packing, transport and waiting for
  // the other ranks: what the exchanges cost when nothing overlaps them).
  double exchange_seconds = 0.0;
  std::vector<double> residual_history;  // ||r||_2 / ||r_0||_2 after each V-cycle
};

template <int D>
class OctreeMultigrid {
  static_assert(D >= 1 && D <= 3, "OctreeMultigrid is instantiated for D = 1, 2, 3");

 public:
  using Key = core::MortonKey;
  using Tree = core::OctTree<D, Key>;
  using Position = std::array<double, D>;

  // Registers its scratch cell fields in the tree (transient: not in snapshots nor restarts):
  // correction, rhs, residual, mask. A second solver on the same tree shares them.
  OctreeMultigrid(Tree& tree, OctreeMultigridSettings settings, MultigridCommunication communication);
  ~OctreeMultigrid();
  OctreeMultigrid(const OctreeMultigrid&) = delete;
  OctreeMultigrid& operator=(const OctreeMultigrid&) = delete;

  // Dirichlet values of phi outside a non-periodic box face, evaluated at the centre of the missing
  // cell across the wall (e.g. a monopole -GM/r). Without it the wall is zero gradient (the missing
  // cell takes the inside cell's phi). Called inside OpenMP loops: it must be thread-safe.
  void set_box_boundary_potential(std::function<double(const Position& position)> phi_outside);

  // Solves L_h phi = rhs on every owned cell of `level` ((sum of the 2D face neighbours - 2D phi) / h^2),
  // from the current phi (warm start). rhs_field is read on owned cells of `level`.
  //  - Coarse-fine faces (the face neighbour does not exist at `level`): the neighbour value is
  //    Dirichlet, interpolated from phi_field at level-1 (valid on its owned and ghost cells): with C
  //    the level-1 cell containing the missing cell's centre, phi_C + sum_d s_d * (+-1/4), where the
  //    sign is the side of C the centre lies on and s_d is the unlimited central difference
  //    (phi_{C+e_d} - phi_{C-e_d}) / 2 per coarse width (one-sided where one of them is missing or
  //    outside the box, 0 where both are). RAMSES interpol_phi reaches the same second order with the
  //    27/9/3/1 cell-centred trilinear weights over C's 3^D neighbourhood; the central-slope form uses
  //    only C's face neighbours and has the smaller error constant (1/32 against 3/32 h^2 phi'' in 1-D).
  //  - A problem without any Dirichlet face (a fully periodic level with every cell present: the base
  //    level; or zero-gradient walls only) is singular: the mean of rhs is removed and phi is returned
  //    with zero mean, the convention of PeriodicFftPoisson / PeriodicMultigrid.
  //  - On exit phi is valid on the owned and the ghost cells of `level`.
  OctreeMultigridReport solve(int level, int phi_field, int rhs_field);

  const OctreeMultigridSettings& settings() const { return settings_; }

 private:
  struct Impl;
  // The stages of solve(), in order (octree_multigrid.cpp); Solve is the state they pass on.
  struct Solve;
  void prepare_solved_level(const Solve& s);
  std::array<double, 2> fold_boundary_values(const Solve& s);
  std::vector<double> restrict_masks(const Solve& s);
  void reduce_setup(Solve& s, std::vector<double> active_cells, const std::array<double, 2>& source_sums);
  void prepare_coarse_levels(const Solve& s);
  void build_father_stencils(const double* mask);
  template <bool Reciprocal>
  void iterate(const Solve& s, OctreeMultigridReport& report);
  template <bool Reciprocal>
  void vcycle(const Solve& s, std::size_t j);
  template <bool Reciprocal>
  void smooth(const Solve& s, std::size_t j, int sweeps);
  template <bool Reciprocal>
  double residual_norm(const Solve& s);
  void remove_mean(const Solve& s);
  bool halo_red_black() const { return settings_.halo_red_black && !settings_.merged_red_black; }

  Tree& tree_;
  OctreeMultigridSettings settings_;
  MultigridCommunication communication_;
  std::function<double(const Position&)> phi_outside_;
  int correction_field_ = -1, rhs_field_ = -1, residual_field_ = -1, mask_field_ = -1;
  std::unique_ptr<Impl> impl_;
};

extern template class OctreeMultigrid<1>;
extern template class OctreeMultigrid<2>;
extern template class OctreeMultigrid<3>;

}  // namespace kosmo::gravity
