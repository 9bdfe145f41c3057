// Delayed cooling (&FEEDBACK_PARAMS delayed_cooling, t_diss; RAMSES feedbk's idelay scalar and
// cooling_fine's switch; docs/galaxy.md "Supernova feedback"): a thermal supernova in dense gas
// that would radiate its energy within a few steps keeps it while its ejecta scalar holds; the
// scalar's total decays as exp(-t / t_diss) exactly; gas mass and the energy books are conserved as
// without the switch; one rank and several give the same cells bit for bit.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cooling/cooling_module.hpp"
#include "core/parameters.hpp"
#include "distributed_test_support.hpp"
#include "driver/simulation.hpp"
#include "feedback/feedback_module.hpp"
#include "world.hpp"

using namespace kosmo;
using namespace kosmo::test;

namespace {

// Code units as the cooling test's: density 1 = n_H 1 cm^-3, length 100 pc, velocity 100 km/s, time
// 3.0857e13 s (0.978 Myr), energy 6.42e51 erg, mass 3.2e4 solar masses. Uniform gas at n_H = 1000
// and T2 = 5000 K (p / rho = 5000 / 1.2e6), primordial cooling without a UV background: the
// background barely cools, while the event of a star particle (1e52 erg and 500 solar masses of
// ejecta, RAMSES feedbk's eta_sn m_star) heats its 6.25 pc host cell of 7800 solar masses to
// ~3e6 K, which radiates in ~1 kyr, much less than a step (~14 kyr). The ejecta are 6 % of the host
// cell's gas, so the switch (1e-3) also holds in the 27 cells around it once they have spread.
constexpr double kUnitTimeSeconds = 3.0857e13;
constexpr double kTDissMyr = 0.1;

std::string namelist(bool delayed) {
  return std::string("&RUN_PARAMS\nhydro=.true.\nndim=3\n/\n&AMR_PARAMS\nlevelmin=4\nlevelmax=4\n/\n"
                     "&INIT_PARAMS\nnregion=1\nregion_type='square'\nx_center=0.5\ny_center=0.5\nz_center=0.5\n"
                     "length_x=10.0\nlength_y=10.0\nlength_z=10.0\nexp_region=10.0\nd_region=1000.0\np_region=4.166667\n/\n"
                     "&HYDRO_PARAMS\ngamma=1.6666667\ncourant_factor=0.6\nslope_type=1\nriemann='hllc'\n/\n"
                     "&UNITS_PARAMS\nunits_density=2.1842105e-24\nunits_length=3.0857e20\nunits_time=3.0857e13\n/\n"
                     "&COOLING_PARAMS\ncooling=.true.\nhaardt_madau=.false.\n/\n"
                     "&FEEDBACK_PARAMS\ndelayed_cooling=") +
         (delayed ? ".true." : ".false.") + "\nt_diss=0.1\n/\n";
}

struct RunResult {
  std::vector<Cell> cells;  // on rank 0
  std::vector<double> initial, final;
  std::vector<double> scalar_mass, scalar_time;  // the delayed-cooling scalar's total after each step
  double injected_energy = 0.0, ejected_mass = 0.0, radiated = 0.0, heated = 0.0;
};

RunResult run(bool delayed, MPI_Comm comm) {
  driver::Simulation<3> sim(core::ParameterSet::from_text(namelist(delayed), "delayed_cooling.nml"), comm);
  sim.initialise();
  RunResult result;
  result.initial = sim.totals();
  feedback::SupernovaEvent event;
  event.position = {0.53, 0.47, 0.51};
  event.ejected_mass = 500.0 / 3.2e4;  // 500 solar masses in code mass units (6.42e37 g)
  event.energy = 10.0 / 6.42;          // 1e52 erg
  event.identity = 7;
  std::vector<feedback::SupernovaEvent> mine;
  if (sim.mesh().owner_of_position({event.position[0], event.position[1], event.position[2]}) == sim.mesh().rank()) mine.push_back(event);
  auto* module = sim.find_module<feedback::FeedbackModule<3>>();
  module->add_supernova_events(4, mine);
  // The injection comes at the end of the first step, after that step's cooling.
  sim.advance(1e-4);
  result.injected_energy = module->last_injection().energy;
  result.ejected_mass = module->last_injection().mass;
  for (int s = 0; s < 8; ++s) {
    if (delayed) {
      result.scalar_mass.push_back(sim.totals()[5]);
      result.scalar_time.push_back(sim.time());
    }
    sim.advance(sim.courant_time_step());
  }
  result.final = sim.totals();
  const auto* cooling = sim.find_module<cooling::CoolingModule<3>>();
  result.radiated = cooling->radiated_energy();
  result.heated = cooling->heating_energy();
  result.cells = gather_sorted(owned_leaves(sim), 4 + sim.hydro().nvar(), comm);
  return result;
}

TEST(DelayedCooling, SupernovaKeepsItsEnergyTheScalarDecaysAsExpMinusTOverTDissAndRanksAgree) {
  const RunResult held = run(true, MPI_COMM_WORLD);
  const RunResult free = run(false, MPI_COMM_WORLD);
  ASSERT_EQ(held.initial.size(), 6u);  // mass, momenta, energy, the delayed-cooling scalar
  ASSERT_EQ(free.initial.size(), 5u);  // no scalar without the switch
  // Conservation as without the switch: the gas gained exactly the ejecta, and the change of total
  // energy is the supernova plus the cooling module's heating minus its radiation.
  for (const RunResult* r : {&held, &free}) {
    EXPECT_NEAR(r->final[0], r->initial[0] + r->ejected_mass, 1e-13 * r->initial[0]);
    EXPECT_NEAR(r->final[4] - r->initial[4], r->injected_energy + r->heated - r->radiated, 1e-9 * r->initial[4]);
  }
  // The scalar received the ejecta and decays on t_diss: advection conserves its total, the
  // cooling step multiplies it by exp(-dt / t_diss) in every cell.
  const double tau = kTDissMyr * 3.15576e13 / kUnitTimeSeconds;
  EXPECT_NEAR(held.scalar_mass[0], held.ejected_mass, 1e-13 * held.ejected_mass);
  for (std::size_t k = 1; k < held.scalar_mass.size(); ++k) {
    const double expected = held.scalar_mass[0] * std::exp(-(held.scalar_time[k] - held.scalar_time[0]) / tau);
    EXPECT_NEAR(held.scalar_mass[k], expected, 1e-11 * held.scalar_mass[0]) << "after step " << k;
  }
  // Quantified effect: the energy the supernova region lost to radiation, with and without the switch.
  const double lost_held = held.radiated - held.heated, lost_free = free.radiated - free.heated;
  if (world_rank() == 0)
    std::printf("  delayed cooling: supernova %.4e, radiated net %.4e with the switch, %.4e without (%.1f%% vs %.1f%%); scalar at "
                "t = %.3f: %.4f of the ejecta (exp(-t/t_diss) = %.4f)\n",
                held.injected_energy, lost_held, lost_free, 100.0 * lost_held / held.injected_energy, 100.0 * lost_free / free.injected_energy,
                held.scalar_time.back() - held.scalar_time[0], held.scalar_mass.back() / held.scalar_mass[0],
                std::exp(-(held.scalar_time.back() - held.scalar_time[0]) / tau));
  // Measured (8 steps, 42 kyr): 98 % radiated without the switch, 49 % with it.
  EXPECT_GT(lost_free, 0.9 * free.injected_energy);  // without the switch the blast overcools
  EXPECT_LT(lost_held, 0.65 * lost_free);            // with it, it keeps much more
  EXPECT_GT(held.final[4] - free.final[4], 0.35 * held.injected_energy);
  // Rank 0 alone gives the same cells, bit for bit.
  RunResult reference;
  if (world_rank() == 0) reference = run(true, MPI_COMM_SELF);
  if (world_rank() != 0) return;
  ASSERT_EQ(held.cells.size(), reference.cells.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < reference.cells.size(); ++i)
    if (reference.cells[i] != held.cells[i]) ++differing;
  EXPECT_EQ(differing, 0u) << "cells differ from the one-rank run";
}

}  // namespace
