// RAMSES names and defaults: pm/pm_parameters.f90 (T2_AGN ... agn_inj_method) and
// amr/amr_parameters.f90 (agn), read in pm/sink_particle.f90 read_sink_params; kosmo's own keys say so.
#include "sinks/agn_settings.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/schema_builder.hpp"

namespace kosmo::sinks {
namespace {

constexpr double pi = 3.14159265358979323846;
constexpr double speed_of_light_cgs = 2.99792458e10;  // RAMSES c_cgs
constexpr double radiative_efficiency = 0.1;          // RAMSES' hard-coded 0.1 of v_AGN

void check_agn(const core::ParameterSet& p) {
  if (!p.get_bool("SINK_PARAMS", "agn")) return;
  KOSMO_REQUIRE(p.get_bool("RUN_PARAMS", "sink") && p.get_bool("RUN_PARAMS", "hydro"),
                p.location_of("SINK_PARAMS", "agn") << "agn=.true.: AGN feedback needs sinks and gas (sink=.true., hydro=.true.)");
  KOSMO_REQUIRE(p.get_real("SINK_PARAMS", "cone_opening") == 180.0,
                p.location_of("SINK_PARAMS", "cone_opening")
                    << "cone_opening < 180: not implemented yet (the jet axis is RAMSES' sink angular momentum, which kosmo's "
                       "sinks do not carry); 180 gives radial kicks in every direction");
}

}  // namespace

// The table is laid out by hand, one key per row.
// clang-format off
void declare_agn_parameters(core::SchemaBuilder& schema) {
  using namespace core::parameter_rows;
  schema.add({
      logical_key("SINK_PARAMS", "agn", false,
                  "AGN feedback from the sinks (docs/galaxy.md \"AGN feedback\"): accreted mass fills an energy reservoir "
                  "(T2_AGN), released into the gas within ir_cloud dx_min once per coarse step"),
      real_key("SINK_PARAMS", "t2_agn", 1e12, above(0.0),
               "K: energy per accreted mass, k_B T2_AGN / m_H = eps_r eps_f c^2 (1e12 K: eps_r eps_f = 0.0925)"),
      real_key("SINK_PARAMS", "t2_min", 1e7, any_value(),
               "K: the reservoir is released only when the zone's gas is at least this hot or the reservoir can heat it "
               "to this (<= 0: at every coarse step)"),
      real_key("SINK_PARAMS", "t2_max", 1e9, above(0.0),
               "K: one release gives at most k_B T2_max / m_H per zone gas mass as heat; the rest stays in the reservoir"),
      real_key("SINK_PARAMS", "agn_fbk_frac_ener", 1.0, between(0.0, 1.0), "share of the released energy given as heat"),
      real_key("SINK_PARAMS", "agn_fbk_frac_mom", 0.0, between(0.0, 1.0),
               "share given as radial momentum kin_mass_loading dM v_AGN, v_AGN = (0.2 epsilon_kin / kin_mass_loading)^(1/2) c"),
      real_key("SINK_PARAMS", "v_max", 2000.0, above(0.0), "km/s: one release gives at most v_max per zone gas mass as momentum"),
      real_key("SINK_PARAMS", "cone_opening", 180.0, between(0.0, 180.0),
               "degrees: opening of the momentum cone (only 180, every direction, is implemented)"),
      real_key("SINK_PARAMS", "epsilon_kin", 1.0, at_least(0.0), "efficiency of the momentum mode"),
      real_key("SINK_PARAMS", "kin_mass_loading", 100.0, above(0.0), "mass loading of the momentum mode"),
      real_key("SINK_PARAMS", "agn_fbk_mode_switch_threshold", 0.01, any_value(),
               "> 0: a sink accreting above this Eddington ratio heats (frac_ener 1), below it kicks (frac_mom 1); <= 0: "
               "agn_fbk_frac_ener and agn_fbk_frac_mom as given"),
      string_key("SINK_PARAMS", "agn_inj_method", "volume", {"volume", "mass"},
                 "zone cells get the AGN's energy and momentum in proportion to their volume or to their gas mass"),
      logical_key("SINK_PARAMS", "agn_binning", true,
                  "kosmo: find each AGN's cells with the spatial hash binning of the supernova feedback (seeds/000 §6.2-6.3; "
                  ".false.: the all-pairs scan, same results bit for bit, for reference)"),
  });
  schema.add_check(&check_agn);
}
// clang-format on

AgnSettings agn_settings(const core::ParameterSet& params) {
  AgnSettings s;
  s.enabled = params.get_bool("SINK_PARAMS", "agn");
  s.t2_agn = params.get_real("SINK_PARAMS", "t2_agn");
  s.t2_min = params.get_real("SINK_PARAMS", "t2_min");
  s.t2_max = params.get_real("SINK_PARAMS", "t2_max");
  s.thermal_fraction = params.get_real("SINK_PARAMS", "agn_fbk_frac_ener");
  s.momentum_fraction = params.get_real("SINK_PARAMS", "agn_fbk_frac_mom");
  s.v_max_kms = params.get_real("SINK_PARAMS", "v_max");
  s.cone_opening = params.get_real("SINK_PARAMS", "cone_opening");
  s.epsilon_kin = params.get_real("SINK_PARAMS", "epsilon_kin");
  s.kin_mass_loading = params.get_real("SINK_PARAMS", "kin_mass_loading");
  s.mode_switch_threshold = params.get_real("SINK_PARAMS", "agn_fbk_mode_switch_threshold");
  s.inject_by_mass = params.get_string("SINK_PARAMS", "agn_inj_method") == "mass";
  s.binning = params.get_bool("SINK_PARAMS", "agn_binning");
  return s;
}

AgnRelease agn_release(const AgnSettings& settings, const feedback::BlastBudget& zone, double reservoir, double eddington_ratio,
                       double scale_t2, double scale_velocity) {
  AgnRelease release;
  const double volume = zone[agn_budget_volume], mass = zone[agn_budget_mass];
  if (!(reservoir > 0.0) || !(volume > 0.0) || !(mass > 0.0)) return release;
  // RAMSES accrete_sink: above the Eddington-ratio threshold all heat, below it all momentum.
  double thermal_fraction = settings.thermal_fraction, momentum_fraction = settings.momentum_fraction;
  if (settings.mode_switch_threshold > 0.0) {
    const bool thermal = eddington_ratio > settings.mode_switch_threshold;
    thermal_fraction = thermal ? 1.0 : 0.0;
    momentum_fraction = thermal ? 0.0 : 1.0;
  }
  // RAMSES compute_accretion_rate (ok_blast_agn): the zone gas is hot enough (T2 of its specific
  // thermal energy, RAMSES' ethermal * scale_T2), or the accreted mass dM = reservoir / (k_B T2_AGN /
  // m_H) can heat it to T2_min.
  const double accreted = reservoir * scale_t2 / settings.t2_agn;
  if (settings.t2_min > 0.0) {
    const double t2_gas = zone[agn_budget_thermal_energy] / mass * scale_t2;
    const bool hot = t2_gas >= settings.t2_min || accreted >= mass * (settings.t2_min - t2_gas) / (settings.t2_agn - settings.t2_min);
    if (!hot) return release;
  }
  double heat = thermal_fraction * reservoir;
  const double heat_cap = mass * settings.t2_max / scale_t2;
  const double v_agn = std::sqrt(2.0 * radiative_efficiency * settings.epsilon_kin / settings.kin_mass_loading) * speed_of_light_cgs / scale_velocity;
  double momentum = momentum_fraction * settings.kin_mass_loading * accreted * v_agn / (1.0 - std::cos(pi / 180.0 * settings.cone_opening / 2.0));
  const double momentum_cap = mass * settings.v_max_kms * 1e5 / scale_velocity;
  // The caps (RAMSES' T2_max and v_max) scale the whole release down; what is left stays in the
  // reservoir for the next coarse step (RAMSES' older agn_feedback keeps it too).
  double share = 1.0;
  if (heat > heat_cap) share = std::min(share, heat_cap / heat);
  if (momentum > momentum_cap) share = std::min(share, momentum_cap / momentum);
  heat *= share;
  momentum *= share;
  release.released = share * reservoir;
  release.thermal_energy = heat;
  release.momentum = momentum;
  if (settings.inject_by_mass) {
    release.injection.energy_per_mass = heat / mass;
    release.injection.momentum_per_mass = momentum / mass;
  } else {
    release.injection.energy_per_volume = heat / volume;
    release.injection.momentum_per_volume = momentum / volume;
  }
  return release;
}

}  // namespace kosmo::sinks
