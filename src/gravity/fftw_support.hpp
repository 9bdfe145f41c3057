#pragma once
// What every FFTW user in kosmo's gravity module shares: one planner lock (FFTW's planner and plan
// destruction are not thread-safe, so all of them must hold the same lock), the one-time thread
// set-up, and owning wrappers for fftw_malloc'd buffers (SIMD-aligned) and plans.
#include <fftw3.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <mutex>

#include "core/error.hpp"

namespace kosmo::gravity::fftw_support {

// The lock every planner call and plan destruction holds.
std::mutex& planner_mutex();
// fftw_init_threads once per process, thread-safely, with the planner made thread-safe as well.
void initialise_threads();

struct Free {
  void operator()(void* pointer) const noexcept { fftw_free(pointer); }
};
template <class T>
using Buffer = std::unique_ptr<T[], Free>;

// `count` values from fftw_malloc; `what` names them in the error if the allocation fails.
template <class T>
Buffer<T> allocate(std::size_t count, const char* what) {
  Buffer<T> buffer(static_cast<T*>(fftw_malloc(sizeof(T) * std::max<std::size_t>(count, 1))));
  KOSMO_REQUIRE(buffer, "gravity: fftw_malloc of " << count << " " << what << " failed");
  return buffer;
}

struct PlanDestroy {
  void operator()(fftw_plan_s* plan) const noexcept {
    std::lock_guard<std::mutex> lock(planner_mutex());
    fftw_destroy_plan(plan);
  }
};
using Plan = std::unique_ptr<fftw_plan_s, PlanDestroy>;

// The r2c/c2r plan pair of one real n^D grid (row-major, x fastest, contiguous) and its spectrum
// (x: n/2+1 modes, then the slower axes), each plan run with `threads` threads, FFTW_ESTIMATE.
//
// The spectrum's slowest axis has `spectrum_plane_stride` complex values per plane instead of the
// contiguous n^(D-2) (n/2+1): FFTW_ESTIMATE transforms the slowest axis one strided line at a time,
// and a plane stride that is a multiple of the 4 KiB page (n (n/2+1) 16 bytes for n = 2^k) puts
// all the n values of a line in one cache set. Two complex values more per plane make the same plan
// (the same arithmetic: the same bits) 4x faster at 256^3 (0.92 -> 0.22 s of CPU per r2c + c2r
// pair on one core; FFTW_MEASURE's buffered plan takes 0.31 s and is chosen by timing, so its bits
// could differ between ranks and between a run and its restart).
struct PlanPair {
  Plan forward, backward;
};
// Complex values per plane of the slowest axis (padded in 3-D), and in the whole spectrum.
std::size_t spectrum_plane_stride(int dimensions, int n);
std::size_t spectrum_size(int dimensions, int n);
PlanPair plan_real_transforms(int dimensions, int n, double* real, fftw_complex* spectrum, int threads);

}  // namespace kosmo::gravity::fftw_support
