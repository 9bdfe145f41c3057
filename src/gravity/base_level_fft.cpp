// The base-level FFT Poisson solver on the distributed octree (see base_level_fft.hpp; seeds/000
// §5.2.1 gather mode, §5.2.2 FFTW-MPI slabs, §5.2.3 sparse point-to-point redistribution).
#include "gravity/base_level_fft.hpp"

#include <fftw3-mpi.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <mutex>
#include <numbers>
#include <vector>

#include "core/error.hpp"
#include "gravity/fft_poisson.hpp"
#include "gravity/fftw_support.hpp"
#include "gravity/isolated_fft_poisson.hpp"
#include "parallel/uniform_level.hpp"

namespace kosmo::gravity {
namespace {

// fftw_mpi_init once per process, after the threads (FFTW-MPI's documented order); it must come
// after MPI_Init, which constructing a solver on a communicator implies.
void initialise_fftw_mpi() {
  fftw_support::initialise_threads();
  static const bool initialised = [] {
    fftw_mpi_init();
    return true;
  }();
  (void)initialised;
}

// The owned cells of `level` of `field` into the dense n^D array `dense` (x fastest), one key decode
// per oct. On one rank they fill it; on several the rest is zeroed and one in-place Allreduce adds
// the other ranks' cells: each cell has one nonzero contribution, so the array is the same bits on
// every rank count (as parallel::gather_uniform_level, without its fresh array and copies).
template <int D>
void gather_level(const core::OctTree<D, core::MortonKey>& tree, int level, int field, long long n, double* dense, std::size_t cells,
                  MPI_Comm comm, int ranks) {
  if (ranks > 1) {
    const auto count = static_cast<std::ptrdiff_t>(cells);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < count; ++i) dense[i] = 0.0;
  }
  parallel::place_owned_cells(tree, level, field, n, dense);
  if (ranks > 1) MPI_Allreduce(MPI_IN_PLACE, dense, static_cast<int>(cells), MPI_DOUBLE, MPI_SUM, comm);
}

// Everything the slab mode (3-D only) keeps between solves.
struct SlabState {
  long long fft_n = 0;             // planes per axis of the FFT grid: n (periodic) or 2n (isolated)
  std::ptrdiff_t local_planes = 0, first_plane = 0;  // this rank's z planes of the real grid
  std::ptrdiff_t local_rows = 0, first_row = 0;      // this rank's y rows of the transposed spectrum
  std::ptrdiff_t complex_count = 0;                  // FFTW's alloc_local (complex values)
  std::size_t padded_row = 0;                        // 2 (N/2 + 1): FFTW's padded r2c row of reals
  fftw_support::Buffer<double> real;
  fftw_support::Buffer<fftw_complex> spectrum;
  // Per complex mode: the normalised inverse eigenvalue (periodic) or the normalised transform of
  // the Green's function (isolated); the solve multiplies the spectrum by it.
  std::vector<double> multiplier;
  fftw_support::Plan forward, backward;

  // Forward redistribution (owned cells -> slabs): what this rank sends to whom, and where each
  // source's values land in `real` (in the order the source packs them).
  struct CellsTo {
    int rank = 0;
    std::vector<core::CellIndex> cells;
  };
  std::vector<CellsTo> forward_sends;
  std::vector<int> forward_sources;
  std::vector<std::vector<std::size_t>> forward_placements;  // parallel to forward_sources
  // Reverse (slabs -> owned and ghost cells): the slab values each requester asked for, and where
  // the answers from each slab owner go.
  struct OffsetsTo {
    int rank = 0;
    std::vector<std::size_t> offsets;
  };
  std::vector<OffsetsTo> reverse_sends;
  std::vector<int> reverse_sources;
  std::vector<std::vector<core::CellIndex>> reverse_cells;  // parallel to reverse_sources

  std::size_t real_offset(long long x, long long y, long long z) const {
    return (static_cast<std::size_t>(z - first_plane) * static_cast<std::size_t>(fft_n) + static_cast<std::size_t>(y)) *
               padded_row +
           static_cast<std::size_t>(x);
  }
};

}  // namespace

