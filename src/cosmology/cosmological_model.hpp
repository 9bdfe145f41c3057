#pragma once
// The background of a cosmological run (RAMSES cosmo=.true.): expansion factor and Hubble rate as
// functions of the code time, which is RAMSES' super-comoving conformal time tau (d tau = H0 dt / a^2,
// tau = 0 today; Martel & Shapiro 1998), the Poisson factor and the cgs units of the outputs.
//
// Super-comoving code units (RAMSES amr/units.f90): length boxlen_ini comoving Mpc/h times a, density
// the mean matter density omega_m rho_crit h^2 / a^3, time a^2 / H0. In them the equations of motion
// are those of a static box: dx/dtau = v, dv/dtau = -grad phi, with
//   laplacian phi = (3/2) omega_m a (rho - <rho>),   <rho> = 1 for the mean matter density,
// and the Euler equations of a gamma = 5/3 gas keep their static form.
#include <memory>

#include "core/parameters.hpp"
#include "cosmology/friedmann.hpp"

namespace kosmo::cosmology {

class CosmologicalModel {
 public:
  // a_min..a_max bound every expansion factor the run will ask for (the table is built once).
  CosmologicalModel(const CosmologyParameters& parameters, double boxlen_mpc_h, double a_min, double a_max);

  const CosmologyParameters& parameters() const { return parameters_; }
  const Background& background() const { return background_; }

  double time_at(double aexp) const { return table_->super_comoving_time_at(aexp); }
  double aexp_at(double tau) const { return table_->expansion_factor_at(tau); }
  // hexp = d ln a / d tau = a^2 E(a).
  double hexp_at(double tau) const { return table_->hubble_parameter_at(tau); }
  // The factor that replaces 4 pi G in Poisson's equation (RAMSES: fourpi = 1.5 omega_m aexp).
  double poisson_factor(double tau) const { return 1.5 * parameters_.omega_m * aexp_at(tau); }
  // RAMSES newdt_fine: a coarse step may change a by at most this fraction.
  static constexpr double max_expansion_per_step = 0.1;
  double expansion_time_step(double tau) const { return max_expansion_per_step / hexp_at(tau); }

  // cgs value of one code unit at expansion factor a (RAMSES amr/units.f90).
  double unit_length(double a) const;   // cm
  double unit_density(double a) const;  // g/cm^3
  double unit_time(double a) const;     // s
  // Code velocity of a proper peculiar velocity of 1 km/s at expansion factor a.
  double code_velocity_per_km_s(double a) const { return 1.0e5 * unit_time(a) / unit_length(a); }
  // RAMSES' initial gas temperature T/mu = 1.356e-2 / a^2 K (init_time.f90, T2_start) as the code
  // pressure per unit density.
  double initial_pressure_per_density(double a) const;

 private:
  CosmologyParameters parameters_;
  double boxlen_mpc_h_;
  Background background_;
  std::unique_ptr<cosmology::FriedmannTable> table_;
};

}  // namespace kosmo::cosmology
