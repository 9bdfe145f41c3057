// AGN feedback's kernels (sinks/agn_kernels.hpp, docs/galaxy.md "AGN feedback"): the binned search
// of the supernova feedback finds exactly the all-pairs scan's (cell, AGN image) pairs in the same
// order, so average_AGN's per-AGN sums and AGN_blast's gas come out bit for bit the same, on an AMR
// mesh (the benchmark's cell set, smaller) with AGN zones wrapping around the periodic box, on 1
// and 2 threads; and one AGN's release (agn_release) follows RAMSES' rules: the heat equals the
// energy taken from the reservoir, T2_max caps it and keeps the rest, T2_min holds it back, the
// Eddington ratio picks the mode.
#include <gtest/gtest.h>
#include <omp.h>

#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "driver/bench_cell_set.hpp"
#include "feedback/supernova_bins.hpp"
#include "sinks/agn_kernels.hpp"
#include "sinks/agn_settings.hpp"

using namespace kosmo;
namespace bench = kosmo::driver::bench;

namespace {

struct AgnCase {
  bench::Tree tree;
  feedback::GasFields fields;
  std::vector<feedback::SupernovaEvent> agn;
  double radius = 0.0;
  feedback::LeafCells cells;
  std::vector<feedback::BlastImage> images;
};

// Levels 4 to 7 around 6 galaxies, one at the box corner; 40 AGN in each level-7 sphere (whose
// radius is about the AGN radius, so zones overlap and wrap), and gas of varying density, velocity
// and energy so that every sum depends on which cells enter it.
AgnCase make_setup() {
  bench::Random random;
  std::vector<std::array<double, 3>> galaxies = bench::random_galaxies(random, 5);
  galaxies.push_back({0.995, 0.003, 0.998});
  const bench::CellSetRecipe recipe{4, 7, {0.12, 0.07, 0.04}};
  AgnCase s{bench::make_mesh(recipe, galaxies), {}, {}, 0.0, {}, {}};
  s.fields = bench::add_gas(s.tree);
  const std::size_t n = s.tree.oct_capacity() * bench::Tree::cells_per_oct;
  for (std::size_t c = 0; c < n; ++c) {
    s.tree.field(s.fields.density)[c] = 0.5 + random();
    for (int d = 0; d < 3; ++d) s.tree.field(s.fields.momentum[d])[c] = random() - 0.5;
    s.tree.field(s.fields.energy)[c] = 2.0 + random();
  }
  for (int i = 0; i < 240; ++i) {
    feedback::SupernovaEvent e;
    e.position = bench::point_in_sphere(random, galaxies[static_cast<std::size_t>(i % 6)], recipe.region_radius.back());
    e.energy = 1e-3 * (1.0 + random());
    e.identity = i;
    s.agn.push_back(e);
  }
  s.radius = 4.0 * s.tree.cell_size(recipe.levelmax);
  s.cells = feedback::owned_leaf_cells(s.tree, recipe.levelmin);
  s.images = feedback::blast_images(s.tree, s.agn, {0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, s.radius);
  return s;
}

std::vector<double> gas_state(const AgnCase& s) {
  std::vector<double> state;
  for (int f : {s.fields.momentum[0], s.fields.momentum[1], s.fields.momentum[2], s.fields.energy})
    for (core::CellIndex c : s.cells.cell) state.push_back(s.tree.field(f)[c]);
  return state;
}

TEST(AgnSearch, BinnedEqualsAllPairsBitForBit) {
  AgnCase s = make_setup();
  const feedback::SupernovaBins bins({-s.radius, -s.radius, -s.radius}, {1.0 + s.radius, 1.0 + s.radius, 1.0 + s.radius}, s.radius,
                                     s.images);
  const auto brute_pairs = sinks::average_agn(s.cells, s.images, nullptr, s.radius);
  const auto brute = sinks::sum_agn_budgets(s.tree, s.fields, s.cells, s.images, brute_pairs, s.agn.size());
  // Some zones wrap: images other than the AGN itself hold cells.
  std::size_t wrapped = 0;
  for (const auto& p : brute_pairs) wrapped += s.images[static_cast<std::size_t>(p.image)].image != 13 ? 1 : 0;
  EXPECT_GT(wrapped, 100U);
  EXPECT_GT(brute_pairs.size(), 240U * 100U);
  // Momentum and heat, half the AGN by volume and half by mass.
  std::vector<sinks::AgnInjection> injections(s.agn.size());
  for (std::size_t i = 0; i < s.agn.size(); ++i) {
    sinks::AgnSettings settings;
    settings.t2_min = 0.0;
    settings.mode_switch_threshold = 0.0;
    settings.thermal_fraction = 0.7;
    settings.momentum_fraction = 0.3;
    settings.inject_by_mass = i % 2 == 1;
    injections[i] = sinks::agn_release(settings, brute[i], s.agn[i].energy, 0.0, 1.0, 1e9).injection;
  }
  const std::vector<double> start = gas_state(s);
  sinks::agn_blast(s.tree, s.fields, s.cells, s.images, nullptr, s.radius, injections);
  const std::vector<double> brute_gas = gas_state(s);
  EXPECT_NE(std::memcmp(start.data(), brute_gas.data(), start.size() * sizeof(double)), 0);
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    omp_set_num_threads(threads);
    // Back to the gas before the all-pairs injection.
    std::size_t k = 0;
    for (int f : {s.fields.momentum[0], s.fields.momentum[1], s.fields.momentum[2], s.fields.energy})
      for (core::CellIndex c : s.cells.cell) s.tree.field(f)[c] = start[k++];
    const auto pairs = sinks::average_agn(s.cells, s.images, &bins, s.radius);
    ASSERT_EQ(pairs.size(), brute_pairs.size());
    EXPECT_EQ(std::memcmp(pairs.data(), brute_pairs.data(), pairs.size() * sizeof(pairs[0])), 0);
    const auto budgets = sinks::sum_agn_budgets(s.tree, s.fields, s.cells, s.images, pairs, s.agn.size());
    EXPECT_EQ(std::memcmp(budgets.data(), brute.data(), budgets.size() * sizeof(budgets[0])), 0);
    // The records for reduce_budgets sum to the same bits.
    const auto records = sinks::agn_budget_records(s.tree, s.fields, s.cells, s.images, pairs);
    const auto from_records = feedback::sum_budgets(records, s.agn.size());
    EXPECT_EQ(std::memcmp(from_records.data(), brute.data(), brute.size() * sizeof(brute[0])), 0);
    sinks::agn_blast(s.tree, s.fields, s.cells, s.images, &bins, s.radius, injections);
    const std::vector<double> gas = gas_state(s);
    EXPECT_EQ(std::memcmp(gas.data(), brute_gas.data(), gas.size() * sizeof(double)), 0);
  }
  omp_set_num_threads(omp_get_num_procs());
}

TEST(AgnSearch, ThermalInjectionEqualsTheReleasedEnergy) {
  AgnCase s = make_setup();
  const auto pairs = sinks::average_agn(s.cells, s.images, nullptr, s.radius);
  const auto budgets = sinks::sum_agn_budgets(s.tree, s.fields, s.cells, s.images, pairs, s.agn.size());
  sinks::AgnSettings settings;
  settings.t2_min = 0.0;
  settings.mode_switch_threshold = 0.0;
  double released = 0.0;
  std::vector<sinks::AgnInjection> injections;
  for (std::size_t i = 0; i < s.agn.size(); ++i) {
    settings.inject_by_mass = i % 2 == 0;
    const sinks::AgnRelease r = sinks::agn_release(settings, budgets[i], s.agn[i].energy, 0.0, 1.0, 1.0);
    EXPECT_EQ(r.released, s.agn[i].energy);
    released += r.released;
    injections.push_back(r.injection);
  }
  auto total_energy = [&] {
    double e = 0.0;
    for (std::size_t i = 0; i < s.cells.size(); ++i) e += s.tree.field(s.fields.energy)[s.cells.cell[i]] * s.cells.volume[i];
    return e;
  };
  const double before = total_energy();
  sinks::agn_blast(s.tree, s.fields, s.cells, s.images, nullptr, s.radius, injections);
  EXPECT_NEAR(total_energy() - before, released, 1e-13 * before);
}

TEST(AgnRelease, FollowsRamsesRules) {
  // A zone of volume 2, gas mass 3 and thermal energy 0.3 (p / rho = 0.1 x scale_T2 = 1e6 K / 0.1):
  // T2 of its specific thermal energy, RAMSES' ethermal * scale_T2 = 0.1 * 1e7 = 1e6 K.
  const feedback::BlastBudget zone{2.0, 3.0, 0.3, 0.0, 0.0, 0.0, 0.0};
  const double scale_t2 = 1e7;
  sinks::AgnSettings settings;  // RAMSES' defaults: T2_min 1e7, T2_max 1e9, T2_AGN 1e12, threshold 0.01
  // The reservoir of dM = 3e-6: dM (T2_AGN - T2_min) < M (T2_min - T2_gas) (2.7e7 > 3e6): held back.
  const double small = 3e-6 * settings.t2_agn / scale_t2;
  EXPECT_EQ(sinks::agn_release(settings, zone, small, 1.0, scale_t2, 1.0).released, 0.0);
  // Ten times more reaches T2_min: all of it as heat (Eddington ratio 1 > 0.01), spread by volume.
  const double enough = 30.0 * small;
  const sinks::AgnRelease hot = sinks::agn_release(settings, zone, enough, 1.0, scale_t2, 1.0);
  EXPECT_EQ(hot.released, enough);
  EXPECT_EQ(hot.thermal_energy, enough);
  EXPECT_EQ(hot.momentum, 0.0);
  EXPECT_DOUBLE_EQ(hot.injection.energy_per_volume, enough / 2.0);
  // Above the cap M T2_max / scale_T2 = 300: the heat is the cap, the rest stays in the reservoir.
  const sinks::AgnRelease capped = sinks::agn_release(settings, zone, 1000.0, 1.0, scale_t2, 1.0);
  EXPECT_DOUBLE_EQ(capped.thermal_energy, 300.0);
  EXPECT_DOUBLE_EQ(capped.released, 300.0);
  // Below the Eddington-ratio threshold: momentum kin_mass_loading dM v_AGN, v_AGN = (0.2 / 100)^(1/2) c.
  const sinks::AgnRelease kick = sinks::agn_release(settings, zone, enough, 0.001, scale_t2, 1.0);
  const double accreted = enough * scale_t2 / settings.t2_agn;
  EXPECT_EQ(kick.thermal_energy, 0.0);
  EXPECT_NEAR(kick.momentum, 100.0 * accreted * std::sqrt(0.2 / 100.0) * 2.99792458e10, 1e-9 * kick.momentum);
  EXPECT_EQ(kick.released, enough);
  // No gas in the zone: nothing.
  EXPECT_EQ(sinks::agn_release(settings, feedback::BlastBudget{}, enough, 1.0, scale_t2, 1.0).released, 0.0);
}

}  // namespace
