// Periodic multigrid V-cycle (see multigrid_periodic.hpp; seeds/000 §5.1, App. D).
//
// Layout: a level of m^D cells is cut into m "slabs" along the last axis (planes z = p in 3-D, rows
// y = p in 2-D, single cells x = p in 1-D); OpenMP splits the slabs. Every result is independent of
// the thread count bit for bit: a Gauss-Seidel colour only reads the other colour, the transfers are
// maps, and every sum is accumulated per slab and then added serially in slab order.
#include "gravity/multigrid_periodic.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "core/error.hpp"

namespace kosmo::gravity {
namespace {

// Levels smaller than 32^3 cells run on one thread: a sweep there takes tens of microseconds, about
// what a parallel region costs, and far more when the cores are oversubscribed.
constexpr std::size_t kParallelCells = std::size_t{1} << 15;

struct Coefficients {
  double h2 = 0.0;          // h^2
  double inverse_h2 = 0.0;  // 1 / h^2
  double inverse_2d = 0.0;  // 1 / (2D)
  double h2_over_2d = 0.0;  // h^2 / (2D)
};

template <int D>
Coefficients coefficients(double h) {
  return {h * h, 1.0 / (h * h), 1.0 / (2.0 * D), h * h / (2.0 * D)};
}

// One level: m cells per axis; phi is the caller's array on the finest level.
struct Level {
  int m = 0;
  double h = 0.0;
  std::size_t cells = 0;
  double* phi = nullptr;
  std::vector<double> phi_storage, rhs, residual;
};

template <int D>
std::size_t power(std::size_t m) {
  std::size_t p = 1;
  for (int d = 0; d < D; ++d) p *= m;
  return p;
}

// The 2(D-1) rows neighbouring a row in y and z (empty in 1-D), as offsets of their first cell.
template <int D>
using NeighbourRows = std::array<std::size_t, 2 * (D - 1)>;

// Calls row_function(row_offset, neighbour_rows, parity) for each x-row of slab p (D >= 2), where
// parity is the parity of the row's y + z, so cell x of the row has colour (x + parity) & 1.
template <int D, class RowFunction>
inline void for_each_row(int m, int p, RowFunction&& row_function) {
  static_assert(D >= 2);
  const std::size_t um = static_cast<std::size_t>(m);
  const std::size_t pm = static_cast<std::size_t>(p == 0 ? m - 1 : p - 1);
  const std::size_t pp = static_cast<std::size_t>(p == m - 1 ? 0 : p + 1);
  const std::size_t up = static_cast<std::size_t>(p);
  if constexpr (D == 2) {
    row_function(up * um, NeighbourRows<2>{pm * um, pp * um}, p & 1);
  } else {
    for (int y = 0; y < m; ++y) {
      const std::size_t uy = static_cast<std::size_t>(y);
      const std::size_t ym = static_cast<std::size_t>(y == 0 ? m - 1 : y - 1);
      const std::size_t yp = static_cast<std::size_t>(y == m - 1 ? 0 : y + 1);
      row_function((up * um + uy) * um,
                   NeighbourRows<3>{(up * um + ym) * um, (up * um + yp) * um, (pm * um + uy) * um, (pp * um + uy) * um},
                   (p + y) & 1);
    }
  }
}

// Sum of the 2D neighbours of cell `row + x`, whose x-neighbours are row + xm and row + xp.
template <int D>
inline double neighbour_sum(const double* phi, std::size_t row, const NeighbourRows<D>& rows, int x, int xm, int xp) {
  double sum = phi[row + static_cast<std::size_t>(xm)] + phi[row + static_cast<std::size_t>(xp)];
  for (std::size_t j = 0; j < rows.size(); ++j) sum += phi[rows[j] + static_cast<std::size_t>(x)];
  return sum;
}

// Gauss-Seidel update of one cell, eq. (17) of seeds/000: phi = (sum_j phi_j - h^2 f) / (2D).
template <int D, bool Reciprocal>
inline double relaxed_value(double sum, double f, const Coefficients& k) {
  if constexpr (Reciprocal) {
    return k.inverse_2d * sum - k.h2_over_2d * f;
  } else {
    return (sum - k.h2 * f) / (2.0 * D);
  }
}

// r = f - L_h phi for one cell.
template <int D, bool Reciprocal>
inline double residual_value(double sum, double phi, double f, const Coefficients& k) {
  if constexpr (Reciprocal) {
    return f - (sum - 2.0 * D * phi) * k.inverse_h2;
  } else {
    return f - (sum - 2.0 * D * phi) / k.h2;
  }
}

// Relax the cells of `colour` ((x + y + z) & 1) in slab p. Levels that are smoothed have m >= 4.
template <int D, bool Reciprocal>
void relax_slab(const Level& level, int p, int colour, const Coefficients& k) {
  double* phi = level.phi;
  const double* f = level.rhs.data();
  const int m = level.m;
  if constexpr (D == 1) {
    if ((p & 1) != colour) return;
    const int xm = p == 0 ? m - 1 : p - 1;
    const int xp = p == m - 1 ? 0 : p + 1;
    phi[p] = relaxed_value<D, Reciprocal>(phi[xm] + phi[xp], f[p], k);
  } else {
    for_each_row<D>(m, p, [&](std::size_t row, const NeighbourRows<D>& rows, int parity) {
      auto update = [&](int x, int xm, int xp) {
        const std::size_t i = row + static_cast<std::size_t>(x);
        phi[i] = relaxed_value<D, Reciprocal>(neighbour_sum<D>(phi, row, rows, x, xm, xp), f[i], k);
      };
      int x = (colour + parity) & 1;
      if (x == 0) {
        update(0, m - 1, 1);
        x = 2;
      }
      for (; x < m - 1; x += 2) update(x, x - 1, x + 1);
      if (x == m - 1) update(m - 1, m - 2, 0);
    });
  }
}

// One red-black Gauss-Seidel sweep (red = colour 0 first, then black), two ways with equal results.
template <int D, bool Reciprocal>
void smooth(const Level& level, bool merged, const Coefficients& k) {
  const int m = level.m;
  const bool parallel = level.cells >= kParallelCells;
  if (!merged) {
    // RAMSES' order: a parallel loop per colour; a distributed code refreshes ghosts after each.
    for (int colour = 0; colour < 2; ++colour) {
#pragma omp parallel for schedule(static) if (parallel)
      for (int p = 0; p < m; ++p) relax_slab<D, Reciprocal>(level, p, colour, k);
    }
    return;
  }
  // Merged (seeds/000 App. D.2): one pass in which each thread owns a block [p0, p1) of slabs and
  // relaxes black slab p-1 right behind red slab p, while slab p-1 is still in cache. A black cell
  // needs its red neighbours final: inside the block they are (slabs p-2..p); the block's first and
  // last slabs also read red slabs of other threads, so they wait for the one barrier, which plays the
  // part of the single ghost refresh a distributed merged sweep keeps. A red cell reads black values
  // that are not yet relaxed in either scheme, so the arithmetic is exactly RAMSES' sweep.
#pragma omp parallel if (parallel)
  {
    const int threads = omp_get_num_threads();
    const int thread = omp_get_thread_num();
    const int p0 = static_cast<int>(static_cast<long long>(m) * thread / threads);
    const int p1 = static_cast<int>(static_cast<long long>(m) * (thread + 1) / threads);
    for (int p = p0; p < p1; ++p) {
      relax_slab<D, Reciprocal>(level, p, 0, k);
      if (p - 1 > p0) relax_slab<D, Reciprocal>(level, p - 1, 1, k);
    }
#pragma omp barrier
    if (p1 > p0) relax_slab<D, Reciprocal>(level, p0, 1, k);
    if (p1 - 1 > p0) relax_slab<D, Reciprocal>(level, p1 - 1, 1, k);
  }
}

// Residual of slab p into level.residual; returns the slab's sum of r^2 when WithNorm.
template <int D, bool Reciprocal, bool WithNorm>
double residual_slab(Level& level, int p, const Coefficients& k) {
  const double* phi = level.phi;
  const double* f = level.rhs.data();
  double* r = level.residual.data();
  const int m = level.m;
  double norm2 = 0.0;
  if (m == 1) {  // every neighbour is the cell itself: L_h phi = 0
    r[0] = f[0];
    return WithNorm ? r[0] * r[0] : 0.0;
  }
  if constexpr (D == 1) {
    const int xm = p == 0 ? m - 1 : p - 1;
    const int xp = p == m - 1 ? 0 : p + 1;
    r[p] = residual_value<D, Reciprocal>(phi[xm] + phi[xp], phi[p], f[p], k);
    if constexpr (WithNorm) norm2 = r[p] * r[p];
  } else {
    for_each_row<D>(m, p, [&](std::size_t row, const NeighbourRows<D>& rows, int) {
      auto update = [&](int x, int xm, int xp) {
        const std::size_t i = row + static_cast<std::size_t>(x);
        r[i] = residual_value<D, Reciprocal>(neighbour_sum<D>(phi, row, rows, x, xm, xp), phi[i], f[i], k);
        if constexpr (WithNorm) norm2 += r[i] * r[i];
      };
      update(0, m - 1, 1);
      for (int x = 1; x < m - 1; ++x) update(x, x - 1, x + 1);
      update(m - 1, m - 2, 0);
    });
  }
  return norm2;
}

// Sum over slabs of a per-slab value, deterministic: per-slab partials, then a serial sum.
template <class SlabFunction>
double sum_over_slabs(int m, bool parallel, SlabFunction&& slab_function) {
  std::vector<double> partial(static_cast<std::size_t>(m));
#pragma omp parallel for schedule(static) if (parallel)
  for (int p = 0; p < m; ++p) partial[static_cast<std::size_t>(p)] = slab_function(p);
  double sum = 0.0;
  for (double s : partial) sum += s;
  return sum;
}

// level.residual = rhs - L_h phi; returns ||r||_2^2 when with_norm (fused or as a second pass).
template <int D, bool Reciprocal>
double residual(Level& level, bool with_norm, bool fused, const Coefficients& k) {
  const int m = level.m;
  const bool parallel = level.cells >= kParallelCells;
  if (with_norm && fused) {
    return sum_over_slabs(m, parallel, [&](int p) { return residual_slab<D, Reciprocal, true>(level, p, k); });
  }
#pragma omp parallel for schedule(static) if (parallel)
  for (int p = 0; p < m; ++p) residual_slab<D, Reciprocal, false>(level, p, k);
  if (!with_norm) return 0.0;
  // The unfused norm pass sums the slab in the same order as the fused loop: same value.
  const std::size_t slab = level.cells / static_cast<std::size_t>(m);
  const double* r = level.residual.data();
  return sum_over_slabs(m, parallel, [&](int p) {
    double norm2 = 0.0;
    for (std::size_t i = static_cast<std::size_t>(p) * slab; i < static_cast<std::size_t>(p + 1) * slab; ++i)
      norm2 += r[i] * r[i];
    return norm2;
  });
}

// Axis d of cell i on a level of 2^shift cells per axis.
inline int axis_coordinate(std::size_t i, int d, int shift) {
  return static_cast<int>((i >> (d * shift)) & ((std::size_t{1} << shift) - 1));
}

// coarse.rhs = average of the 2^D children of fine.residual (seeds/000 §5.1.1: no exchange needed).
template <int D>
void restrict_residual(const Level& fine, Level& coarse) {
  const int shift = std::countr_zero(static_cast<unsigned>(coarse.m));
  const double* r = fine.residual.data();
  double* f = coarse.rhs.data();
  const double weight = 1.0 / (1 << D);
  const std::size_t slab = coarse.cells / static_cast<std::size_t>(coarse.m);
#pragma omp parallel for schedule(static) if (fine.cells >= kParallelCells)
  for (int p = 0; p < coarse.m; ++p) {
    for (std::size_t i = static_cast<std::size_t>(p) * slab; i < static_cast<std::size_t>(p + 1) * slab; ++i) {
      std::size_t first_child = 0;
      for (int d = 0; d < D; ++d)
        first_child += static_cast<std::size_t>(2 * axis_coordinate(i, d, shift)) << (d * (shift + 1));
      double sum = 0.0;
      for (int child = 0; child < (1 << D); ++child) {
        std::size_t offset = 0;
        for (int d = 0; d < D; ++d) offset += static_cast<std::size_t>((child >> d) & 1) << (d * (shift + 1));
        sum += r[first_child + offset];
      }
      f[i] = weight * sum;
    }
  }
}

// fine.phi += P coarse.phi: linear (weights 3/4 on the parent, 1/4 on the parent's neighbour on the
// child's side, per axis) or constant (the parent's value). Separable, one fine x-row at a time: the
// 2^(D-1) coarse rows that feed it are first combined over y and z into one coarse line, which is then
// interpolated along x (a fraction of the cost of summing 2^D weighted corners per fine cell).
template <int D>
void prolong_and_correct(const Level& coarse, const Level& fine, Prolongation prolongation) {
  const bool linear = prolongation == Prolongation::linear;
  const int mask = coarse.m - 1;
  const auto coarse_m = static_cast<std::size_t>(coarse.m);
  const auto fine_m = static_cast<std::size_t>(fine.m);
  const auto rows = static_cast<std::ptrdiff_t>(fine.cells / fine_m);
  const double* e = coarse.phi;
#pragma omp parallel if (fine.cells >= kParallelCells)
  {
    std::vector<double> line(coarse_m);
#pragma omp for schedule(static)
    for (std::ptrdiff_t row = 0; row < rows; ++row) {
      constexpr int kSources = 1 << (D - 1);
      std::array<std::size_t, kSources> source{};
      std::array<double, kSources> weight{};
      weight[0] = 1.0;
      int count = 1;
      auto rest = static_cast<std::size_t>(row);
      std::size_t stride = coarse_m;
      for (int d = 1; d < D; ++d) {
        const int x = static_cast<int>(rest % fine_m);
        rest /= fine_m;
        const int parent = x >> 1;
        const int side = (x & 1) ? ((parent + 1) & mask) : ((parent - 1) & mask);
        for (int i = 0; i < count; ++i) {
          if (linear) {
            source[i + count] = source[i] + static_cast<std::size_t>(side) * stride;
            weight[i + count] = 0.25 * weight[i];
            weight[i] *= 0.75;
          }
          source[i] += static_cast<std::size_t>(parent) * stride;
        }
        if (linear) count *= 2;
        stride *= coarse_m;
      }
      for (std::size_t x = 0; x < coarse_m; ++x) {
        double sum = 0.0;
        for (int i = 0; i < count; ++i) sum += weight[i] * e[source[i] + x];
        line[x] = sum;
      }
      double* out = fine.phi + static_cast<std::size_t>(row) * fine_m;
      for (int x = 0; x < coarse.m; ++x) {
        const double parent = line[static_cast<std::size_t>(x)];
        if (linear) {
          out[2 * x] += 0.75 * parent + 0.25 * line[static_cast<std::size_t>((x - 1) & mask)];
          out[2 * x + 1] += 0.75 * parent + 0.25 * line[static_cast<std::size_t>((x + 1) & mask)];
        } else {
          out[2 * x] += parent;
          out[2 * x + 1] += parent;
        }
      }
    }
  }
}

// Exact zero-mean solve on the coarsest level (m = 2 or 1). On 2^D cells the Walsh functions
// w_k(c) = (-1)^popcount(k & c) diagonalise L_h, with eigenvalue -4 popcount(k) / h^2.
template <int D>
void solve_coarsest(const Level& level) {
  double* phi = level.phi;
  const double* f = level.rhs.data();
  if (level.m == 1) {
    phi[0] = 0.0;
    return;
  }
  constexpr int cells = 1 << D;
  std::array<double, cells> amplitude{};
  for (int k = 1; k < cells; ++k) {
    double projection = 0.0;
    for (int c = 0; c < cells; ++c) projection += (std::popcount(static_cast<unsigned>(k & c)) & 1) ? -f[c] : f[c];
    const double eigenvalue = -4.0 * std::popcount(static_cast<unsigned>(k)) / (level.h * level.h);
    amplitude[k] = projection / cells / eigenvalue;
  }
  for (int c = 0; c < cells; ++c) {
    double value = 0.0;
    for (int k = 1; k < cells; ++k)
      value += (std::popcount(static_cast<unsigned>(k & c)) & 1) ? -amplitude[k] : amplitude[k];
    phi[c] = value;
  }
}

double mean(const double* v, std::size_t cells, int m) {
  const std::size_t slab = cells / static_cast<std::size_t>(m);
  const double sum = sum_over_slabs(m, cells >= kParallelCells, [&](int p) {
    double s = 0.0;
    for (std::size_t i = static_cast<std::size_t>(p) * slab; i < static_cast<std::size_t>(p + 1) * slab; ++i) s += v[i];
    return s;
  });
  return sum / static_cast<double>(cells);
}

}  // namespace

template <int D>
struct PeriodicMultigrid<D>::Impl {
  std::vector<Level> levels;  // levels[0] is the finest
  std::vector<Coefficients> level_coefficients;
  long long ghost_refreshes = 0;
};

template <int D>
PeriodicMultigrid<D>::PeriodicMultigrid(int n, double h, MultigridSettings settings)
    : n_(n), h_(h), settings_(settings), impl_(std::make_unique<Impl>()) {
  KOSMO_REQUIRE(n >= 1 && std::has_single_bit(static_cast<unsigned>(n)),
                "gravity::PeriodicMultigrid<" << D << ">: grid size n = " << n << " must be a power of two");
  KOSMO_REQUIRE(h > 0.0 && std::isfinite(h),
                "gravity::PeriodicMultigrid<" << D << ">: spacing h = " << h << " must be positive");
  KOSMO_REQUIRE(settings.epsilon > 0.0,
                "gravity::PeriodicMultigrid: epsilon = " << settings.epsilon << " must be positive");
  KOSMO_REQUIRE(settings.max_vcycles >= 1, "gravity::PeriodicMultigrid: max_vcycles must be >= 1");
  KOSMO_REQUIRE(settings.pre_smoothing_sweeps >= 0 && settings.post_smoothing_sweeps >= 0 &&
                    settings.pre_smoothing_sweeps + settings.post_smoothing_sweeps >= 1,
                "gravity::PeriodicMultigrid: needs at least one smoothing sweep per level");
  for (int m = n; m >= 1; m /= 2) {
    Level level;
    level.m = m;
    level.h = h * (n / m);
    level.cells = power<D>(static_cast<std::size_t>(m));
    if (m != n) level.phi_storage.resize(level.cells);
    level.rhs.resize(level.cells);
    level.residual.resize(level.cells);
    impl_->levels.push_back(std::move(level));
    impl_->level_coefficients.push_back(coefficients<D>(h * (n / m)));
    if (m <= 2) break;  // solved exactly (solve_coarsest)
  }
}

template <int D>
PeriodicMultigrid<D>::~PeriodicMultigrid() = default;
template <int D>
PeriodicMultigrid<D>::PeriodicMultigrid(PeriodicMultigrid&&) noexcept = default;
template <int D>
PeriodicMultigrid<D>& PeriodicMultigrid<D>::operator=(PeriodicMultigrid&&) noexcept = default;

template <int D>
long long PeriodicMultigrid<D>::ghost_refreshes_per_vcycle() const {
  const long long per_sweep = settings_.merged_red_black ? 1 : 2;
  const long long sweeps = settings_.pre_smoothing_sweeps + settings_.post_smoothing_sweeps;
  const long long per_level = per_sweep * sweeps + (settings_.prolongation == Prolongation::linear ? 1 : 0);
  return per_level * static_cast<long long>(impl_->levels.size() - 1);
}

namespace {

// The V-cycle proper, templated once on the reciprocal flag (dispatched in solve()).
template <int D, bool Reciprocal>
void vcycle(std::vector<Level>& levels, const std::vector<Coefficients>& k, std::size_t l,
            const MultigridSettings& settings, long long& ghost_refreshes) {
  Level& level = levels[l];
  if (l + 1 == levels.size()) {
    solve_coarsest<D>(level);
    return;
  }
  const long long per_sweep = settings.merged_red_black ? 1 : 2;
  for (int s = 0; s < settings.pre_smoothing_sweeps; ++s) {
    smooth<D, Reciprocal>(level, settings.merged_red_black, k[l]);
    ghost_refreshes += per_sweep;
  }
  residual<D, Reciprocal>(level, false, false, k[l]);
  Level& coarse = levels[l + 1];
  restrict_residual<D>(level, coarse);
  std::fill(coarse.phi, coarse.phi + coarse.cells, 0.0);
  vcycle<D, Reciprocal>(levels, k, l + 1, settings, ghost_refreshes);
  if (settings.prolongation == Prolongation::linear) ++ghost_refreshes;
  prolong_and_correct<D>(coarse, level, settings.prolongation);
  for (int s = 0; s < settings.post_smoothing_sweeps; ++s) {
    smooth<D, Reciprocal>(level, settings.merged_red_black, k[l]);
    ghost_refreshes += per_sweep;
  }
}

template <int D, bool Reciprocal>
void iterate(std::vector<Level>& levels, const std::vector<Coefficients>& k, const MultigridSettings& settings,
             MultigridReport& report) {
  Level& fine = levels[0];
  double norm = report.source_norm;
  while (report.vcycles < settings.max_vcycles) {
    vcycle<D, Reciprocal>(levels, k, 0, settings, report.ghost_refreshes);
    ++report.vcycles;
    norm = std::sqrt(residual<D, Reciprocal>(fine, true, settings.fused_residual_norm, k[0]));
    report.relative_residual = norm / report.source_norm;
    report.relative_residual_history.push_back(report.relative_residual);
    if (report.relative_residual < settings.epsilon) {
      report.converged = true;
      break;
    }
  }
  // The per-V-cycle ratios telescope: their geometric mean is (||r_0|| / ||r_N||)^(1/N).
  report.reduction_per_vcycle =
      std::pow(report.source_norm / std::max(norm, std::numeric_limits<double>::min()), 1.0 / report.vcycles);
}

}  // namespace

template <int D>
MultigridReport PeriodicMultigrid<D>::solve(const double* f, double* phi) {
  KOSMO_REQUIRE(impl_, "gravity::PeriodicMultigrid<" << D << ">::solve on a moved-from solver");
  const auto start = std::chrono::steady_clock::now();
  std::vector<Level>& levels = impl_->levels;
  Level& fine = levels[0];
  // The source first (f and phi may alias): rhs = f - <f>, the neutral part periodic Poisson solves.
  const double f_mean = mean(f, fine.cells, fine.m);
  const bool parallel = fine.cells >= kParallelCells;
#pragma omp parallel for schedule(static) if (parallel)
  for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(fine.cells); ++i) fine.rhs[i] = f[i] - f_mean;
  fine.phi = phi;
  for (std::size_t l = 1; l < levels.size(); ++l) levels[l].phi = levels[l].phi_storage.data();
  std::fill(phi, phi + fine.cells, 0.0);

