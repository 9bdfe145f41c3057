// The shared FFTW set-up of the gravity module (fftw_support.hpp).
#include "gravity/fftw_support.hpp"

#include <array>

namespace kosmo::gravity::fftw_support {

std::mutex& planner_mutex() {
  static std::mutex mutex;
  return mutex;
}

void initialise_threads() {
  // fftw_make_planner_thread_safe (FFTW >= 3.3.5) also serialises planning done outside this
  // module's lock (kosmo's cosmology module plans with its own).
  static const bool initialised = [] {
    if (fftw_init_threads() == 0) return false;
    fftw_make_planner_thread_safe();
    return true;
  }();
  KOSMO_REQUIRE(initialised, "gravity: fftw_init_threads failed");
}

std::size_t spectrum_plane_stride(int dimensions, int n) {
  const auto un = static_cast<std::size_t>(n);
  std::size_t plane = un / 2 + 1;
  for (int d = 2; d < dimensions; ++d) plane *= un;
  // Only the 3-D slowest axis strides over whole planes; two complex values keep 32-byte alignment.
  return dimensions == 3 ? plane + 2 : plane;
}

std::size_t spectrum_size(int dimensions, int n) {
  return dimensions == 1 ? static_cast<std::size_t>(n / 2 + 1) : static_cast<std::size_t>(n) * spectrum_plane_stride(dimensions, n);
}

PlanPair plan_real_transforms(int dimensions, int n, double* real, fftw_complex* spectrum, int threads) {
  KOSMO_REQUIRE(dimensions >= 1 && dimensions <= 3, "gravity: real transforms of " << dimensions << " dimensions");
  // Per axis, slowest first: the real grid's stride and the spectrum's.
  std::array<fftw_iodim, 3> forward{}, backward{};
  const int half = n / 2 + 1;
  int real_stride = 1, complex_stride = 1;
  for (int axis = dimensions - 1; axis >= 0; --axis) {  // axis dimensions-1 is x, the fastest
    const auto a = static_cast<std::size_t>(axis);
    forward[a] = {n, real_stride, complex_stride};
    backward[a] = {n, complex_stride, real_stride};
    real_stride *= n;
    // After x come its n/2+1 modes; after y (axis 1 of a 3-D grid) the padded plane.
    complex_stride = axis == dimensions - 1 ? half : static_cast<int>(spectrum_plane_stride(dimensions, n));
  }
  std::lock_guard<std::mutex> lock(planner_mutex());
  fftw_plan_with_nthreads(std::max(1, threads));
  PlanPair pair;
  pair.forward.reset(fftw_plan_guru_dft_r2c(dimensions, forward.data(), 0, nullptr, real, spectrum, FFTW_ESTIMATE));
  pair.backward.reset(fftw_plan_guru_dft_c2r(dimensions, backward.data(), 0, nullptr, spectrum, real, FFTW_ESTIMATE));
  KOSMO_REQUIRE(pair.forward && pair.backward, "gravity: FFTW could not plan the r2c/c2r transforms of a " << n << "^" << dimensions << " grid");
  return pair;
}

}  // namespace kosmo::gravity::fftw_support
