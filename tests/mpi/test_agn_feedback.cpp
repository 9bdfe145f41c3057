// AGN feedback through the run (sinks/agn_feedback_module.hpp, docs/galaxy.md "AGN feedback") on
// 1..P ranks:
//  * sinks with energy in their reservoirs, on an AMR mesh, some across the k-section walls and the
//    periodic corner: one release heats the gas by exactly the energy the reservoirs give up (to
//    round-off), leaves mass and momentum alone, and the leaf cells and reservoirs are the same bits
//    as the one-rank run's, with the binning and with the all-pairs scan (agn_binning=.false.);
//  * a sink accreting by Bondi heats its surroundings: the accreted mass times k_B T2_AGN / m_H is
//    what it released plus what its reservoir holds, and the gas of its zone ends hotter than in the
//    same run without AGN feedback.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "distributed_test_support.hpp"
#include "sinks/agn_feedback_module.hpp"
#include "sinks/sink_module.hpp"
#include "world.hpp"

using namespace kosmo;
using namespace kosmo::test;

namespace {

using Sim = driver::Simulation<3>;

std::string refined_box(const std::string& sink_keys) {
  return "&RUN_PARAMS\nhydro=.true.\nsink=.true.\nndim=3\n/\n&AMR_PARAMS\nlevelmin=4\nlevelmax=5\n/\n"
         "&INIT_PARAMS\nnregion=2\nregion_type='square','square'\nx_center=0.5,0.3\ny_center=0.5,0.6\nz_center=0.5,0.4\n"
         "length_x=10.0,0.3\nlength_y=10.0,0.3\nlength_z=10.0,0.3\nexp_region=10.0,2.0\nd_region=1.0,10.0\np_region=1e-5,1e-5\n/\n"
         "&HYDRO_PARAMS\ngamma=1.6666666666666667\ncourant_factor=0.8\n/\n"
         "&REFINE_PARAMS\nerr_grad_d=0.1\ninterpol_type=2\n/\n"
         "&SINK_PARAMS\nagn=.true.\nt2_min=0\nagn_fbk_mode_switch_threshold=0\nir_cloud=2\n" + sink_keys + "\n/\n";
}

struct Release {
  std::vector<Cell> cells;  // on rank 0
  std::vector<double> before, after, reservoirs;
  double released = 0.0;
  long long active = 0;
};

Release release_once(const std::string& sink_keys, MPI_Comm comm) {
  const core::ParameterSet params = core::ParameterSet::from_text(refined_box(sink_keys), "agn.nml");  // the modules keep a reference
  Sim sim(params, comm);
  sim.initialise();
  auto* sinks = sim.find_module<sinks::SinkModule<3>>();
  // Across the dense region's refined edge, the box corner and the middle (the walls of 2-4 ranks).
  const std::vector<std::array<double, 3>> places{{0.15, 0.45, 0.25}, {0.31, 0.6, 0.4},  {0.45, 0.75, 0.55}, {0.01, 0.99, 0.02},
                                                  {0.5, 0.5, 0.5},    {0.49, 0.51, 0.5}, {0.75, 0.25, 0.6},  {0.999, 0.5, 0.001}};
  for (std::size_t i = 0; i < places.size(); ++i) {
    const std::size_t s = sinks->add_sink(places[i], {0.0, 0.0, 0.0}, 0.01, sim.time());
    sinks->agn_reservoirs()[s] = 1e-3 * static_cast<double>(i + 1);
  }
  auto* agn = sim.find_module<sinks::AgnFeedbackModule<3>>();
  Release result;
  result.before = sim.totals();
  agn->release_reservoirs(sim.time());
  result.after = sim.totals();
  result.released = agn->last_release().released;
  result.active = agn->last_release().active;
  const auto reservoirs = sinks->agn_reservoirs();
  result.reservoirs.assign(reservoirs.begin(), reservoirs.end());
  result.cells = gather_sorted(owned_leaves(sim), 4 + sim.hydro().nvar(), comm);
  return result;
}

void check_release(const Release& reference, const std::string& sink_keys) {
  SCOPED_TRACE(sink_keys + ", ranks=" + std::to_string(world_size()));
  const Release distributed = release_once(sink_keys, MPI_COMM_WORLD);
  // Every sink released its whole reservoir (t2_min = 0, far below the T2_max cap); the gas gained
  // exactly that as heat (totals: mass, momentum x y z, energy).
  EXPECT_EQ(distributed.active, 8);
  EXPECT_NEAR(distributed.released, 1e-3 * 36.0, 1e-15);
  EXPECT_NEAR(distributed.after[4] - distributed.before[4], distributed.released, 1e-12 * distributed.released);
  for (int v = 0; v < 4; ++v) EXPECT_NEAR(distributed.after[v], distributed.before[v], 1e-15 * std::max(1.0, std::fabs(distributed.before[0])));
  for (double r : distributed.reservoirs) EXPECT_EQ(r, 0.0);
  if (world_rank() != 0) return;
  ASSERT_EQ(distributed.cells.size(), reference.cells.size());
  std::size_t different = 0;
  for (std::size_t i = 0; i < reference.cells.size(); ++i) {
    const Cell& a = reference.cells[i];
    const Cell& b = distributed.cells[i];
    ASSERT_TRUE(std::equal(a.begin(), a.begin() + 4, b.begin())) << "leaf cells at different places";
    if (std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) != 0) ++different;
  }
  EXPECT_EQ(different, 0U) << "leaf cells differing from the one-rank binned run";
  std::printf("  %s on %d ranks: %zu leaf cells, %zu differ from one rank\n", sink_keys.c_str(), world_size(), reference.cells.size(), different);
}

