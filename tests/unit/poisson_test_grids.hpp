#pragma once
// Dense periodic grids the Poisson solver tests share (FFT and multigrid): cell counts and
// coordinates (x fastest), the single-mode solution of seeds/000 §8.6.4, random sources, norms.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <random>
#include <vector>

namespace kosmo::gravity::test {

inline constexpr double kPi = std::numbers::pi;

inline std::size_t cell_count(int d, int n) {
  std::size_t count = 1;
  for (int i = 0; i < d; ++i) count *= static_cast<std::size_t>(n);
  return count;
}

// Integer coordinates of cell `index` (x fastest).
template <int D>
std::array<int, D> cell_coordinates(std::size_t index, int n) {
  std::array<int, D> c{};
  for (int d = 0; d < D; ++d) {
    c[d] = static_cast<int>(index % static_cast<std::size_t>(n));
    index /= static_cast<std::size_t>(n);
  }
  return c;
}

inline double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

inline double max_abs_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

// max |a - b| / max |b|
inline double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  return max_abs_difference(a, b) / max_abs(b);
}

// prod_d sin(2 pi x_d) at the cell centres of the unit box (seeds/000 §8.6.4): the continuum
// solution of L phi = -4 D pi^2 phi (D = 3: f = -12 pi^2 sin sin sin).
template <int D>
std::vector<double> sine_product(int n) {
  const double h = 1.0 / n;
  std::vector<double> v(cell_count(D, n));
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto c = cell_coordinates<D>(i, n);
    double p = 1.0;
    for (int d = 0; d < D; ++d) p *= std::sin(2.0 * kPi * (c[d] + 0.5) * h);
    v[i] = p;
  }
  return v;
}

// Uniform random values in [offset - 1, offset + 1), reproducible from `seed`.
template <int D>
std::vector<double> random_values(int n, unsigned seed, double offset = 0.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> f(cell_count(D, n));
  for (double& x : f) x = uniform(rng) + offset;
  return f;
}

}  // namespace kosmo::gravity::test
