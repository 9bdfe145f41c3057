#pragma once
// The Bondi-Hoyle accretion rate of RAMSES' accretion_scheme='bondi' (pm/sink_particle.f90,
// compute_accretion_rate; Bondi 1952, Krumholz, McKee & Klein 2004 for the alpha extrapolation):
//   r_B^2   = (G M / v_B^2)^2,  v_B^2 = c^2 + v_rel^2 (c^2 only without bondi_use_vrel),
//   rho_inf = rho_zone / alpha(r_acc / r_B),
//   Mdot    = 4 pi rho_inf r_B^2 v_B = 4 pi rho_inf (G M)^2 / v_B^3,
// with c^2 = (gamma - 1) e_thermal (the isothermal sound speed P / rho) and alpha = rho / rho_inf of
// the critical isothermal Bondi solution at r / r_B (Krumholz et al. 2004's table, its asymptotes
// outside 0.01 <= x <= 2). The Eddington rate 4 pi G M m_H / (0.1 sigma_T c) caps it when
// eddington_limit = .true.
namespace kosmo::sinks {

// rho / rho_inf of the critical isothermal Bondi flow at x = r / r_Bondi.
double bondi_alpha(double x);

struct BondiRate {
  double rate = 0.0;           // code mass per code time
  double density_far = 0.0;    // rho_inf
  double bondi_radius = 0.0;   // r_B
};

// gravity: G in code units (1; 3 omega_m aexp / (8 pi) in a cosmological run).
BondiRate bondi_rate(double gravity, double sink_mass, double zone_density, double sound_speed_squared,
                     double relative_speed_squared, double accretion_radius);

// The Eddington rate in code mass per code time; seconds_per_code_time is the time unit.
double eddington_rate(double sink_mass, double seconds_per_code_time);

}  // namespace kosmo::sinks