  MultigridReport report;
  const bool reciprocal = settings_.precomputed_reciprocal;
  const double source_norm2 = reciprocal ? residual<D, true>(fine, true, true, impl_->level_coefficients[0])
                                         : residual<D, false>(fine, true, true, impl_->level_coefficients[0]);
  report.source_norm = std::sqrt(source_norm2);  // phi = 0, so r = f - <f>
  if (report.source_norm > 0.0) {
    if (reciprocal) {
      iterate<D, true>(levels, impl_->level_coefficients, settings_, report);
    } else {
      iterate<D, false>(levels, impl_->level_coefficients, settings_, report);
    }
    // Smoothing does not preserve the mean of phi (the constant mode is L_h's null space): remove it.
    const double phi_mean = mean(phi, fine.cells, fine.m);
#pragma omp parallel for schedule(static) if (parallel)
    for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(fine.cells); ++i) phi[i] -= phi_mean;
  } else {
    report.converged = true;
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

template <int D>
double periodic_relative_residual(int n, double h, const double* f, const double* phi) {
  KOSMO_REQUIRE(n >= 1 && h > 0.0, "gravity::periodic_relative_residual: bad grid n = " << n << ", h = " << h);
  Level level;
  level.m = n;
  level.h = h;
  level.cells = power<D>(static_cast<std::size_t>(n));
  level.rhs.resize(level.cells);
  level.residual.resize(level.cells);
  const double f_mean = mean(f, level.cells, n);
  for (std::size_t i = 0; i < level.cells; ++i) level.rhs[i] = f[i] - f_mean;
  const Coefficients k = coefficients<D>(h);
  std::vector<double> zero(level.cells, 0.0);
  level.phi = zero.data();
  const double source_norm2 = residual<D, true>(level, true, true, k);
  if (source_norm2 == 0.0) return 0.0;
  level.phi = const_cast<double*>(phi);  // read only: residual() writes level.residual
  return std::sqrt(residual<D, true>(level, true, true, k) / source_norm2);
}

template class PeriodicMultigrid<1>;
template class PeriodicMultigrid<2>;
template class PeriodicMultigrid<3>;
template double periodic_relative_residual<1>(int, double, const double*, const double*);
template double periodic_relative_residual<2>(int, double, const double*, const double*);
template double periodic_relative_residual<3>(int, double, const double*, const double*);

}  // namespace kosmo::gravity
