// Supernova feedback on several ranks (seeds/000 §6): events whose blasts cross the k-section walls
// and the periodic faces reach every rank they overlap, the average_SN budgets are summed in the
// order of a one-rank sweep, so the gas after the injection and a few more steps equals the
// one-rank run's (docs/galaxy.md "Supernova feedback").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "distributed_test_support.hpp"
#include "feedback/feedback_module.hpp"
#include "../support/supernova_events.hpp"
#include "world.hpp"

using namespace kosmo;
using namespace kosmo::test;

namespace {

std::string namelist(const std::string& feedback) {
  return "&RUN_PARAMS\nhydro=.true.\nndim=3\n/\n&AMR_PARAMS\nlevelmin=4\nlevelmax=5\n/\n"
         "&INIT_PARAMS\nnregion=2\nregion_type='square','square'\nx_center=0.5,0.3\ny_center=0.5,0.6\nz_center=0.5,0.4\n"
         "length_x=10.0,0.3\nlength_y=10.0,0.3\nlength_z=10.0,0.3\nexp_region=10.0,2.0\nd_region=1.0,10.0\np_region=1e-5,1e-5\n/\n"
         "&HYDRO_PARAMS\ngamma=1.6666666666666667\ncourant_factor=0.8\nslope_type=2\nriemann='hllc'\n/\n"
         "&REFINE_PARAMS\nerr_grad_p=0.1\nerr_grad_d=0.1\ninterpol_type=2\n/\n"
         "&UNITS_PARAMS\nunits_length=3.0856775814913673e18\n/\n&FEEDBACK_PARAMS\n" + feedback + "\n/\n";
}

struct Result {
  std::vector<Cell> cells;  // on rank 0
  std::vector<double> before, after;
};

// Each rank hands the feedback the events of the stars it would own (the producer's side), the
// first coarse step injects them, then the blasts evolve for two more steps.
Result run(const std::string& feedback, MPI_Comm comm) {
  driver::Simulation<3> sim(core::ParameterSet::from_text(namelist(feedback), "feedback_ranks.nml"), comm);
  sim.initialise();
  std::vector<feedback::SupernovaEvent> mine;
  for (const auto& e : test_support::scattered_supernovae(60, 0.05, 1e-3))
    if (sim.mesh().owner_of_position({e.position[0], e.position[1], e.position[2]}) == sim.mesh().rank()) mine.push_back(e);
  Result result;
  result.before = sim.totals();
  sim.find_module<feedback::FeedbackModule<3>>()->add_supernova_events(4, mine);
  sim.advance(1e-6);
  result.after = sim.totals();
  for (int s = 0; s < 2; ++s) sim.advance(sim.courant_time_step());
  result.cells = gather_sorted(owned_leaves(sim), 4 + sim.hydro().nvar(), comm);
  return result;
}

void check(const std::string& feedback) {
  SCOPED_TRACE(feedback + ", ranks=" + std::to_string(world_size()));
  Result reference;
  if (world_rank() == 0) reference = run(feedback, MPI_COMM_SELF);
  const Result distributed = run(feedback, MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  // The injection itself: the same totals on every rank count (to the round-off of the sums over
  // ranks, which group the cells differently).
  const double scale = std::max(std::fabs(reference.after[0]), std::fabs(reference.after[4]));
  for (std::size_t v = 0; v < 5; ++v)
    EXPECT_NEAR(distributed.after[v] - distributed.before[v], reference.after[v] - reference.before[v], 1e-12 * scale)
        << "total " << v;
  ASSERT_EQ(distributed.cells.size(), reference.cells.size());
  // Relative in the max norm over cells, variable by variable.
  const std::size_t width = reference.cells.front().size();
  std::vector<double> norm(width, 1e-300), difference(width, 0.0);
  for (std::size_t i = 0; i < reference.cells.size(); ++i) {
    const Cell& a = reference.cells[i];
    const Cell& b = distributed.cells[i];
    ASSERT_TRUE(std::equal(a.begin(), a.begin() + 4, b.begin())) << "leaf cells at different places";
    for (std::size_t v = 4; v < width; ++v) {
      norm[v] = std::max(norm[v], std::fabs(a[v]));
      difference[v] = std::max(difference[v], std::fabs(a[v] - b[v]));
    }
  }
  double worst = 0.0;
  for (std::size_t v = 4; v < width; ++v) worst = std::max(worst, difference[v] / norm[v]);
  std::printf("  %s on %d ranks: %zu leaf cells, max relative difference to one rank %.3e\n", feedback.c_str(), world_size(),
              reference.cells.size(), worst);
  EXPECT_LE(worst, 1e-12);
}

TEST(SupernovaFeedbackRanks, KineticBlastsAcrossWallsEqualTheOneRankRun) { check("f_w=1.0\nrbubble=0.08\nf_ek=0.5"); }

TEST(SupernovaFeedbackRanks, ThermalFeedbackEqualsTheOneRankRun) { check("f_w=0.0"); }

}  // namespace
