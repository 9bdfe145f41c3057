// The shared FFTW set-up of the gravity module (fftw_support.hpp).
#include "gravity/fftw_support.hpp"

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

}  // namespace kosmo::gravity::fftw_support
