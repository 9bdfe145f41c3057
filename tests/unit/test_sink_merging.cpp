// Sink merging (sinks/sink_merging.hpp), the Bondi rate (sinks/sink_bondi.hpp) and RAMSES' ic_sink
// file (sinks/sink_initial_file.hpp); docs/galaxy.md "Sink particles".
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "particles/particle_set.hpp"
#include "sinks/sink_bondi.hpp"
#include "sinks/sink_initial_file.hpp"
#include "sinks/sink_merging.hpp"

using namespace kosmo;

namespace {

using Set = particles::ParticleSet<3>;

struct Sinks {
  Set set;
  sinks::SinkAttributeIds ids = sinks::register_sink_attributes(set);
  void add(std::array<double, 3> x, std::array<double, 3> v, double m, std::int64_t id, double born = 0.0, double accreted = 0.0) {
    Set::Particle p;
    p.position = x;
    p.velocity = v;
    p.mass = m;
    p.id = id;
    p.family = particles::Family::sink;
    const std::size_t i = set.add(p);
    set.values<double>(ids.birth_time)[i] = born;
    set.values<double>(ids.accreted_mass)[i] = accreted;
  }
};

sinks::MergeSettings settings(double linking_length) {
  sinks::MergeSettings s;
  s.linking_length = linking_length;
  s.box_size = 1.0;
  s.periodic = true;
  return s;
}

// Two sinks 1.5 dx apart (r_merge = 2, dx = 1/64) and a third far away.
TEST(SinkMerging, ABinaryCloserThanRMergeMergesConservingMassAndMomentum) {
  Sinks s;
  const double dx = 1.0 / 64.0;
  s.add({0.40, 0.50, 0.50}, {0.3, -0.1, 0.7}, 0.7, 5, 0.0, 0.01);
  s.add({0.90, 0.10, 0.20}, {1.0, 2.0, 3.0}, 2.0, 3);
  s.add({0.40 + 1.5 * dx, 0.50, 0.50}, {-0.2, 0.4, 0.1}, 0.3, 9, 0.0, 0.02);
  const Set::Particle far_before = s.set.get(1);
  const double mass = 0.7 + 0.3;
  std::array<double, 3> momentum{0.7 * 0.3 + 0.3 * -0.2, 0.7 * -0.1 + 0.3 * 0.4, 0.7 * 0.7 + 0.3 * 0.1};
  ASSERT_EQ(sinks::merge_sinks(s.set, s.ids, settings(2.0 * dx)), 1u);
  ASSERT_EQ(s.set.size(), 2u);
  // The merged sink keeps the first member's slot; the far sink is untouched, bit for bit.
  const Set::Particle merged = s.set.get(0), far = s.set.get(1);
  EXPECT_EQ(merged.mass, mass);
  for (int d = 0; d < 3; ++d) {
    EXPECT_NEAR(merged.mass * merged.velocity[static_cast<std::size_t>(d)], momentum[static_cast<std::size_t>(d)], 1e-16);
    EXPECT_EQ(far.position[static_cast<std::size_t>(d)], far_before.position[static_cast<std::size_t>(d)]);
    EXPECT_EQ(far.velocity[static_cast<std::size_t>(d)], far_before.velocity[static_cast<std::size_t>(d)]);
  }
  EXPECT_NEAR(merged.position[0], (0.7 * 0.40 + 0.3 * (0.40 + 1.5 * dx)) / mass, 1e-16) << "the centre of mass";
  EXPECT_EQ(merged.position[1], 0.50);
  EXPECT_EQ(merged.id, 5) << "the smaller identity of the two";
  EXPECT_EQ(far.id, 3);
  EXPECT_NEAR(s.set.values<double>(s.ids.accreted_mass)[0], 0.03, 1e-17);
  EXPECT_EQ(far.mass, 2.0);
}

TEST(SinkMerging, ABinaryAcrossThePeriodicWallMergesAtItsCentreOfMass) {
  Sinks s;
  s.add({0.999, 0.5, 0.5}, {1.0, 0.0, 0.0}, 1.0, 1);
  s.add({0.003, 0.5, 0.5}, {-1.0, 0.0, 0.0}, 1.0, 2);
  ASSERT_EQ(sinks::merge_sinks(s.set, s.ids, settings(0.01)), 1u);
  EXPECT_NEAR(s.set.position(0)[0], 0.001, 1e-15) << "half way between them, wrapped into the box";
  EXPECT_EQ(s.set.velocity(0)[0], 0.0);
  EXPECT_EQ(s.set.mass()[0], 2.0);
}

TEST(SinkMerging, SinksFartherThanTheLinkingLengthOrOldStayApart) {
  Sinks s;
  s.add({0.2, 0.2, 0.2}, {}, 1.0, 1);
  s.add({0.2, 0.2, 0.2 + 0.0101}, {}, 1.0, 2);
  EXPECT_EQ(sinks::merge_sinks(s.set, s.ids, settings(0.01)), 0u);
  EXPECT_EQ(s.set.size(), 2u);
  // With merging_timescale, a close pair merges only while one of them is young.
  Sinks old;
  old.add({0.2, 0.2, 0.2}, {}, 1.0, 1, 0.0);
  old.add({0.2, 0.2, 0.205}, {}, 1.0, 2, 0.1);
  sinks::MergeSettings later = settings(0.01);
  later.young_age = 0.5;
  later.now = 1.0;
  EXPECT_EQ(sinks::merge_sinks(old.set, old.ids, later), 0u);
  later.now = 0.55;  // the second is 0.45 old: young
  EXPECT_EQ(sinks::merge_sinks(old.set, old.ids, later), 1u);
  EXPECT_EQ(old.set.values<double>(old.ids.birth_time)[0], 0.0) << "the earlier birth time";
}

// A chain of sinks each within the linking length of the next merges into one (friends of friends).
TEST(SinkMerging, AChainOfFriendsMergesIntoOneSink) {
  Sinks s;
  double momentum = 0.0, mass = 0.0;
  for (int i = 0; i < 5; ++i) {
    s.add({0.3 + 0.009 * i, 0.6, 0.6}, {0.1 * i, 0.0, 0.0}, 1.0 + i, 10 - i);
    momentum += (1.0 + i) * 0.1 * i;
    mass += 1.0 + i;
  }
  EXPECT_EQ(sinks::merge_sinks(s.set, s.ids, settings(0.01)), 4u);
  ASSERT_EQ(s.set.size(), 1u);
  EXPECT_EQ(s.set.mass()[0], mass);
  EXPECT_NEAR(s.set.mass()[0] * s.set.velocity(0)[0], momentum, 1e-15);
  EXPECT_EQ(s.set.id()[0], 6);
}

TEST(SinkBondi, AlphaFollowsKrumholzTableAndItsAsymptotes) {
  // The asymptotes outside the table, lambda_c / sqrt(2 x^3) and exp(1/x), meet it within a few per cent.
  EXPECT_NEAR(sinks::bondi_alpha(0.01), std::exp(1.5) / 4.0 / std::sqrt(2e-6), 1e-9);
  EXPECT_NEAR(sinks::bondi_alpha(0.0100001) / sinks::bondi_alpha(0.01), 1.0, 0.04);
  EXPECT_NEAR(sinks::bondi_alpha(1.9999) / std::exp(1.0 / 2.0), 1.0, 0.02);
  EXPECT_EQ(sinks::bondi_alpha(50.0), std::exp(0.02));
  // Decreasing towards 1 far from the sink.
  double previous = sinks::bondi_alpha(0.005);
  for (double x = 0.01; x < 10.0; x *= 1.3) {
    const double a = sinks::bondi_alpha(x);
    EXPECT_LT(a, previous) << x;
    EXPECT_GT(a, 1.0);
    previous = a;
  }
}

TEST(SinkBondi, RateIsFourPiRhoGMSquaredOverVCubed) {
  // Far from the sink (r_acc = 100 r_B) alpha ~ exp(0.01).
  const double gravity = 1.0, mass = 0.01, rho = 2.0, c2 = 0.5, v2 = 0.25;
  const double speed = std::sqrt(c2 + v2);
  const double bondi_radius = gravity * mass / (c2 + v2);
  const sinks::BondiRate r = sinks::bondi_rate(gravity, mass, rho, c2, v2, 100.0 * bondi_radius);
  EXPECT_NEAR(r.bondi_radius, bondi_radius, 1e-18);
  EXPECT_NEAR(r.density_far, rho / std::exp(0.01), 1e-14);
  EXPECT_NEAR(r.rate, 4.0 * 3.14159265358979323846 * r.density_far * mass * mass / (speed * speed * speed), 1e-16);
  // Eddington: 4 pi G M m_H / (0.1 sigma_T c), 2.2e-8 per year per solar mass times 1/0.1.
  const double per_year = sinks::eddington_rate(1.0, 3.15576e7);
  EXPECT_NEAR(per_year, 4.0 * 3.14159265358979323846 * 6.67408e-8 * 1.660539e-24 / (0.1 * 6.6524587e-25 * 2.9979246e10) * 3.15576e7, 1e-20);
}

TEST(SinkInitialFile, ReadsRamsesIcSink) {
  const auto dir = std::filesystem::temp_directory_path() / ("kosmo_ic_sink_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir / "ic_sink");
    out << "20.395,-70,-75,0,-119,0,0,0,0,0,20.395,20.395\n\n40.79 -75 75 0 0 0 0 0 0 0 40.79 1.5\n";
  }
  EXPECT_EQ(sinks::initial_sink_file(dir.string()), (dir / "ic_sink").string());
  const auto initial = sinks::read_initial_sinks((dir / "ic_sink").string(), 300.0);
  ASSERT_EQ(initial.size(), 2u);
  EXPECT_EQ(initial[0].mass, 20.395);
  EXPECT_EQ(initial[0].position[0], 80.0) << "relative to the box centre";
  EXPECT_EQ(initial[0].position[1], 75.0);
  EXPECT_EQ(initial[0].velocity[0], -119.0);
  EXPECT_EQ(initial[1].accreted_mass, 1.5);
  {
    std::ofstream out(dir / "ic_sink");
    out << "1,2,3\n";
  }
  EXPECT_THROW(sinks::read_initial_sinks((dir / "ic_sink").string(), 1.0), Error);
  std::filesystem::remove_all(dir);
}

}  // namespace
