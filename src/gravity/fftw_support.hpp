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

}  // namespace kosmo::gravity::fftw_support
