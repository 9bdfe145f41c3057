// The octree multigrid on a refined level covering 80 % of a periodic box (scattered holes, the
// m_refine = 2 case, and a smooth region; tests/unit/octree_multigrid_coverage_problem.hpp) on the
// distributed mesh. The coarse levels' mask weights and sinks are computed from masks and sink
// contributions refreshed across ranks (gravity/octree_multigrid_sinks.hpp), so with a ghost refresh
// after every colour sweep (merged_red_black = false) every owned cell must end with the bits of the
// undistributed solve, in the same number of V-cycles; with the merged sweep of seeds/000 §5.1.1 it
// must agree to round-off at a tight epsilon. Both at the one-rank convergence rate.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "../unit/octree_multigrid_coverage_problem.hpp"
#include "gravity/octree_multigrid.hpp"
#include "parallel/distributed_mesh.hpp"
#include "world.hpp"

using namespace kosmo;
using gravity::test::CoverageProblem;
using gravity::test::CoverageShape;
using gravity::test::CoverageTree;
using kosmo::test::world_rank;
using kosmo::test::world_size;

namespace {

constexpr int kBase = 4;  // 16^3 base level, level 5 solved

struct Distributed {
  CoverageProblem problem;
  parallel::DistributedMesh<3, core::MortonKey> mesh{MPI_COMM_WORLD, "p2p"};
};

// Rank 0's tree spread over the ranks by the k-section decomposition (the other ranks' copies idle).
void distribute(Distributed& run) {
  CoverageTree& tree = run.problem.tree;
  if (world_rank() != 0)
    for (std::size_t o = 0; o < tree.oct_capacity(); ++o)
      if (tree.alive(static_cast<core::OctIndex>(o))) tree.set_role(static_cast<core::OctIndex>(o), core::OctRole::idle);
  tree.rebuild_level_lists();
  run.mesh.redistribute(tree);
}

gravity::OctreeMultigridReport solve(CoverageProblem& p, const gravity::OctreeMultigridSettings& settings,
                                     parallel::DistributedMesh<3, core::MortonKey>* mesh) {
  gravity::MultigridCommunication communication;
  if (mesh) {
    communication.refresh_ghosts = [&](int level, std::span<const int> fields) { mesh->exchange_fields(p.tree, level, fields); };
    communication.sum = [](std::span<double> values) {
      MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    };
  }
  gravity::OctreeMultigrid<3> solver(p.tree, settings, communication);
  return solver.solve(kBase + 1, p.phi, p.rhs);
}

// `halo`: the halo red-black sweep (one exchange per sweep; the halo cells' operators come from the
// refreshed masks and sinks), which must give the one-rank bits as the unmerged one does.
void compare_with_one_rank(CoverageShape shape, bool merged, double epsilon, bool halo = false) {
  gravity::OctreeMultigridSettings settings;
  settings.epsilon = epsilon;
  settings.merged_red_black = merged;
  settings.halo_red_black = halo;
  settings.fused_residual_norm = merged;
  CoverageProblem reference = gravity::test::build_coverage_problem(kBase, 0.8, shape);
  const auto alone = solve(reference, settings, nullptr);
  Distributed run{gravity::test::build_coverage_problem(kBase, 0.8, shape)};
  distribute(run);
  const auto spread = solve(run.problem, settings, &run.mesh);

  long long counts[2] = {0, 0};  // cells, differing
  double extrema[2] = {0.0, 0.0};  // max |difference|, max |phi|
  const CoverageTree& tree = run.problem.tree;
  for (core::OctIndex o : tree.octs_at_level(kBase + 1))
    for (int c = 0; c < CoverageTree::cells_per_oct; ++c) {
      const core::CellIndex cell = CoverageTree::cell_index(o, c);
      const core::CellIndex same = reference.tree.find_cell(kBase + 1, tree.cell_coordinates(cell));
      ASSERT_NE(same, core::no_cell);
      const double a = tree.field(run.problem.phi)[cell], b = reference.tree.field(reference.phi)[same];
      ++counts[0];
      counts[1] += a == b ? 0 : 1;
      extrema[0] = std::max(extrema[0], std::fabs(a - b));
      extrema[1] = std::max(extrema[1], std::fabs(b));
    }
  MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, extrema, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (world_rank() == 0)
    std::printf("  %d ranks, %s, merged %d halo %d: %d V-cycles (one rank %d), reduction %.2f per V-cycle, %lld cells, %lld differ, "
                "max |diff| / max |phi| = %.1e\n",
                world_size(), shape == CoverageShape::smooth ? "smooth region" : "scattered holes", merged, halo, spread.vcycles, alone.vcycles,
                spread.reduction_per_vcycle, counts[0], counts[1], extrema[0] / extrema[1]);
  EXPECT_TRUE(spread.converged);
  EXPECT_GE(spread.reduction_per_vcycle, 3.5);
  EXPECT_EQ(counts[0], static_cast<long long>(reference.tree.octs_at_level(kBase + 1).size()) * CoverageTree::cells_per_oct);
  if (!merged) {
    EXPECT_EQ(spread.vcycles, alone.vcycles);
    EXPECT_EQ(counts[1], 0) << "the potential depends on the rank count";
  } else {
    EXPECT_LE(extrema[0], 1e-10 * extrema[1]);
  }
}

TEST(DistributedOctreeMultigridCoverage, ScatteredHolesUnmergedGiveTheOneRankBits) { compare_with_one_rank(CoverageShape::speckled, false, 1e-8); }
TEST(DistributedOctreeMultigridCoverage, SmoothRegionUnmergedGivesTheOneRankBits) { compare_with_one_rank(CoverageShape::smooth, false, 1e-8); }
TEST(DistributedOctreeMultigridCoverage, ScatteredHolesHaloSweepGivesTheOneRankBits) {
  compare_with_one_rank(CoverageShape::speckled, false, 1e-8, true);
}
TEST(DistributedOctreeMultigridCoverage, SmoothRegionHaloSweepGivesTheOneRankBits) { compare_with_one_rank(CoverageShape::smooth, false, 1e-8, true); }
TEST(DistributedOctreeMultigridCoverage, ScatteredHolesMergedAgreeToRoundOff) { compare_with_one_rank(CoverageShape::speckled, true, 1e-12); }

}  // namespace
