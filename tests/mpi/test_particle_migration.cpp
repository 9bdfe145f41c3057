// Particle migration (parallel/particle_migration.hpp) on any rank count, both orderings,
// D = 1, 2, 3. Particles are generated from their id alone (never from the rank), so every rank
// can say what any particle must hold; rank r starts with ids r, r + N, r + 2N, ... scattered
// over the whole box, some exactly on k-section walls, on finest-cell faces or at the origin.
// After a migration: every particle lives on owner_of_position, the global set by id is unchanged
// bit for bit (attributes and attachments), the count is conserved, and each rank's order is the
// documented one (stayers in their old order, then arrivals by source rank and send order). The
// same holds after a load balance moves the walls under particles already placed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "parallel/particle_migration.hpp"
#include "refined_mesh_support.hpp"

using namespace kosmo;
using namespace kosmo::test;

namespace {

constexpr std::int64_t kParticles = 3000;

template <int D>
struct Expected {
  std::array<double, D> position{}, velocity{}, acceleration{}, kick{}, pending{};
  double mass = 0.0, birth = 0.0, half_dt = 0.0;
  std::int8_t level = 0;
  particles::Family family = particles::Family::dark_matter;
};

// Everything a particle holds, from its id and geometry every rank shares (box, finest cell width,
// the k-section walls of the mesh the particles were made on).
template <int D>
struct Factory {
  std::array<double, D> box{};
  double finest = 1.0;
  std::vector<std::pair<int, double>> walls;  // (axis, position), k-section only

  Factory(const Tree<D>& tree, const Mesh<D>& mesh) {
    const parallel::Box b = Mesh<D>::domain_box(tree);
    for (int d = 0; d < D; ++d) box[static_cast<std::size_t>(d)] = b.hi[static_cast<std::size_t>(d)];
    finest = tree.cell_size(tree.levelmax());
    if (mesh.hilbert()) return;
    const auto& k = mesh.decomposition();
    for (int node = 0; node < k.node_count(); ++node) {
      if (k.is_leaf(node) || k.split_axis(node) >= D) continue;
      const auto w = k.walls(node);
      for (std::size_t j = 1; j + 1 < w.size(); ++j) walls.emplace_back(k.split_axis(node), w[j]);
    }
  }