template <int D>
struct BaseLevelFft<D>::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, ranks = 1;
  int level = 0;
  bool isolated = false;
  bool slabs = false;
  long long n = 0;
  double h = 0.0;
  std::size_t owned_octs = 0, ghost_octs = 0;  // at construction, to catch a changed tree

  // Gather mode: the periodic solver works in its own array; the isolated one reads and writes these.
  std::size_t cells = 0;  // n^D
  std::unique_ptr<PeriodicFftPoisson<D>> periodic_solver;
  std::unique_ptr<IsolatedFftPoisson> isolated_solver;
  std::vector<double> dense_source, dense_potential;

  // Slab mode.
  std::unique_ptr<SlabState> slab;
  parallel::ExchangeStats stats;
  std::vector<std::pair<long long, long long>> slab_planes;
  std::vector<int> forward_destinations, reverse_destinations;

  void build_slabs(const Tree& tree);
  void plan_slab_transforms();
  void build_slab_multiplier();
  std::vector<int> slab_plane_owners();
  void build_slab_partners(const Tree& tree, const std::vector<int>& plane_owner);
  void solve_slabs(Tree& tree, int rhs_field, int phi_field);
};

// Slab-mode set-up (seeds/000 §5.2.2-5.2.3): FFTW's slab sizes, the plans, the multiplier, and
// the partner lists of both redistributions.
template <int D>
void BaseLevelFft<D>::Impl::build_slabs(const Tree& tree) {
  if constexpr (D != 3) {
    KOSMO_FAIL("gravity::BaseLevelFft<" << D << ">: the slab mode exists only in 3-D");
  } else {
    plan_slab_transforms();
    build_slab_multiplier();
    build_slab_partners(tree, slab_plane_owners());
  }
}

// FFTW-MPI's slab of this rank, its arrays and the two transposed plans.
template <int D>
void BaseLevelFft<D>::Impl::plan_slab_transforms() {
  initialise_fftw_mpi();
  slab = std::make_unique<SlabState>();
  SlabState& s = *slab;
  s.fft_n = isolated ? 2 * n : n;
  const auto fft_n = static_cast<std::ptrdiff_t>(s.fft_n);
  const std::ptrdiff_t half = fft_n / 2 + 1;
  s.padded_row = 2 * static_cast<std::size_t>(half);
  s.complex_count = fftw_mpi_local_size_3d_transposed(fft_n, fft_n, half, comm, &s.local_planes, &s.first_plane,
                                                       &s.local_rows, &s.first_row);
  s.real = fftw_support::allocate<double>(2 * static_cast<std::size_t>(s.complex_count), "reals");
  s.spectrum = fftw_support::allocate<fftw_complex>(static_cast<std::size_t>(s.complex_count), "complex modes");
  {
    std::lock_guard<std::mutex> lock(fftw_support::planner_mutex());
    fftw_plan_with_nthreads(std::max(1, omp_get_max_threads()));
    // Transposed output/input: the spectrum stays in (y, z, x) order between the two transforms,
    // which saves FFTW-MPI one global transpose each way.
    s.forward.reset(fftw_mpi_plan_dft_r2c_3d(fft_n, fft_n, fft_n, s.real.get(), s.spectrum.get(), comm,
                                             FFTW_ESTIMATE | FFTW_MPI_TRANSPOSED_OUT));
    s.backward.reset(fftw_mpi_plan_dft_c2r_3d(fft_n, fft_n, fft_n, s.spectrum.get(), s.real.get(), comm,
                                              FFTW_ESTIMATE | FFTW_MPI_TRANSPOSED_IN));
  }
  KOSMO_REQUIRE(s.forward && s.backward,
                "gravity::BaseLevelFft: FFTW-MPI could not plan the slab transforms of a " << s.fft_n << "^3 grid");
}

