// Neighbour access on the octree: direct Morton-hash lookups (seeds/000 App. B) against the
// per-level stencil cache (core/oct_stencil_cache.hpp, App. D.1) that hot loops use, on the
// refined-sphere mesh. The cache is read at the six face offsets of its 3^3 neighbourhood.
// Prints one JSON object per line. Usage: bench_neighbour_lookup [levelmax] [repetitions]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/oct_stencil_cache.hpp"
#include "core/region_criterion.hpp"
#include "core/refinement.hpp"

using namespace kosmo::core;
using Tree = OctTree<3, MortonKey>;
using Cache = OctStencilCache<3, MortonKey>;
using Clock = std::chrono::steady_clock;

// Offset index in the 3^3 neighbourhood of the face neighbour in direction dir = 2 axis + side.
constexpr int face_offset(int dir) {
  const int step = dir / 2 == 0 ? 1 : (dir / 2 == 1 ? 3 : 9);
  return (Cache::neighbours - 1) / 2 + (dir % 2 ? step : -step);
}

int main(int argc, char** argv) {
  const int levelmax = argc > 1 ? std::atoi(argv[1]) : 8;
  const int repetitions = argc > 2 ? std::atoi(argv[2]) : 5;
  Tree::Geometry g;
  g.levelmax = levelmax;
  g.coarse_cells = {1, 1, 1};
  g.periodic = {true, true, true};
  Tree tree(g);
  RefinementSettings settings;
  settings.levelmin = 3;
  const RefineRegion sphere{.x = 0.5, .y = 0.5, .z = 0.5, .r = 0.5};
  const auto criterion = region_criterion<3, MortonKey>({sphere});
  const auto t0 = Clock::now();
  build_initial_mesh<3, MortonKey>(tree, settings, criterion, {});
  tree.compact();
  const double build_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("{\"benchmark\": \"mesh_build\", \"levelmax\": %d, \"octs\": %zu, \"seconds\": %.6f}\n", levelmax,
              tree.octs_in_use(), build_seconds);

  for (int l = 1; l <= levelmax; ++l) {
    const auto& octs = tree.octs_at_level(l);
    if (octs.size() < 1000) continue;
    long long checksum = 0;
    auto start = Clock::now();
    for (int r = 0; r < repetitions; ++r)
      for (OctIndex o : octs)
        for (int dir = 0; dir < 6; ++dir) checksum += tree.neighbour_oct(o, dir);
    const double hash_seconds = std::chrono::duration<double>(Clock::now() - start).count() / repetitions;
    double cache_build_seconds = 0.0;
    for (int r = 0; r < repetitions; ++r) {
      const auto b = Clock::now();
      Cache cache;
      cache.update(tree, l);
      cache_build_seconds += std::chrono::duration<double>(Clock::now() - b).count();
      for (std::size_t i = 0; i < cache.size(); ++i)
        for (int dir = 0; dir < 6; ++dir) checksum -= cache.neighbour_oct(i, face_offset(dir));
    }
    cache_build_seconds /= repetitions;
    // A sweep reuses the cache many times (several V-cycles, 8 cells per oct): time one reuse.
    Cache cache;
    cache.update(tree, l);
    start = Clock::now();
    for (int r = 0; r < repetitions; ++r)
      for (std::size_t i = 0; i < cache.size(); ++i)
        for (int dir = 0; dir < 6; ++dir) checksum += cache.neighbour_oct(i, face_offset(dir));
    const double reuse_seconds = std::chrono::duration<double>(Clock::now() - start).count() / repetitions;
    std::printf("{\"benchmark\": \"neighbour_lookup\", \"level\": %d, \"octs\": %zu, \"hash_lookup_ns\": %.2f, "
                "\"cache_build_ns\": %.2f, \"cache_lookup_ns\": %.2f, \"hash_over_cache_reuse\": %.2f, \"checksum\": %lld}\n",
                l, octs.size(), 1e9 * hash_seconds / (6.0 * static_cast<double>(octs.size())),
                1e9 * cache_build_seconds / (6.0 * static_cast<double>(octs.size())),
                1e9 * reuse_seconds / (6.0 * static_cast<double>(octs.size())), hash_seconds / reuse_seconds, checksum);
  }
  return 0;
}
