// Supernova feedback (docs/galaxy.md "Supernova feedback", RAMSES pm/feedback.f90): an isolated
// supernova in a uniform medium becomes a Sedov-Taylor blast; the injection adds exactly the events'
// mass, momentum and energy; the spatial hash binning (seeds/000 §6.2) gives the all-pairs scan's
// results bit for bit, on any thread count.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "feedback/feedback_module.hpp"
#include "physics/hydro_test_support.hpp"
#include "support/sedov_taylor.hpp"
#include "support/supernova_events.hpp"

using namespace kosmo;

namespace {

constexpr double kParsecCm = 3.0856775814913673e18;
constexpr double kGamma = 5.0 / 3.0;

// Uniform cold gas (rho = 1, p = 1e-5) in a periodic unit box, one code length = 1 pc so that
// rbubble is in box units; optionally a dense ball (refined by the density gradient) for an AMR mesh.
std::string feedback_namelist(int levelmin, int levelmax, const std::string& feedback, bool dense_ball) {
  std::string init = dense_ball ? "&INIT_PARAMS\nnregion=2\nregion_type='square','square'\nx_center=0.5,0.3\ny_center=0.5,0.6\n"
                                  "z_center=0.5,0.4\nlength_x=10.0,0.3\nlength_y=10.0,0.3\nlength_z=10.0,0.3\nexp_region=10.0,2.0\n"
                                  "d_region=1.0,10.0\np_region=1e-5,1e-5\n/\n"
                                : "&INIT_PARAMS\nnregion=1\nregion_type='square'\nx_center=0.5\ny_center=0.5\nz_center=0.5\n"
                                  "length_x=10.0\nlength_y=10.0\nlength_z=10.0\nexp_region=10.0\nd_region=1.0\np_region=1e-5\n/\n";
  return "&RUN_PARAMS\nhydro=.true.\nndim=3\n/\n&AMR_PARAMS\nlevelmin=" + std::to_string(levelmin) + "\nlevelmax=" +
         std::to_string(levelmax) + "\n/\n" + init +
         "&HYDRO_PARAMS\ngamma=1.6666666666666667\ncourant_factor=0.8\nslope_type=2\nriemann='hllc'\n/\n"
         "&REFINE_PARAMS\nerr_grad_p=0.1\nerr_grad_d=0.1\ninterpol_type=2\n/\n"
         "&UNITS_PARAMS\nunits_length=3.0856775814913673e18\n/\n&FEEDBACK_PARAMS\n" + feedback + "\n/\n";
}

feedback::FeedbackModule<3>& feedback_of(driver::Simulation<3>& sim) {
  auto* module = sim.find_module<feedback::FeedbackModule<3>>();
  EXPECT_NE(module, nullptr);
  return *module;
}

// The shock radius from the radial density profile: midway between the density peak and the radius
// outside it where the density falls halfway to the ambient value (as tests/physics/test_sedov_blast).
double shock_radius(const std::vector<test::LeafCell<3>>& cells, double bin) {
  const auto n = static_cast<std::size_t>(0.5 / bin) + 1;
  std::vector<double> mass(n, 0.0), volume(n, 0.0);
  for (const auto& c : cells) {
    double r2 = 0.0;
    for (int d = 0; d < 3; ++d) r2 += (c.x[d] - 0.5) * (c.x[d] - 0.5);
    const auto i = static_cast<std::size_t>(std::sqrt(r2) / bin);
    if (i >= n) continue;
    mass[i] += c.q[0] * c.dx * c.dx * c.dx;
    volume[i] += c.dx * c.dx * c.dx;
  }
  std::vector<double> density(n, 0.0);
  std::size_t peak = 0;
  for (std::size_t i = 0; i < n; ++i) {
    density[i] = volume[i] > 0 ? mass[i] / volume[i] : 0.0;
    if (density[i] > density[peak]) peak = i;
  }
  const double half = 0.5 * (density[peak] + 1.0);
  for (std::size_t i = peak; i + 1 < n; ++i)
    if (density[i] >= half && density[i + 1] < half) {
      const double w = (density[i] - half) / (density[i] - density[i + 1]);
      return 0.5 * ((static_cast<double>(i) + 0.5 + w) * bin + (static_cast<double>(peak) + 0.5) * bin);
    }
  return 0.0;
}

TEST(SupernovaFeedback, IsolatedSupernovaFollowsTheSedovTaylorRadius) {
  // Kinetic feedback (f_w > 0), half the energy as the blast's velocity field, rbubble = 0.06 box.
  driver::Simulation<3> sim(core::ParameterSet::from_text(feedback_namelist(5, 6, "f_w=1.0\nrbubble=0.06\nf_ek=0.5", false), "sn.nml"));
  sim.initialise();
  auto& module = feedback_of(sim);
  EXPECT_NEAR(module.blast_radius(), 0.06, 1e-15);
  feedback::SupernovaEvent event;
  event.position = {0.5, 0.5, 0.5};
  event.energy = 1.0;
  event.ejected_mass = 1e-3;
  event.identity = 1;
  const std::vector<feedback::SupernovaEvent> events{event};
  module.add_supernova_events(5, events);
  sim.advance(1e-7);  // the event is injected at the end of this coarse step
  const double t0 = sim.time();
  ASSERT_EQ(module.last_injection().events, 1);
  const test_support::SedovTaylor exact(3, kGamma, 1.0, event.energy);
  // R = 1.15 (E t^2 / rho)^(1/5) for gamma = 5/3.
  EXPECT_NEAR(exact.xi0(), 1.15, 0.005);
  for (double t : {0.01, 0.03}) {
    test::advance_to(sim, t0 + t);
    const double r = shock_radius(test::leaf_cells(sim), sim.tree().cell_size(6));
    const double r_exact = exact.shock_radius(t);
    RecordProperty("shock_radius_" + std::to_string(t), std::to_string(r));
    RecordProperty("exact_radius_" + std::to_string(t), std::to_string(r_exact));
    std::printf("t = %.3f: shock radius %.4f, Sedov-Taylor %.4f (%+.1f %%)\n", t, r, r_exact, 100.0 * (r / r_exact - 1.0));
    EXPECT_NEAR(r / r_exact, 1.0, 0.05) << "t = " << t;
  }
}

// Totals before and after one tiny step in which `events` are injected.
void check_conservation(const std::string& feedback) {
  SCOPED_TRACE(feedback);
  driver::Simulation<3> sim(core::ParameterSet::from_text(feedback_namelist(4, 6, feedback, true), "sn.nml"));
  sim.initialise();
  const auto events = test_support::scattered_supernovae(40, 0.05, 1e-3);
  double mass = 0.0, energy = 0.0;
  std::array<double, 3> momentum{};
  for (const auto& e : events) {
    mass += e.ejected_mass;
    double v2 = 0.0;
    for (int d = 0; d < 3; ++d) {
      momentum[d] += e.ejected_mass * e.velocity[d];
      v2 += e.velocity[d] * e.velocity[d];
    }
    energy += e.energy + 0.5 * e.ejected_mass * v2;
  }
  const auto before = sim.totals();
  feedback_of(sim).add_supernova_events(4, events);
  sim.advance(1e-9);
  const auto after = sim.totals();
  EXPECT_EQ(feedback_of(sim).last_injection().events, 40);
  EXPECT_NEAR(after[0] - before[0], mass, 1e-13 * before[0]);
  for (int d = 0; d < 3; ++d) EXPECT_NEAR(after[1 + d] - before[1 + d], momentum[d], 1e-13 * before[0]) << "axis " << d;
  EXPECT_NEAR(after[4] - before[4], energy, 1e-12 * after[4]);
}

TEST(SupernovaFeedback, InjectionAddsTheEventsMassMomentumAndEnergy) {
  check_conservation("f_w=1.0\nrbubble=0.05\nf_ek=0.7");
  check_conservation("f_w=1.0\nf_ek=1.0");  // rbubble = 0: two finest cells
  check_conservation("f_w=0.0");            // thermal: into the host cell
}

// Every conservative variable of every leaf cell, in the tree's order.
std::vector<double> leaf_state(driver::Simulation<3>& sim) {
  using Tree = core::OctTree<3>;
  std::vector<double> state;
  for (int l = 1; l <= sim.tree().levelmax(); ++l)
    for (core::OctIndex o : sim.tree().octs_at_level(l))
      for (int c = 0; c < Tree::cells_per_oct; ++c)
        for (int f : sim.hydro().uold_fields()) state.push_back(sim.tree().field(f)[Tree::cell_index(o, c)]);
  return state;
}

std::vector<double> state_after_injection(const std::string& feedback, int threads, int events = 300) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  driver::Simulation<3> sim(core::ParameterSet::from_text(feedback_namelist(4, 6, feedback, true), "sn.nml"));
  sim.initialise();
  if (events > 0) feedback_of(sim).add_supernova_events(4, test_support::scattered_supernovae(events, 0.05, 1e-3));
  sim.advance(1e-9);
  auto state = leaf_state(sim);
  omp_set_num_threads(saved);
  return state;
}

TEST(SupernovaFeedback, BinningGivesTheAllPairsResultBitForBitOnAnyThreadCount) {
  const auto binned = state_after_injection("f_w=1.0\nrbubble=0.04\nsn_binning=.true.", 2);
  const auto brute = state_after_injection("f_w=1.0\nrbubble=0.04\nsn_binning=.false.", 2);
  const auto one_thread = state_after_injection("f_w=1.0\nrbubble=0.04\nsn_binning=.true.", 1);
  const auto without = state_after_injection("f_w=1.0\nrbubble=0.04", 1, 0);
  ASSERT_EQ(binned.size(), brute.size());
  ASSERT_EQ(binned.size(), one_thread.size());
  EXPECT_EQ(std::memcmp(binned.data(), brute.data(), binned.size() * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(binned.data(), one_thread.data(), binned.size() * sizeof(double)), 0);
  // ... and the injection did change the gas (the comparison is not between two untouched states).
  ASSERT_EQ(binned.size(), without.size());
  EXPECT_NE(std::memcmp(binned.data(), without.data(), binned.size() * sizeof(double)), 0);
}

}  // namespace