// The multiplier, mode by mode in the transposed layout [y rows][z][x].
template <int D>
void BaseLevelFft<D>::Impl::build_slab_multiplier() {
  SlabState& s = *slab;
  const auto fft_n = static_cast<std::ptrdiff_t>(s.fft_n);
  const std::ptrdiff_t half = fft_n / 2 + 1;
  const auto complex_count = static_cast<std::size_t>(s.complex_count);
  s.multiplier.assign(complex_count, 0.0);
  const double norm = 1.0 / (static_cast<double>(s.fft_n) * static_cast<double>(s.fft_n) * static_cast<double>(s.fft_n));
  if (!isolated) {
    // Eigenvalues of the 7-point Laplacian, as PeriodicFftPoisson forms them.
    std::vector<double> lambda(static_cast<std::size_t>(fft_n));
    for (std::ptrdiff_t k = 0; k < fft_n; ++k) {
      const double sine = std::sin(std::numbers::pi * static_cast<double>(k) / static_cast<double>(n));
      lambda[static_cast<std::size_t>(k)] = -4.0 * sine * sine / (h * h);
    }
    for (std::ptrdiff_t row = 0; row < s.local_rows; ++row)
      for (std::ptrdiff_t kz = 0; kz < fft_n; ++kz) {
        const double outer = lambda[static_cast<std::size_t>(s.first_row + row)] + lambda[static_cast<std::size_t>(kz)];
        for (std::ptrdiff_t kx = 0; kx < half; ++kx) {
          const double eigenvalue = outer + lambda[static_cast<std::size_t>(kx)];
          // k = 0 (eigenvalue exactly 0) is the mean: removed, as in PeriodicFftPoisson.
          s.multiplier[static_cast<std::size_t>((row * fft_n + kz) * half + kx)] = eigenvalue != 0.0 ? norm / eigenvalue : 0.0;
        }
      }
  } else {
    // The Green's function on this rank's planes of the padded grid, at the minimum-image offset,
    // transformed by the same plan: its spectrum lands in exactly the layout of the source's.
    const long long padded = s.fft_n;
    double* real = s.real.get();
    std::fill(real, real + 2 * complex_count, 0.0);
    for (std::ptrdiff_t z = s.first_plane; z < s.first_plane + s.local_planes; ++z)
      for (long long y = 0; y < padded; ++y)
        for (long long x = 0; x < padded; ++x)
          real[s.real_offset(x, y, z)] =
              free_space_green_weight(std::min<long long>(x, padded - x), std::min<long long>(y, padded - y),
                                      std::min<long long>(z, padded - z), h);
    fftw_execute(s.forward.get());
    // W is even along every axis: its transform is real.
    for (std::size_t k = 0; k < complex_count; ++k) s.multiplier[k] = s.spectrum[k][0] * norm;
  }
}

// Every rank's slab: one MPI_Allgather (seeds/000 §5.2.3: the partner lists come from the slab
// ranges and the domains, cached until the decomposition changes). Returns the owner of each plane.
template <int D>
std::vector<int> BaseLevelFft<D>::Impl::slab_plane_owners() {
  SlabState& s = *slab;
  long long mine[2] = {static_cast<long long>(s.first_plane), static_cast<long long>(s.local_planes)};
  std::vector<long long> all(2 * static_cast<std::size_t>(ranks));
  MPI_Allgather(mine, 2, MPI_LONG_LONG, all.data(), 2, MPI_LONG_LONG, comm);
  slab_planes.resize(static_cast<std::size_t>(ranks));
  std::vector<int> plane_owner(static_cast<std::size_t>(s.fft_n), -1);
  for (int r = 0; r < ranks; ++r) {
    const long long first = all[2 * static_cast<std::size_t>(r)], count = all[2 * static_cast<std::size_t>(r) + 1];
    slab_planes[static_cast<std::size_t>(r)] = {first, count};
    for (long long z = first; z < first + count; ++z) plane_owner[static_cast<std::size_t>(z)] = r;
  }
  for (long long z = 0; z < s.fft_n; ++z)
    KOSMO_REQUIRE(plane_owner[static_cast<std::size_t>(z)] >= 0, "gravity::BaseLevelFft: FFTW's slabs leave plane " << z << " unowned");
  return plane_owner;
}

