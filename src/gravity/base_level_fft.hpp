#pragma once
// The base-level Poisson solve of the distributed octree by FFT (seeds/000 §5.2): on a fully refined
// level (every cell exists) one direct FFT solve replaces the multigrid V-cycle. Two regimes:
//
//  - gather (§5.2.1, N = n^D <= slab_threshold_cells, default 256^3): every rank gathers the whole
//    level with one MPI_Allreduce (none on one rank) and solves it with a local threaded FFTW
//    transform. Each cell has one nonzero contribution to the sum, so the gathered source and
//    hence the potential are the same bits on every rank count. The periodic solve gathers the
//    octs straight into the FFT's own array and scatters from it (no intermediate copies), and its
//    plans pad the spectrum's planes (fftw_support::plan_real_transforms): together within 1.5x of
//    a plain FFTW_MEASURE r2c + c2r pair of the same grid (docs/gravity.md, the benchmark).
//  - slabs (§5.2.2-5.2.3, N above the threshold, D = 3 only): FFTW-MPI's slab decomposition along z
//    (FFTW's first, slowest dimension; x is fastest as everywhere in kosmo), with transposed output
//    so the forward/backward pair needs no transpose back. kosmo's domains (any shape) are moved to
//    the slabs and back (to owned AND ghost cells) by sparse point-to-point messages to partners
//    precomputed at construction (§5.2.3): no all-to-all of counts per solve. Results agree with
//    the gather mode to round-off (FFTW-MPI orders the sums differently).
//
// For D = 1 and 2 there is no slab mode: those grids are small and the gather mode always runs.
//
// Boundaries:
//  - periodic: L_h phi = rhs for the (2D+1)-point Laplacian; the mean of rhs is removed and phi
//    has zero mean (the PeriodicFftPoisson convention; gather mode reproduces it bitwise).
//  - isolated (3-D only): phi = G * rhs with the free-space Green's function -1/(4 pi r) by
//    zero-padded (2n)^3 convolution (IsolatedFftPoisson, whose header documents the self term
//    W(0) = -h^2 (3 ln(2 + sqrt 3) - pi/2) / (4 pi), the exact centre potential of a uniform cube).
//    Slab mode pads too: FFTW's slabs then span the 2n planes of the padded grid and only the
//    ranks holding planes z < n exchange data.
//
// The partner lists refer to the tree's octs at construction: rebuild the solver after the octs of
// `level` move (load balancing) or its ghost zone changes. solve() checks the oct counts.
// Destroy the solver before MPI_Finalize: FFTW-MPI plans hold a duplicate of the communicator.
#include <mpi.h>

#include <memory>
#include <utility>
#include <vector>

#include "core/morton_key.hpp"
#include "core/oct_tree.hpp"
#include "parallel/sparse_exchange.hpp"

namespace kosmo::gravity {

struct BaseLevelFftSettings {
  // false: periodic box; true: free-space (isolated) boundaries by zero padding (Hockney & Eastwood), 3-D only.
  bool isolated = false;
  // seeds/000 §5.2.1: levels of at most this many cells (n^D, before any padding) are gathered to
  // every rank (one Allreduce) and solved locally; larger ones use FFTW-MPI slabs (3-D only).
  long long slab_threshold_cells = 256LL * 256 * 256;
};

template <int D>
class BaseLevelFft {
  static_assert(D >= 1 && D <= 3, "BaseLevelFft is instantiated for D = 1, 2, 3");

 public:
  using Key = core::MortonKey;
  using Tree = core::OctTree<D, Key>;

  // Plans once (collective over `comm`). `level` must be fully refined everywhere and the coarse
  // grid cubic. In slab mode this also computes the exchange partners: one MPI_Allgather of every
  // rank's slab range, and one exchange (MPI_Alltoallv backend) that tells each slab owner which
  // cells, in which order, it will receive and must send back.
  BaseLevelFft(MPI_Comm comm, const Tree& tree, int level, BaseLevelFftSettings settings);
  ~BaseLevelFft();
  BaseLevelFft(BaseLevelFft&&) noexcept;
  BaseLevelFft& operator=(BaseLevelFft&&) noexcept;
  BaseLevelFft(const BaseLevelFft&) = delete;
  BaseLevelFft& operator=(const BaseLevelFft&) = delete;

  // Solves over the full level (collective): rhs_field is read on OWNED cells of the level,
  // phi_field is written on owned AND ghost cells of the level.
  void solve(Tree& tree, int rhs_field, int phi_field);

  bool uses_slabs() const;
  bool isolated() const;
  int level() const;
  long long cells_per_axis() const;  // n, of the level (not padded)

  // --- slab-mode instrumentation (empty / zero in gather mode) ---------------------------------
  // Messages and bytes this rank put on the wire in all solves so far (self-deliveries excluded).
  const parallel::ExchangeStats& exchange_statistics() const;
  // Every rank's FFTW slab: (first z plane, number of planes) of the FFT grid (2n planes when isolated).
  const std::vector<std::pair<long long, long long>>& slab_planes() const;
  // The other ranks this rank sends to in the forward (domain -> slab) and reverse (slab -> owned
  // and ghost cells) redistribution of each solve, sorted.
  const std::vector<int>& forward_destinations() const;
  const std::vector<int>& reverse_destinations() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

extern template class BaseLevelFft<1>;
extern template class BaseLevelFft<2>;
extern template class BaseLevelFft<3>;

}  // namespace kosmo::gravity