  Expected<D> operator()(std::int64_t id) const {
    std::mt19937_64 random(static_cast<std::uint64_t>(id) * 0x9e3779b97f4a7c15ULL + D);
    std::uniform_real_distribution<double> unit(0.0, 1.0), signed_unit(-1.0, 1.0);
    Expected<D> e;
    for (int d = 0; d < D; ++d) {
      const auto a = static_cast<std::size_t>(d);
      e.position[a] = unit(random) * box[a];
      e.velocity[a] = signed_unit(random);
      e.acceleration[a] = signed_unit(random) * 1e-3;
      e.kick[a] = signed_unit(random) * 1e5;
      e.pending[a] = signed_unit(random) * 1e-2;
    }
    e.mass = unit(random) * 1e-6;
    e.half_dt = unit(random) * 1e-3;
    e.birth = -unit(random);
    e.level = static_cast<std::int8_t>(1 + id % 9);
    e.family = static_cast<particles::Family>(id % 4);
    if (id % 5 == 0)  // on a face of the finest cells, where balanced walls land
      for (int d = 0; d < D; ++d) e.position[static_cast<std::size_t>(d)] = std::floor(e.position[static_cast<std::size_t>(d)] / finest) * finest;
    if (id % 5 == 1 && !walls.empty()) {  // exactly on a wall
      const auto& [axis, at] = walls[static_cast<std::size_t>(id / 5) % walls.size()];
      e.position[static_cast<std::size_t>(axis)] = at;
    }
    if (id == 2) e.position.fill(0.0);
    return e;
  }
};

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The caller's per-particle arrays: a D-wide pending kick, a birth time, and a stamp of where the
// particle sat before the last migration (rank * 2^32 + index), for the order check.
template <int D>
struct Attached {
  std::vector<double> kick, birth, stamp;
  std::vector<parallel::ParticleAttachment> list() { return {{&kick, D}, {&birth, 1}, {&stamp, 1}}; }
};

template <int D>
void stamp(const particles::ParticleSet<D>& set, Attached<D>& attached, int rank) {
  for (std::size_t i = 0; i < set.size(); ++i) attached.stamp[i] = std::ldexp(static_cast<double>(rank), 32) + static_cast<double>(i);
}

template <int D>
void add_particle(particles::ParticleSet<D>& set, Attached<D>& attached, const Factory<D>& factory, std::int64_t id) {
  const Expected<D> e = factory(id);
  typename particles::ParticleSet<D>::Particle p;
  p.position = e.position;
  p.velocity = e.velocity;
  p.mass = e.mass;
  p.id = id;
  p.family = e.family;
  // Leapfrog state kept in the particle itself, where the particle set has it: it must travel too.
  if constexpr (requires { p.pending_kick; }) p.pending_kick = e.pending;
  if constexpr (requires { p.pending_half_dt; }) p.pending_half_dt = e.half_dt;
  const std::size_t i = set.add(p);
  for (int d = 0; d < D; ++d) set.acceleration(d)[i] = e.acceleration[static_cast<std::size_t>(d)];
  set.level()[i] = e.level;
  attached.kick.insert(attached.kick.end(), e.kick.begin(), e.kick.end());
  attached.birth.push_back(e.birth);
  attached.stamp.push_back(0.0);
}

// Migrates (stamping first) and checks every property of the header; returns particles sent.
template <int D>
long long migrate_and_check(const Mesh<D>& mesh, particles::ParticleSet<D>& set, Attached<D>& attached, const Factory<D>& factory) {
  const int rank = mesh.rank();
  stamp(set, attached, rank);
  const std::size_t before = set.size();
  const parallel::ParticleMigration moved = parallel::migrate_particles(mesh, set, attached.list());

  EXPECT_EQ(set.size(), before - moved.sent + moved.received);
  EXPECT_EQ(attached.kick.size(), set.size() * D);
  EXPECT_EQ(attached.birth.size(), set.size());
  EXPECT_EQ(attached.stamp.size(), set.size());
  long long misplaced = 0, changed = 0, out_of_order = 0, left_behind = 0;
  std::vector<int> seen(static_cast<std::size_t>(kParticles), 0);
  std::pair<double, double> previous{-2.0, -1.0};
  for (std::size_t i = 0; i < set.size(); ++i) {
    const auto p = set.get(i);
    misplaced += mesh.owner_of_position(p.position) != rank;
    if (p.id < 0 || p.id >= kParticles) {
      ++changed;
      continue;
    }
    ++seen[static_cast<std::size_t>(p.id)];
    const Expected<D> e = factory(p.id);
    bool same = same_bits(p.mass, e.mass) && same_bits(attached.birth[i], e.birth) && set.level()[i] == e.level && p.family == e.family;
    for (int d = 0; d < D; ++d) {
      const auto a = static_cast<std::size_t>(d);
      same = same && same_bits(p.position[a], e.position[a]) && same_bits(p.velocity[a], e.velocity[a]) &&
             same_bits(set.acceleration(d)[i], e.acceleration[a]) && same_bits(attached.kick[i * D + a], e.kick[a]);
    }
    if constexpr (requires { p.pending_kick; })
      for (int d = 0; d < D; ++d) same = same && same_bits(p.pending_kick[static_cast<std::size_t>(d)], e.pending[static_cast<std::size_t>(d)]);
    if constexpr (requires { p.pending_half_dt; }) same = same && same_bits(p.pending_half_dt, e.half_dt);
    changed += !same;
    // Stayers first in their old order, then arrivals by (source rank, source index).
    const double source = std::floor(std::ldexp(attached.stamp[i], -32));
    const std::pair<double, double> key{source == rank ? -1.0 : source, attached.stamp[i]};
    out_of_order += !(previous < key);
    previous = key;
    if (source == rank && i >= before - moved.sent) ++left_behind;  // stayers are exactly the first ones
  }
  EXPECT_EQ(misplaced, 0) << "particles on a rank that does not own their position";
  EXPECT_EQ(changed, 0) << "particles whose attributes or attachments changed in transit";
  EXPECT_EQ(out_of_order, 0) << "local order is not stayers, then arrivals by source rank and send order";
  EXPECT_EQ(left_behind, 0);
  MPI_Allreduce(MPI_IN_PLACE, seen.data(), static_cast<int>(seen.size()), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), kParticles) << "a particle was lost or duplicated";
  const long long sent = mesh.sum(static_cast<long long>(moved.sent));
  EXPECT_EQ(sent, mesh.sum(static_cast<long long>(moved.received)));
  if (!mesh.distributed()) {
    EXPECT_EQ(moved.sent, 0u);
    EXPECT_EQ(moved.wire.messages_sent, 0);
  }
  return sent;
}