// The partner lists of both redistributions: this rank's owned cells by destination slab
// (forward), its owned and ghost cells by the slab that answers for them (reverse), and the
// offsets in its own slab of the cells the other ranks send and receive.
template <int D>
void BaseLevelFft<D>::Impl::build_slab_partners(const Tree& tree, const std::vector<int>& plane_owner) {
  if constexpr (D == 3) {  // the slab mode exists only in 3-D (build_slabs)
    SlabState& s = *slab;
    std::vector<std::vector<core::CellIndex>> forward_cells(static_cast<std::size_t>(ranks));
    std::vector<std::vector<core::CellIndex>> reverse_cells(static_cast<std::size_t>(ranks));
    for (int pass = 0; pass < 2; ++pass) {
      const auto& octs = pass == 0 ? tree.octs_at_level(level) : tree.ghost_octs_at_level(level);
      for (core::OctIndex o : octs)
        for (int c = 0; c < Tree::cells_per_oct; ++c) {
          const core::CellIndex cell = Tree::cell_index(o, c);
          const auto owner = static_cast<std::size_t>(plane_owner[static_cast<std::size_t>(tree.cell_coordinates(cell)[2])]);
          if (pass == 0) forward_cells[owner].push_back(cell);
          reverse_cells[owner].push_back(cell);
        }
    }
    // Tell each slab owner which cells it gets and which it must send back, by their global
    // indices (exact in a double below 2^53 cells). This once-only exchange uses the MPI_Alltoallv
    // backend because the slab owners do not know their sources yet; every solve after it is p2p.
    std::vector<parallel::Message> requests;
    for (int r = 0; r < ranks; ++r) {
      const auto& forward = forward_cells[static_cast<std::size_t>(r)];
      const auto& reverse = reverse_cells[static_cast<std::size_t>(r)];
      if (forward.empty() && reverse.empty()) continue;
      parallel::Message message{r, {}};
      message.data.reserve(1 + forward.size() + reverse.size());
      message.data.push_back(static_cast<double>(forward.size()));
      for (const auto* list : {&forward, &reverse})
        for (core::CellIndex cell : *list) {
          const auto c = tree.cell_coordinates(cell);
          message.data.push_back(static_cast<double>((static_cast<long long>(c[2]) * n + c[1]) * n + c[0]));
        }
      requests.push_back(std::move(message));
      if (!forward.empty()) s.forward_sends.push_back({r, forward});
      if (!reverse.empty()) {
        s.reverse_sources.push_back(r);
        s.reverse_cells.push_back(reverse);
      }
    }
    const std::vector<parallel::Message> incoming =
        parallel::sparse_exchange(comm, parallel::ExchangeMethod::alltoall, requests, {}, nullptr);
    for (const parallel::Message& message : incoming) {
      KOSMO_REQUIRE(!message.data.empty(), "gravity::BaseLevelFft: empty slab request from rank " << message.rank);
      const auto forward_count = static_cast<std::size_t>(message.data[0]);
      KOSMO_REQUIRE(1 + forward_count <= message.data.size(), "gravity::BaseLevelFft: malformed slab request from rank " << message.rank);
      std::vector<std::size_t> forward_offsets, reverse_offsets;
      for (std::size_t at = 1; at < message.data.size(); ++at) {
        const auto index = static_cast<long long>(message.data[at]);
        const long long x = index % n, y = (index / n) % n, z = index / (n * n);
        KOSMO_REQUIRE(z >= s.first_plane && z < s.first_plane + s.local_planes,
                      "gravity::BaseLevelFft: rank " << message.rank << " sent plane " << z << " to the wrong slab");
        (at <= forward_count ? forward_offsets : reverse_offsets).push_back(s.real_offset(x, y, z));
      }
      if (!forward_offsets.empty()) {
        s.forward_sources.push_back(message.rank);
        s.forward_placements.push_back(std::move(forward_offsets));
      }
      if (!reverse_offsets.empty()) s.reverse_sends.push_back({message.rank, std::move(reverse_offsets)});
    }
    for (const auto& send : s.forward_sends)
      if (send.rank != rank) forward_destinations.push_back(send.rank);
    for (const auto& send : s.reverse_sends)
      if (send.rank != rank) reverse_destinations.push_back(send.rank);
  }
}

