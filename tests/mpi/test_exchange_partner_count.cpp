// Neighbour-only communication (seeds/000 §3): on a uniform grid the messages a rank sends per
// ghost exchange are one per neighbouring domain, however many ranks share the box. The box is 12
// level-1 octs long in x and one wide in y and z, periodic; the k-section splits its longest axis, so
// on N ranks the domains are slabs at least one level-1 oct thick, and at the uniform finest level
// (octs an eighth of that) a slab's ghost zone reaches only the slabs on either side: two partners
// from 3 ranks up, one on 2. The forward ghost refresh and the flag exchange of that level must send
// exactly that, and the mesh-change exchange after a regrid no more than one message per partner of
// the ghost exchange over all levels. Run on 2 to 12 ranks (oversubscribed).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/refinement.hpp"
#include "refined_mesh_support.hpp"

using namespace kosmo;
using namespace kosmo::test;

namespace {

constexpr int uniform_level = 4;

Tree<3> long_uniform_tree() {
  Tree<3>::Geometry g;
  g.levelmax = uniform_level + 1;
  g.coarse_cells = {12, 1, 1};
  g.periodic = {true, true, true};
  Tree<3> tree(g);
  for (int l = 1; l < uniform_level; ++l) refine_where<3>(tree, l, [](const std::array<double, 3>&) { return true; });
  core::FieldInfo info;
  info.name = "value";
  tree.add_field(info);
  return tree;
}

long long max_over_ranks(long long local) {
  long long global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  return global;
}

long long min_over_ranks(long long local) {
  long long global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  return global;
}

TEST(ExchangePartnerCount, OneMessagePerNeighbouringSlab) {
  Tree<3> tree = long_uniform_tree();
  Mesh<3> mesh(MPI_COMM_WORLD, "p2p", "ksection");
  distribute<3>(tree, mesh, false);
  const int nrank = mesh.nrank();
  if (nrank == 1) GTEST_SKIP() << "no exchange on one rank";
  const long long neighbours = std::min(nrank - 1, 2);

  const int field = 0;
  const auto forward_before = mesh.stats().forward.messages_sent;
  for (int repeat = 0; repeat < 3; ++repeat) mesh.exchange_fields(tree, uniform_level, std::vector<int>{field});
  const long long forward = (mesh.stats().forward.messages_sent - forward_before) / 3;
  EXPECT_EQ(min_over_ranks(forward), neighbours);
  EXPECT_EQ(max_over_ranks(forward), neighbours);

  std::vector<std::uint8_t> flags(tree.oct_capacity() * Tree<3>::cells_per_oct, 0);
  const auto flags_before = mesh.stats().flags.messages_sent;
  mesh.exchange_flags(tree, uniform_level, flags);
  const long long flag_messages = mesh.stats().flags.messages_sent - flags_before;
  EXPECT_EQ(min_over_ranks(flag_messages), neighbours);
  EXPECT_EQ(max_over_ranks(flag_messages), neighbours);

  // A regrid that refines a ball across a wall: the mesh changes go to ghost-exchange partners only.
  const core::FlagSynchroniser synchronise = [&](int level, std::vector<std::uint8_t>& f) { mesh.exchange_flags(tree, level, f); };
  core::RefinementSettings settings;
  settings.levelmin = uniform_level;
  const core::RefinementCriterion<3, core::MortonKey> ball = [](const Tree<3>& t, int level, std::vector<std::uint8_t>& f) {
    if (level != uniform_level) return;
    for (core::OctIndex o : t.octs_at_level(level))
      for (int c = 0; c < Tree<3>::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree<3>::cell_index(o, c);
        // Cell coordinates of the level: 192 x 16 x 16; a ball of radius 3 cells at the box's middle,
        // across the wall of 2, 3, 4, 6 and 12 slabs.
        const auto x = t.cell_coordinates(cell);
        const double dx = static_cast<double>(x[0]) + 0.5 - 96.0, dy = static_cast<double>(x[1]) + 0.5 - 8.0,
                     dz = static_cast<double>(x[2]) + 0.5 - 8.0;
        if (dx * dx + dy * dy + dz * dz < 9.0) f[static_cast<std::size_t>(cell)] = 1;
      }
  };
  const auto changes_before = mesh.stats().mesh_changes.messages_sent;
  const core::RegridCounts counts = core::regrid<3, core::MortonKey>(tree, settings, ball, uniform_level, nullptr, &synchronise);
  long long created = static_cast<long long>(counts.created);
  MPI_Allreduce(MPI_IN_PLACE, &created, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  ASSERT_GT(created, 0) << "the ball must refine";
  mesh.apply_mesh_changes(tree, counts.created_octs, counts.restricted_octs);
  const long long change_messages = mesh.stats().mesh_changes.messages_sent - changes_before;
  // Level-1 octs are as thick as a slab; their ghost zone (1.5 widths) reaches two slabs each side.
  const long long fewest = min_over_ranks(change_messages), most = max_over_ranks(change_messages);
  EXPECT_LE(most, std::min(nrank - 1, 4));
  EXPECT_GE(fewest, neighbours);
  if (mesh.rank() == 0)
    std::printf("  %d ranks: per rank per exchange %lld ghost-refresh messages, %lld flag messages, %lld..%lld mesh-change messages\n",
                nrank, forward, flag_messages, fewest, most);
}

}  // namespace
