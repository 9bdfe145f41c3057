// Properties the AMR hydro scheme must have whatever the flow: conservation to round-off while
// the mesh refines and derefines every step, x <-> y symmetry of a centred blast, and results
// that do not depend on the number of OpenMP threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "physics/hydro_test_support.hpp"

using namespace kosmo;

namespace {

std::string scientific(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3e", value);
  return text;
}

// A dense blob with a pressure bump carried through a periodic 3-D box at constant velocity;
// the density-gradient criterion makes the refined region follow it.
TEST(HydroAmr, PeriodicRunConservesMassMomentumAndEnergyWhileTheMeshChanges) {
  const auto params = core::ParameterSet::from_text(
      "&RUN_PARAMS\nhydro=.true.\nndim=3\n/\n&AMR_PARAMS\nlevelmin=3\nlevelmax=5\n/\n"
      "&HYDRO_PARAMS\ngamma=1.4\ncourant_factor=0.8\nslope_type=2\nriemann='hllc'\n/\n"
      "&REFINE_PARAMS\nerr_grad_d=0.05\ninterpol_type=2\n/\n",
      "conservation.nml");
  driver::Simulation<3> sim(params);
  sim.set_initial_condition([](const std::array<double, 3>& x, double, double* q) {
    double r2 = 0.0;
    for (int d = 0; d < 3; ++d) r2 += (x[d] - 0.4) * (x[d] - 0.4);
    q[0] = 1.0 + 2.0 * std::exp(-r2 / (2 * 0.08 * 0.08));
    q[1] = 1.0;
    q[2] = 0.5;
    q[3] = -0.25;
    q[4] = 1.0 + 0.5 * std::exp(-r2 / (2 * 0.05 * 0.05));
  });
  sim.initialise();
  const std::vector<double> initial = sim.hydro().totals();
  std::map<std::uint64_t, int> unused;
  std::uint64_t previous_fingerprint = 0;
  int mesh_changes = 0;
  double worst = 0.0;
  for (int step = 0; step < 100; ++step) {
    sim.advance(sim.courant_time_step());
    const std::vector<double> now = sim.hydro().totals();
    for (std::size_t v = 0; v < now.size(); ++v) {
      const double scale = std::max(std::fabs(initial[v]), std::fabs(initial[0]));
      worst = std::max(worst, std::fabs(now[v] - initial[v]) / scale);
      ASSERT_LE(std::fabs(now[v] - initial[v]), 1e-12 * scale) << "variable " << v << " step " << step;
    }
    // Which octs exist at the finer levels, as a fingerprint of their keys.
    std::uint64_t fingerprint = 0;
    for (int l = 4; l <= 5; ++l)
      for (core::OctIndex o : sim.tree().octs_at_level(l)) fingerprint += static_cast<std::uint64_t>(sim.tree().key(o)) * (l == 4 ? 3 : 7) + 1;
    if (fingerprint != previous_fingerprint) ++mesh_changes;
    previous_fingerprint = fingerprint;
  }
  RecordProperty("worst_relative_change", scientific(worst));
  RecordProperty("steps_with_mesh_changes", std::to_string(mesh_changes));
  EXPECT_GE(mesh_changes, 90) << "the refined region should move with the blob every step";
  EXPECT_FALSE(sim.tree().octs_at_level(5).empty());
}

std::string blast_namelist() {
  return "&RUN_PARAMS\nhydro=.true.\nndim=2\n/\n&AMR_PARAMS\nlevelmin=5\nlevelmax=7\n/\n"
         "&INIT_PARAMS\nnregion=2\nregion_type='square','square'\nx_center=0.5,0.5\ny_center=0.5,0.5\n"
         "length_x=10.0,0.1\nlength_y=10.0,0.1\nexp_region=10.0,2.0\nd_region=1.0,1.0\np_region=1e-3,1.0\n/\n"
         "&HYDRO_PARAMS\ngamma=1.4\ncourant_factor=0.8\nslope_type=2\nriemann='hllc'\n/\n"
         "&REFINE_PARAMS\nerr_grad_d=0.05\nerr_grad_p=0.05\ninterpol_type=2\n/\n";
}

std::vector<test::LeafCell<2>> run_blast(int threads) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  driver::Simulation<2> sim(core::ParameterSet::from_text(blast_namelist(), "blast2d.nml"));
  sim.initialise();
  test::advance_to(sim, 0.06);
  omp_set_num_threads(saved);
  return test::leaf_cells(sim);
}

TEST(HydroAmr, CentredBlastStaysSymmetricUnderSwappingXAndY) {
  const auto cells = run_blast(2);
  std::map<std::tuple<int, long, long>, const test::LeafCell<2>*> by_position;
  for (const auto& c : cells)
    by_position[{c.level, std::lround(c.x[0] / c.dx * 2), std::lround(c.x[1] / c.dx * 2)}] = &c;
  double worst = 0.0;
  int refined_levels = 0;
  for (const auto& c : cells) {
    const auto it = by_position.find({c.level, std::lround(c.x[1] / c.dx * 2), std::lround(c.x[0] / c.dx * 2)});
    ASSERT_NE(it, by_position.end()) << "the mesh is not symmetric at level " << c.level;
    const auto& m = *it->second;
    for (int v : {0, 3}) worst = std::max(worst, std::fabs(c.q[v] - m.q[v]) / std::fabs(c.q[v]));
    worst = std::max(worst, std::fabs(c.q[1] - m.q[2]) / std::max(1e-3, std::fabs(c.q[1])));
    refined_levels = std::max(refined_levels, c.level);
  }
  RecordProperty("worst_relative_asymmetry", scientific(worst));
  EXPECT_EQ(refined_levels, 7);
  EXPECT_LT(worst, 1e-11);
}

TEST(HydroAmr, OneAndTwoThreadsGiveIdenticalResults) {
  const auto one = run_blast(1);
  const auto two = run_blast(2);
  ASSERT_EQ(one.size(), two.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    ASSERT_EQ(one[i].x, two[i].x);
    ASSERT_EQ(one[i].q, two[i].q) << "cell " << i;
  }
}

}  // namespace
