#pragma once
// The keys of AGN feedback (&SINK_PARAMS, RAMSES' names and defaults from pm/pm_parameters.f90 and
// amr/amr_parameters.f90, read by read_sink_params in pm/sink_particle.f90; docs/galaxy.md "AGN
// feedback") and what one AGN releases from its reservoir at a coarse step.
#include "core/parameters.hpp"
#include "feedback/blast_kernels.hpp"
#include "sinks/agn_kernels.hpp"

namespace kosmo::core {
class SchemaBuilder;
}

namespace kosmo::sinks {

struct AgnSettings {
  bool enabled = false;              // agn
  double t2_agn = 1e12;              // T2_AGN, K: energy per accreted mass, k_B T2_AGN / m_H
  double t2_min = 1e7;               // T2_min, K: the zone's gas must reach it (<= 0: always release)
  double t2_max = 1e9;               // T2_max, K: the most energy per zone gas mass one release gives
  double thermal_fraction = 1.0;     // AGN_fbk_frac_ener
  double momentum_fraction = 0.0;    // AGN_fbk_frac_mom
  double v_max_kms = 2000.0;         // v_max, km/s: the most momentum per zone gas mass
  double cone_opening = 180.0;       // cone_opening, degrees (only 180: sinks carry no spin axis)
  double epsilon_kin = 1.0;          // epsilon_kin
  double kin_mass_loading = 100.0;   // kin_mass_loading
  double mode_switch_threshold = 0.01;  // AGN_fbk_mode_switch_threshold (<= 0: fixed fractions)
  bool inject_by_mass = false;       // agn_inj_method='mass' (default 'volume')
  bool binning = true;               // kosmo agn_binning
};

void declare_agn_parameters(core::SchemaBuilder& schema);
AgnSettings agn_settings(const core::ParameterSet& params);

// One AGN's release: the reservoir energy it gives up, and what AGN_blast injects per unit volume.
struct AgnRelease {
  double released = 0.0;        // taken from the reservoir
  double thermal_energy = 0.0;  // injected as heat
  double momentum = 0.0;        // injected as radial momentum (its magnitude summed over the zone)
  AgnInjection injection;
};

// RAMSES compute_accretion_rate (ok_blast_agn) and accrete_sink (the AGN part), per AGN: from the
// zone's budget (volume, gas mass, thermal energy), the reservoir (code energy), the Eddington ratio
// of the sink's accretion rate and the units' scale_T2 (K per code p/rho) and velocity (cm/s).
AgnRelease agn_release(const AgnSettings& settings, const feedback::BlastBudget& zone, double reservoir, double eddington_ratio,
                       double scale_t2, double scale_velocity);

}  // namespace kosmo::sinks
