#pragma once
// The starting state of a cosmological run (RAMSES cosmo=.true., init_part + init_flow_fine with
// filetype='grafic'): dark-matter particles displaced from the levelmin cell centres, and the gas on
// the levelmin grid, in super-comoving code units (driver/cosmological_model.hpp), from
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
#include "driver/cosmological_model.hpp"
#include "particles/particle_set.hpp"

namespace kosmo::driver {

struct CosmologicalStart {
  std::shared_ptr<const CosmologicalModel> model;
  double aexp = 0.0;
  int n = 0;  // levelmin cells per axis
  particles::ParticleSet<3> particles;
  // Gas primitive state of the n^3 levelmin cells, x fastest: density, velocity (code units), pressure.
  std::vector<double> density, pressure;
  std::array<std::vector<double>, 3> velocity;
  // Primitive state q = [rho, vx, vy, vz, p] of the levelmin cell containing x (refined or coarser
  // cells of the initial mesh take the levelmin cell's values).
  void gas_state(const std::array<double, 3>& x, double boxlen, double* q) const;
};

// kosmo::Error naming the file and key for missing or inconsistent input (grafic size against
// levelmin, boxlen other than 1, ndim other than 3, ...).
CosmologicalStart cosmological_start(const core::ParameterSet& params);

}  // namespace kosmo::driver
