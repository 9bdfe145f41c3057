// Incremental mesh maintenance (DistributedMesh::apply_mesh_changes, seeds/000 §3) against the
// reference path (redistribute after every regrid): two copies of one distributed mesh go through
// the same sequence of regrids, a refined sphere moving across the walls, refining and derefining
// every step, with the owners' values changed between regrids (a stand-in for a time step, ghosts
// refreshed after it). After every regrid both copies must hold the same octs in the same pool
// order, with the same roles, the same owned and ghost level lists and bit-identical values of
// every field in every owned cell and of the refreshed fields in every ghost cell; in the field no
// stage refreshes, a ghost holds its owner's value where the regrid changed it and its holder's own
// value elsewhere (unchanged ghosts do not travel). The incremental path must move fewer bytes than
// the redistributions and than one refresh of the ghost layer. On any rank count, both orderings,
// D = 1, 2, 3, with geometric and cost-balanced walls.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/refinement.hpp"
#include "refined_mesh_support.hpp"

using namespace kosmo;
using namespace kosmo::test;

namespace {

constexpr int field_count = 3;

// Distinct values per cell and field, smooth enough for the slope limiters to act both ways.
template <int D>
void fill_owned(Tree<D>& tree, int step) {
  for (int l = 1; l <= tree.levelmax(); ++l)
    for (core::OctIndex o : tree.octs_at_level(l))
      for (int c = 0; c < Tree<D>::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree<D>::cell_index(o, c);
        const auto x = tree.cell_centre(cell);
        double phase = 0.1 * step;
        for (int d = 0; d < D; ++d) phase += (d + 1.7) * x[static_cast<std::size_t>(d)];
        for (int f = 0; f < field_count; ++f) tree.field(f)[cell] = (f + 1.0) * std::sin(6.0 * phase + f) + 0.01 * l;
      }
}

// The last field stands for one no stage refreshes (a solver's scratch): its ghost copies hold
// values of their own, different on every rank. A son prolongated from them on a ghost holder is
// wrong, even on the son's owner when a wall crosses its father, so the father's owner's copy must
// reach them; the other ghosts keep their holder's values (a stage that reads such a field on
// ghosts writes it there first).
constexpr int stale_field = field_count - 1;

// The holder's own value of the stale field in its ghosts after refresh_every_ghost of `step`.
double ghost_scratch_value(int rank, int step) { return 1000.0 + rank + 0.1 * step; }

template <int D>
void refresh_every_ghost(Tree<D>& tree, Mesh<D>& mesh, int step) {
  const std::vector<int> fields{0, 1};
  for (int l = 1; l <= tree.levelmax(); ++l) {
    mesh.exchange_fields(tree, l, fields);
    for (core::OctIndex g : tree.ghost_octs_at_level(l))
      std::fill_n(tree.field(stale_field) + Tree<D>::cell_index(g, 0), Tree<D>::cells_per_oct, ghost_scratch_value(mesh.rank(), step));
  }
}

// A sphere of refinement around a centre that moves along the diagonal with the step: cells of
// levels base and base + 1 inside it are flagged (their owners' flags only, as regrid requires).
template <int D>
core::RefinementCriterion<D, core::MortonKey> moving_sphere(int step) {
  return [step](const Tree<D>& tree, int level, std::vector<std::uint8_t>& flags) {
    if (level < base_level<D>) return;
    const double radius = level == base_level<D> ? 0.28 : 0.14;
    for (core::OctIndex o : tree.octs_at_level(level))
      for (int c = 0; c < Tree<D>::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree<D>::cell_index(o, c);
        const auto x = tree.cell_centre(cell);
        double r2 = 0.0;
        for (int d = 0; d < D; ++d) {
          double dx = x[static_cast<std::size_t>(d)] - std::fmod(0.3 + 0.09 * step + 0.1 * d, 1.0);
          dx -= std::round(dx);  // periodic
          r2 += dx * dx;
        }
        if (r2 < radius * radius) flags[static_cast<std::size_t>(cell)] = 1;
      }
  };
}

template <int D>
core::RegridCounts regrid_distributed(Tree<D>& tree, Mesh<D>& mesh, int step) {
  core::RefinementSettings settings;
  settings.levelmin = base_level<D>;
  const core::FlagSynchroniser synchronise = [&](int level, std::vector<std::uint8_t>& flags) { mesh.exchange_flags(tree, level, flags); };
  return core::regrid<D, core::MortonKey>(tree, settings, moving_sphere<D>(step), 1, nullptr, &synchronise);
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

// Counts every difference between the two trees (pool slot by slot, and list by list). With
// `scratch` (the holder's own value of the stale field in its ghosts), a ghost cell of `a` may hold
// it in that field instead of `b`'s value; `kept_scratch` counts those cells.
template <int D>
long long differences(const Tree<D>& a, const Tree<D>& b, const double* scratch = nullptr, long long* kept_scratch = nullptr) {
  long long differ = a.oct_capacity() != b.oct_capacity();
  for (std::size_t i = 0; i < std::min(a.oct_capacity(), b.oct_capacity()); ++i) {
    const auto o = static_cast<core::OctIndex>(i);
    if (a.alive(o) != b.alive(o)) {
      ++differ;
      continue;
    }
    if (!a.alive(o)) continue;
    differ += a.level(o) != b.level(o) || a.key(o) != b.key(o) || a.role(o) != b.role(o) || a.father_oct(o) != b.father_oct(o);
    for (int c = 0; c < Tree<D>::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree<D>::cell_index(o, c);
      differ += a.son(cell) != b.son(cell);
      // Idle coarse octs hold whatever they held; only owned and ghost values are compared.
      if (a.role(o) == core::OctRole::idle) continue;
      for (int f = 0; f < field_count; ++f) {
        if (same_bits(a.field(f)[cell], b.field(f)[cell])) continue;
        const bool kept = scratch && f == stale_field && a.role(o) == core::OctRole::ghost && same_bits(a.field(f)[cell], *scratch);
        if (kept && kept_scratch) ++*kept_scratch;
        differ += !kept;
      }
    }
  }
  for (int l = 1; l <= a.levelmax(); ++l) {
    differ += a.octs_at_level(l) != b.octs_at_level(l);
    differ += a.ghost_octs_at_level(l) != b.ghost_octs_at_level(l);
  }
  return differ;
}

long long global_sum(long long local) {
  long long global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return global;
}

template <int D>
void compare_paths(const char* ordering, bool balanced) {
  SCOPED_TRACE(std::string(ordering) + (balanced ? " balanced" : " geometric") + ", D = " + std::to_string(D));
  Tree<D> incremental = refined_tree<D>();
  for (int f = 0; f < field_count; ++f) {
    core::FieldInfo info;
    info.name = "field_" + std::to_string(f);
    incremental.add_field(info);
  }
  Tree<D> reference = incremental;
  Mesh<D> incremental_mesh(MPI_COMM_WORLD, "p2p", ordering), reference_mesh(MPI_COMM_WORLD, "p2p", ordering);
  distribute<D>(incremental, incremental_mesh, balanced);
  distribute<D>(reference, reference_mesh, balanced);
  ASSERT_EQ(global_sum(differences<D>(incremental, reference)), 0) << "the two copies differ before any regrid";

  long long created = 0, destroyed = 0, changed_regrids = 0, kept_scratch = 0;
  for (int step = 0; step < 6; ++step) {
    fill_owned<D>(incremental, step);
    fill_owned<D>(reference, step);
    refresh_every_ghost<D>(incremental, incremental_mesh, step);
    refresh_every_ghost<D>(reference, reference_mesh, step);
    const core::RegridCounts a = regrid_distributed<D>(incremental, incremental_mesh, step);
    const core::RegridCounts b = regrid_distributed<D>(reference, reference_mesh, step);
    ASSERT_EQ(a.created, b.created);
    ASSERT_EQ(a.destroyed, b.destroyed);
    const long long created_now = global_sum(static_cast<long long>(a.created));
    const long long destroyed_now = global_sum(static_cast<long long>(a.destroyed));
    if (created_now + destroyed_now == 0) continue;
    ++changed_regrids;
    created += created_now;
    destroyed += destroyed_now;
    incremental_mesh.apply_mesh_changes(incremental, a.created_octs, a.restricted_octs);
    reference_mesh.redistribute(reference);
    const double scratch = ghost_scratch_value(incremental_mesh.rank(), step);
    ASSERT_EQ(global_sum(differences<D>(incremental, reference, &scratch, &kept_scratch)), 0) << "after the regrid of step " << step;
    // The exchange lists: a ghost refresh and a reverse accumulation give the same values.
    fill_owned<D>(incremental, 100 + step);
    fill_owned<D>(reference, 100 + step);
    refresh_every_ghost<D>(incremental, incremental_mesh, 100 + step);
    refresh_every_ghost<D>(reference, reference_mesh, 100 + step);
    for (int l = 1; l <= incremental.levelmax(); ++l) {
      incremental_mesh.reverse_accumulate(incremental, l, std::vector<int>{1});
      reference_mesh.reverse_accumulate(reference, l, std::vector<int>{1});
    }
    ASSERT_EQ(global_sum(differences<D>(incremental, reference)), 0) << "exchanges after the regrid of step " << step;
  }
  // The sequence must really refine and derefine, across walls, on every dimension.
  EXPECT_GE(changed_regrids, 4);
  EXPECT_GT(created, 0);
  EXPECT_GT(destroyed, 0);
  EXPECT_EQ(incremental_mesh.stats().mesh_change_calls, changed_regrids);
  EXPECT_EQ(reference_mesh.stats().mesh_change_calls, 0);
  if (incremental_mesh.nrank() > 1) {
    // Unchanged ghosts did not travel: some kept their holder's scratch values.
    EXPECT_GT(global_sum(kept_scratch), 0);
    // Only the changed octs travel: far fewer bytes than the reference's whole-mesh redistributions
    // after the regrids (both copies' initial distribution subtracted), and fewer than one refresh
    // of every field of the ghost layer per regrid.
    const long long changes = global_sum(incremental_mesh.stats().mesh_changes.bytes_sent);
    const long long layer = global_sum(incremental_mesh.stats().ghost_layer_bytes);
    const long long everything = global_sum(reference_mesh.stats().redistribute.bytes_sent) -
                                 global_sum(incremental_mesh.stats().redistribute.bytes_sent);
    EXPECT_GT(changes, 0);
    EXPECT_LT(changes, everything / 2);
    EXPECT_LT(changes, layer);
    if (incremental_mesh.rank() == 0)
      std::printf("  D = %d %s%s: %lld regrids, %lld octs created, %lld destroyed; bytes moved: incremental %lld (ghost layer %lld), "
                  "redistribute %lld\n",
                  D, ordering, balanced ? " balanced" : "", changed_regrids, created, destroyed, changes, layer, everything);
  }
}

TEST(IncrementalMeshUpdate, MatchesRedistribution1D) {
  for (const char* ordering : {"ksection", "hilbert"})
    for (bool balanced : {false, true}) compare_paths<1>(ordering, balanced);
}

TEST(IncrementalMeshUpdate, MatchesRedistribution2D) {
  for (const char* ordering : {"ksection", "hilbert"})
    for (bool balanced : {false, true}) compare_paths<2>(ordering, balanced);
}

TEST(IncrementalMeshUpdate, MatchesRedistribution3D) {
  for (const char* ordering : {"ksection", "hilbert"})
    for (bool balanced : {false, true}) compare_paths<3>(ordering, balanced);
}

}  // namespace