TEST(AgnFeedback, ReleaseHeatsByTheReservoirsAndEqualsTheOneRankRunBinnedOrNot) {
  Release reference;
  if (world_rank() == 0) reference = release_once("", MPI_COMM_SELF);  // binned, one rank
  check_release(reference, "agn_binning=.true.");
  check_release(reference, "agn_binning=.false.");
}

// Uniform gas rho = 1, p / rho = 0.6 (gamma 5/3) in a periodic 16^3 box, a sink of mass 0.01 at the
// centre accreting by Bondi; ir_cloud = 2 (r_AGN = 0.125).
std::string bondi_box(bool agn) {
  return std::string("&RUN_PARAMS\nhydro=.true.\nsink=.true.\nndim=3\n/\n&AMR_PARAMS\nlevelmin=4\nlevelmax=4\n/\n"
                     "&INIT_PARAMS\nnregion=1\nregion_type(1)='square'\nx_center=0.5\ny_center=0.5\nz_center=0.5\n"
                     "length_x=10.0\nlength_y=10.0\nlength_z=10.0\nexp_region=10.0\nd_region=1.0\np_region=0.6\n/\n"
                     "&HYDRO_PARAMS\ngamma=1.6666666666666667\ncourant_factor=0.8\n/\n"
                     "&SINK_PARAMS\naccretion_scheme='bondi'\nir_cloud=2\nagn=") +
         (agn ? ".true." : ".false.") + "\nt2_min=0\nagn_fbk_mode_switch_threshold=0\nt2_agn=1e-7\n/\n";
}

struct Heating {
  double accreted = 0.0, released = 0.0, reservoir = 0.0, zone_thermal = 0.0;
};

Heating accrete_and_heat(bool agn, MPI_Comm comm) {
  const core::ParameterSet params = core::ParameterSet::from_text(bondi_box(agn), "agn_bondi.nml");
  Sim sim(params, comm);
  sim.initialise();
  auto* sinks = sim.find_module<sinks::SinkModule<3>>();
  sinks->add_sink({0.5, 0.5, 0.5}, {0.0, 0.0, 0.0}, 0.01, sim.time());
  for (int step = 0; step < 4; ++step) sim.advance(sim.courant_time_step());
  Heating h;
  h.accreted = sinks->sinks().values<double>("accreted_mass")[0];
  h.reservoir = sinks->agn_reservoirs()[0];
  if (agn) h.released = sim.find_module<sinks::AgnFeedbackModule<3>>()->released_since_start().released;
  // Thermal energy of the zone's cells (centres within 0.125 of the sink), summed over ranks.
  const auto& tree = sim.tree();
  const int rho = tree.fields().find("density"), energy = tree.fields().find("total_energy");
  double local = 0.0;
  for (core::OctIndex o : tree.octs_at_level(4))
    for (int c = 0; c < 8; ++c) {
      const core::CellIndex cell = Sim::Tree::cell_index(o, c);
      const auto x = tree.cell_centre(cell);
      double r2 = 0.0;
      for (int d = 0; d < 3; ++d) r2 += (x[d] - 0.5) * (x[d] - 0.5);
      if (r2 >= 0.125 * 0.125) continue;
      double kinetic = 0.0;
      for (int d = 0; d < 3; ++d) {
        const double p = tree.field(tree.fields().find(std::string("momentum_") + "xyz"[d]))[cell];
        kinetic += 0.5 * p * p / tree.field(rho)[cell];
      }
      local += (tree.field(energy)[cell] - kinetic) * std::pow(tree.cell_size(4), 3);
    }
  MPI_Allreduce(&local, &h.zone_thermal, 1, MPI_DOUBLE, MPI_SUM, comm);
  return h;
}

TEST(AgnFeedback, AccretingSinkHeatsItsSurroundings) {
  const Heating with = accrete_and_heat(true, MPI_COMM_WORLD);
  const Heating without = accrete_and_heat(false, MPI_COMM_WORLD);
  // Default units (1 cm, 1 g/cm^3, 1 s): scale_T2 = m_H / k_B = 1.2027e-8 K, so T2_AGN = 1e-7 K is
  // an energy of 8.31 per accreted mass.
  const double per_mass = 1e-7 / (1.6605390e-24 / 1.3806490e-16);
  ASSERT_GT(with.accreted, 0.0);
  EXPECT_GT(with.released, 0.0);
  EXPECT_NEAR(with.released + with.reservoir, with.accreted * per_mass, 1e-12 * with.accreted * per_mass);
  // Part of the heat released over the four steps is still in the zone (the rest has spread beyond it).
  EXPECT_GT(with.zone_thermal, without.zone_thermal + 0.25 * with.released);
  std::printf("  accreted %.6e, released %.6e, reservoir %.3e, zone thermal energy %.6e (without AGN %.6e)\n", with.accreted,
              with.released, with.reservoir, with.zone_thermal, without.zone_thermal);
}

}  // namespace
