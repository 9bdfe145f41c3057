#pragma once
// The starting state of a cosmological run (RAMSES cosmo=.true., init_part + init_flow_fine with
// filetype='grafic'): dark-matter particles displaced from the centres of the initial-condition grid's
// cells, and the gas on that grid, in super-comoving code units (cosmology/cosmological_model.hpp), from
//   filetype='grafic':   the single-level grafic files of initfile(1) (MUSIC, grafic2), with the
//                        cosmology of their header and omega_b from &INIT_PARAMS;
//   filetype='gaussian': kosmo's generator (cosmology/initial_conditions.hpp): a Gaussian random
//                        field with the Eisenstein & Hu spectrum normalised to sigma8, Zel'dovich
//                        displacements and growing-mode velocities, seeded by wave vector, so the
//                        same on any number of ranks and threads.
// Every rank builds the whole list (each keeps its own share afterwards); fine for the single-level
// boxes this serves (a 128^3 box is 2.1 M particles).
#include <array>
#include <memory>
#include <vector>

#include "core/parameters.hpp"
#include "core/prolongation.hpp"
#include "cosmology/cosmological_model.hpp"
#include "particles/particle_set.hpp"

namespace kosmo::driver {

struct CosmologicalStart {
  std::shared_ptr<const cosmology::CosmologicalModel> model;
  double aexp = 0.0;
  int n = 0;  // cells per axis of the initial-condition grid: the particle lattice
  particles::ParticleSet<3> particles;
  // Gas primitive state of the n^3 initial-condition cells, x fastest: density, velocity (code
  // units), pressure.
  std::vector<double> density, pressure;
  std::array<std::vector<double>, 3> velocity;
  // How cells finer than the initial-condition grid are filled (&REFINE_PARAMS interpol_type).
  core::InterpolationType interpolation = core::InterpolationType::minmod;
  // Primitive state q = [rho, vx, vy, vz, p] of the cell of size dx centred at x. A cell at least as
  // large as an initial-condition cell takes the values of the one containing x; a finer cell (a mesh
  // finer than the particle lattice, or the initial refinement) gets RAMSES' prolongation: density,
  // momentum and pressure linear in each initial-condition cell with interpol_type's limited slopes,
  // so every cell's mass and momentum are those of the files.
  void gas_state(const std::array<double, 3>& x, double boxlen, double dx, double* q) const;
};

// kosmo::Error naming the file and key for missing or inconsistent input (grafic size against
// levelmin, boxlen other than 1, ndim other than 3, ...).
CosmologicalStart cosmological_start(const core::ParameterSet& params);

}  // namespace kosmo::driver