template <int D>
void BaseLevelFft<D>::Impl::solve_slabs(Tree& tree, int rhs_field, int phi_field) {
  SlabState& s = *slab;
  // Forward: owned values to the slab owners, then into FFTW's padded real layout (zeros
  // everywhere else: the padding rows, and in isolated mode the empty half of the padded grid).
  std::vector<parallel::Message> outgoing;
  outgoing.reserve(s.forward_sends.size());
  const double* rhs = tree.field(rhs_field);
  for (const auto& send : s.forward_sends) {
    parallel::Message message{send.rank, std::vector<double>(send.cells.size())};
    const auto count = static_cast<std::ptrdiff_t>(send.cells.size());
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < count; ++i) message.data[static_cast<std::size_t>(i)] = rhs[send.cells[static_cast<std::size_t>(i)]];
    outgoing.push_back(std::move(message));
  }
  std::vector<parallel::Message> incoming =
      parallel::sparse_exchange(comm, parallel::ExchangeMethod::p2p, outgoing, s.forward_sources, nullptr, &stats);
  KOSMO_REQUIRE(incoming.size() == s.forward_sources.size(),
                "gravity::BaseLevelFft: " << incoming.size() << " slab messages, expected " << s.forward_sources.size());
  double* real = s.real.get();
  std::fill(real, real + 2 * static_cast<std::size_t>(s.complex_count), 0.0);
  for (std::size_t m = 0; m < incoming.size(); ++m) {
    const auto& placement = s.forward_placements[m];
    KOSMO_REQUIRE(incoming[m].rank == s.forward_sources[m] && incoming[m].data.size() == placement.size(),
                  "gravity::BaseLevelFft: unexpected slab message from rank " << incoming[m].rank);
    const auto count = static_cast<std::ptrdiff_t>(placement.size());
    const double* data = incoming[m].data.data();
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < count; ++i) real[placement[static_cast<std::size_t>(i)]] = data[i];
  }

  fftw_execute(s.forward.get());
  fftw_complex* spectrum = s.spectrum.get();
  const double* multiplier = s.multiplier.data();
  const auto complex_count = static_cast<std::ptrdiff_t>(s.complex_count);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < complex_count; ++k) {
    spectrum[k][0] *= multiplier[k];
    spectrum[k][1] *= multiplier[k];
  }
  fftw_execute(s.backward.get());

  // Reverse: each requester's owned and ghost cells from the slab, straight into the field.
  outgoing.clear();
  for (const auto& send : s.reverse_sends) {
    parallel::Message message{send.rank, std::vector<double>(send.offsets.size())};
    const auto count = static_cast<std::ptrdiff_t>(send.offsets.size());
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < count; ++i) message.data[static_cast<std::size_t>(i)] = real[send.offsets[static_cast<std::size_t>(i)]];
    outgoing.push_back(std::move(message));
  }
  incoming = parallel::sparse_exchange(comm, parallel::ExchangeMethod::p2p, outgoing, s.reverse_sources, nullptr, &stats);
  KOSMO_REQUIRE(incoming.size() == s.reverse_sources.size(),
                "gravity::BaseLevelFft: " << incoming.size() << " potential messages, expected " << s.reverse_sources.size());
  double* phi = tree.field(phi_field);
  for (std::size_t m = 0; m < incoming.size(); ++m) {
    const auto& cells = s.reverse_cells[m];
    KOSMO_REQUIRE(incoming[m].rank == s.reverse_sources[m] && incoming[m].data.size() == cells.size(),
                  "gravity::BaseLevelFft: unexpected potential message from rank " << incoming[m].rank);
    const auto count = static_cast<std::ptrdiff_t>(cells.size());
    const double* data = incoming[m].data.data();
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < count; ++i) phi[cells[static_cast<std::size_t>(i)]] = data[i];
  }
}

