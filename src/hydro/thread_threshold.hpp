#pragma once
// When a loop over a level's octs that does a few operations per cell is worth threads. With
// passive waiting (the launcher's default, docs/performance.md "Threads and ranks on shared
// cores") starting a parallel region wakes the sleeping threads, which on a 2-core virtual
// machine costs 50-250 microseconds: as much as copying five variables of a couple of thousand
// octs. Smaller levels run such loops on one thread; the results are the same either way (every
// cell is computed alone).
#include <cstddef>

namespace kosmo::hydro {

inline constexpr std::size_t minimum_threaded_octs = 2048;

inline bool worth_threads(std::size_t octs) { return octs >= minimum_threaded_octs; }

}  // namespace kosmo::hydro
