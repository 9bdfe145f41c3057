#pragma once
// The supernova feedback module's namelist keys (&FEEDBACK_PARAMS, RAMSES' names and defaults) and
// the settings the module reads from them (docs/galaxy.md "Supernova feedback"). eta_sn, yield and
// t_sne belong to star formation, which turns them into the events this module receives.
namespace kosmo::core {
class SchemaBuilder;
class ParameterSet;
}  // namespace kosmo::core

namespace kosmo::feedback {

enum class InjectionMode { thermal, kinetic };

struct FeedbackSettings {
  // RAMSES: f_w > 0 selects the kinetic feedback (average_SN + Sedov_blast), else the thermal one
  // (energy, ejecta and metals into the cell holding the star).
  InjectionMode mode = InjectionMode::thermal;
  double rbubble_pc = 0.0;    // blast radius in pc; the radius is at least two finest cells
  double kinetic_fraction = 1.0;  // f_ek: share of the energy given as momentum in Sedov_blast
  bool binning = true;        // sn_binning: spatial hash binning (seeds/000 §6.2) or the all-pairs scan
  // delayed_cooling: the thermal mode also adds the ejecta to the delayed-cooling scalar, which the
  // cooling module reads and decays (RAMSES feedbk's idelay; cooling/delayed_cooling.hpp).
  bool delayed_cooling = false;
};

void declare_parameters(core::SchemaBuilder& schema);
FeedbackSettings feedback_settings(const core::ParameterSet& params);

}  // namespace kosmo::feedback