template <int D>
void migration_case(const char* ordering, bool balanced_from_start) {
  SCOPED_TRACE(std::string(ordering) + (balanced_from_start ? " balanced" : " geometric") + ", D = " + std::to_string(D));
  Tree<D> tree = refined_tree<D>();
  Mesh<D> mesh(MPI_COMM_WORLD, "auto", ordering);
  distribute<D>(tree, mesh, balanced_from_start);
  const int rank = mesh.rank(), nrank = mesh.nrank();
  const Factory<D> factory(tree, mesh);
  if (!mesh.hilbert() && nrank > 1) {
    EXPECT_EQ(factory.walls.size(), static_cast<std::size_t>(nrank - 1));
  }

  particles::ParticleSet<D> set;
  Attached<D> attached;
  for (std::int64_t id = rank; id < kParticles; id += nrank) add_particle(set, attached, factory, id);
  const long long first = migrate_and_check(mesh, set, attached, factory);
  if (nrank > 1) {
    // Ids are spread round-robin, positions over the whole box: most particles start elsewhere.
    EXPECT_GT(first, kParticles / 4);
  }
  // A second call with nothing to move moves nothing.
  EXPECT_EQ(migrate_and_check(mesh, set, attached, factory), 0);

  // A load balance with another cost moves the walls under the particles.
  const auto walls_before = mesh.ksection_walls();
  const auto bounds_before = mesh.hilbert_bounds();
  std::vector<double> cost(static_cast<std::size_t>(tree.levelmax()) + 1, 0.0);
  // (from the geometric walls: finer octs much dearer; from walls balanced with 2^l: all octs equal)
  for (int l = 1; l <= tree.levelmax(); ++l) cost[static_cast<std::size_t>(l)] = balanced_from_start ? 1.0 : std::ldexp(1.0, D * l);
  mesh.balance_decomposition(tree, cost);
  mesh.redistribute(tree);
  const long long after_balance = migrate_and_check(mesh, set, attached, factory);
  if (nrank > 1) {
    EXPECT_TRUE(mesh.ksection_walls() != walls_before || mesh.hilbert_bounds() != bounds_before) << "the balance did not move a wall";
    EXPECT_GT(after_balance, 0);
  }
  if (rank == 0)
    std::printf("  D=%d %s%s, %d ranks: %lld particles moved first, %lld after the load balance\n", D, ordering,
                balanced_from_start ? " (balanced)" : "", nrank, first, after_balance);
}

TEST(ParticleMigration, EveryParticleReachesItsOwnerUnchangedKsection) {
  migration_case<1>("ksection", false);
  migration_case<2>("ksection", false);
  migration_case<3>("ksection", false);
  migration_case<2>("ksection", true);
  migration_case<3>("ksection", true);
}

TEST(ParticleMigration, EveryParticleReachesItsOwnerUnchangedHilbert) {
  migration_case<2>("hilbert", false);
  migration_case<3>("hilbert", true);
}

TEST(ParticleMigration, RefusesMisfitAttachmentsAndPositionsOutsideTheBox) {
  Tree<2> tree = refined_tree<2>();
  Mesh<2> mesh(MPI_COMM_WORLD, "ksection");
  distribute<2>(tree, mesh, false);
  const Factory<2> factory(tree, mesh);
  particles::ParticleSet<2> set;
  Attached<2> attached;
  add_particle(set, attached, factory, 7);
  std::vector<double> short_array;  // no value for the particle
  EXPECT_THROW(parallel::migrate_particles(mesh, set, {{&short_array, 1}}), Error);
  if (mesh.distributed()) {
    set.position(1)[0] = 1.0;  // the box is [0, 2) x [0, 1)
    EXPECT_THROW(parallel::migrate_particles(mesh, set), Error);
  }
}

}  // namespace