template <int D>
BaseLevelFft<D>::BaseLevelFft(MPI_Comm comm, const Tree& tree, int level, BaseLevelFftSettings settings)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.comm = comm;
  MPI_Comm_rank(comm, &s.rank);
  MPI_Comm_size(comm, &s.ranks);
  s.level = level;
  s.isolated = settings.isolated;
  KOSMO_REQUIRE(level >= 1 && level <= tree.levelmax(),
                "gravity::BaseLevelFft: level " << level << " is outside the tree's levels 1.." << tree.levelmax());
  KOSMO_REQUIRE(!s.isolated || D == 3, "gravity::BaseLevelFft<" << D << ">: isolated boundaries are implemented in 3-D only");
  s.n = parallel::uniform_level_cells_per_axis(tree, level);
  s.h = tree.cell_size(level);
  long long cells = 1;
  for (int d = 0; d < D; ++d) cells *= s.n;
  s.cells = static_cast<std::size_t>(cells);
  s.owned_octs = tree.octs_at_level(level).size();
  s.ghost_octs = tree.ghost_octs_at_level(level).size();
  // Fully refined: the owned cells of all ranks tile the level (the gather checks it again per solve).
  long long owned = static_cast<long long>(s.owned_octs) * Tree::cells_per_oct, total = 0;
  MPI_Allreduce(&owned, &total, 1, MPI_LONG_LONG, MPI_SUM, comm);
  KOSMO_REQUIRE(total == cells, "gravity::BaseLevelFft: level " << level << " holds " << total << " cells, not the " << cells
                                                                << " of a fully refined level");
  // seeds/000 §5.2.1: at or below the threshold gather, above it slabs (3-D only).
  s.slabs = D == 3 && cells > settings.slab_threshold_cells;
  if (s.slabs) {
    s.build_slabs(tree);
  } else if (s.isolated) {
    s.isolated_solver = std::make_unique<IsolatedFftPoisson>(static_cast<int>(s.n), s.h);
  } else {
    s.periodic_solver = std::make_unique<PeriodicFftPoisson<D>>(static_cast<int>(s.n), s.h);
  }
}

template <int D>
BaseLevelFft<D>::~BaseLevelFft() = default;
template <int D>
BaseLevelFft<D>::BaseLevelFft(BaseLevelFft&&) noexcept = default;
template <int D>
BaseLevelFft<D>& BaseLevelFft<D>::operator=(BaseLevelFft&&) noexcept = default;

template <int D>
void BaseLevelFft<D>::solve(Tree& tree, int rhs_field, int phi_field) {
  KOSMO_REQUIRE(impl_, "gravity::BaseLevelFft::solve on a moved-from solver");
  Impl& s = *impl_;
  KOSMO_REQUIRE(tree.octs_at_level(s.level).size() == s.owned_octs && tree.ghost_octs_at_level(s.level).size() == s.ghost_octs,
                "gravity::BaseLevelFft: the octs of level " << s.level << " changed since the solver was built; rebuild it");
  if (s.slabs) {
    s.solve_slabs(tree, rhs_field, phi_field);
    return;
  }
  // Gather mode (seeds/000 §5.2.1): one Allreduce (none on one rank), a local solve, a write-back
  // without MPI. The periodic solve gathers into and scatters from the FFT's own array. The level's
  // oct counts are those the constructor checked to tile the level.
  if (s.isolated) {
    s.dense_source.resize(s.cells);
    s.dense_potential.resize(s.cells);
    gather_level<D>(tree, s.level, rhs_field, s.n, s.dense_source.data(), s.cells, s.comm, s.ranks);
    s.isolated_solver->solve(s.dense_source.data(), s.dense_potential.data());
    parallel::scatter_uniform_level<D, core::MortonKey>(tree, s.level, phi_field, s.n, s.dense_potential.data());
  } else {
    double* grid = s.periodic_solver->grid();
    gather_level<D>(tree, s.level, rhs_field, s.n, grid, s.cells, s.comm, s.ranks);
    s.periodic_solver->solve_in_place();
    parallel::scatter_uniform_level<D, core::MortonKey>(tree, s.level, phi_field, s.n, grid);
  }
}

template <int D>
bool BaseLevelFft<D>::uses_slabs() const {
  return impl_->slabs;
}
template <int D>
bool BaseLevelFft<D>::isolated() const {
  return impl_->isolated;
}
template <int D>
int BaseLevelFft<D>::level() const {
  return impl_->level;
}
template <int D>
long long BaseLevelFft<D>::cells_per_axis() const {
  return impl_->n;
}
template <int D>
const parallel::ExchangeStats& BaseLevelFft<D>::exchange_statistics() const {
  return impl_->stats;
}
template <int D>
const std::vector<std::pair<long long, long long>>& BaseLevelFft<D>::slab_planes() const {
  return impl_->slab_planes;
}
template <int D>
const std::vector<int>& BaseLevelFft<D>::forward_destinations() const {
  return impl_->forward_destinations;
}
template <int D>
const std::vector<int>& BaseLevelFft<D>::reverse_destinations() const {
  return impl_->reverse_destinations;
}

template class BaseLevelFft<1>;
template class BaseLevelFft<2>;
template class BaseLevelFft<3>;

}  // namespace kosmo::gravity
