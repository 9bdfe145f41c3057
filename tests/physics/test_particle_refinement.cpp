// The particles' m_refine criterion is RAMSES' (pm/rho_fine.f90 cic_amr, amr/flag_utils.f90
// poisson_refine): a cell of level l refines when the cloud-in-cell count of the particles at level
// l and finer reaches m_refine, a dark-matter particle counting one whatever its mass. Three
// clusters in a periodic 8^3 box, m_refine = 1.5:
//  - two particles at the centre of a cell: count 2 in that cell, it refines;
//  - two particles just inside a cell's corner: their clouds spread 1/8 over eight cells (count
//    0.25 each), nothing refines (nearest-grid-point counting would put both in one cell: 2);
//  - one particle of mass 5 at a cell centre: count 1 (mass / mass_sph would be 5), no refinement.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "core/parameters.hpp"
#include "driver/simulation.hpp"

using namespace kosmo;

namespace {

particles::ParticleSet<3>::Particle at_rest(double x, double y, double z, double m, std::int64_t id) {
  particles::ParticleSet<3>::Particle p;
  p.position = {x, y, z};
  p.mass = m;
  p.id = id;
  return p;
}

// Whether the level-3 cell with integer coordinates c has a son after the initial refinement.
bool refined(const driver::Simulation<3>& sim, std::array<std::int64_t, 3> c) {
  const core::CellIndex cell = sim.tree().find_cell(3, c);
  EXPECT_NE(cell, core::no_cell);
  return cell != core::no_cell && !sim.tree().is_leaf(cell);
}

}  // namespace

TEST(ParticleRefinement, CountsCloudInCellNumberAsRamses) {
  const std::string namelist =
      "&RUN_PARAMS\npic=.true.\npoisson=.true.\n/\n&AMR_PARAMS\nlevelmin=3\nlevelmax=4\n/\n"
      "&REFINE_PARAMS\nm_refine=2*1.5\nmass_sph=1.0\n/\n";
  driver::Simulation<3> sim(core::ParameterSet::from_text(namelist, "particle_refinement.nml"));
  const double h = 1.0 / 8.0;
  const double corner = 5.0 * h + 1e-9;  // inside cell (5, 5, 5), a hair from its lower corner
  particles::ParticleSet<3> bodies;
  bodies.add(at_rest(1.5 * h, 1.5 * h, 1.5 * h, 1.0, 1));
  bodies.add(at_rest(1.5 * h, 1.5 * h, 1.5 * h, 1.0, 2));
  bodies.add(at_rest(corner, corner, corner, 1.0, 3));
  bodies.add(at_rest(corner, corner, corner, 1.0, 4));
  bodies.add(at_rest(6.5 * h, 1.5 * h, 4.5 * h, 5.0, 5));
  sim.set_initial_particles(std::move(bodies));
  sim.initialise();
  EXPECT_TRUE(refined(sim, {1, 1, 1}));
  // Nearest grid point would count both corner particles in this cell and refine it.
  EXPECT_FALSE(refined(sim, {5, 5, 5}));
  for (std::int64_t x : {4, 5})
    for (std::int64_t y : {4, 5})
      for (std::int64_t z : {4, 5}) EXPECT_FALSE(refined(sim, {x, y, z}));
  // A mass criterion (m / mass_sph = 5) would refine it.
  EXPECT_FALSE(refined(sim, {6, 1, 4}));
  // The first cluster's cell alone, with its nexpand = 1 buffer of 3^3 cells: one level-4 oct per cell.
  EXPECT_EQ(sim.tree().octs_at_level(4).size(), 27u);
}
