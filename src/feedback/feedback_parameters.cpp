// RAMSES names and defaults (amr/amr_parameters.f90, read in hydro/read_hydro_params.f90) unless the
// description says "kosmo".
#include "feedback/feedback_parameters.hpp"

#include "core/parameters.hpp"
#include "core/schema_builder.hpp"

namespace kosmo::feedback {

// The table is laid out by hand, one key per row.
// clang-format off
void declare_parameters(core::SchemaBuilder& schema) {
  using namespace core::parameter_rows;
  schema.declare_block("FEEDBACK_PARAMS", "Supernova feedback: how the events of star formation are injected into the gas "
                                          "(docs/galaxy.md \"Supernova feedback\").");
  schema.add({
      real_key("FEEDBACK_PARAMS", "rbubble", 0.0, at_least(0.0),
               "radius of the supernova blast in pc for the kinetic feedback (f_w > 0); the radius used is at least "
               "two cells of levelmax (RAMSES average_SN's rmax)"),
      real_key("FEEDBACK_PARAMS", "f_ek", 1.0, between(0.0, 1.0),
               "kinetic feedback: fraction of each supernova's energy given to the gas inside the blast radius as a "
               "radial velocity field (the rest as thermal energy spread over the same cells)"),
      real_key("FEEDBACK_PARAMS", "f_w", 0.0, at_least(0.0),
               "mass loading factor; f_w > 0 selects the kinetic feedback (RAMSES average_SN + Sedov_blast), 0 the "
               "thermal feedback (energy, ejecta and metals into the cell holding the star). The loaded gas travels "
               "with the event's ejected mass, which star formation sets"),
      logical_key("FEEDBACK_PARAMS", "delayed_cooling", false,
                  "thermal feedback (f_w = 0): the supernova ejecta also go into a passive scalar (after the "
                  "metallicity) that decays on t_diss; cooling cannot remove energy from a cell where it exceeds "
                  "1e-3 of the gas density (RAMSES idelay; needs cooling=.true. to act)"),
      real_key("FEEDBACK_PARAMS", "t_diss", 20.0, above(0.0),
               "decay time of the delayed-cooling scalar, in Myr (delayed_cooling=.true. only)"),
      logical_key("FEEDBACK_PARAMS", "sn_binning", true,
                  "kosmo: find the cells within the blast radius of each supernova with the spatial hash binning of "
                  "seeds/000 §6.2 (.false.: the all-pairs scan of RAMSES, same results bit for bit, for reference)"),
  });
}
// clang-format on

FeedbackSettings feedback_settings(const core::ParameterSet& params) {
  FeedbackSettings settings;
  settings.mode = params.get_real("FEEDBACK_PARAMS", "f_w") > 0.0 ? InjectionMode::kinetic : InjectionMode::thermal;
  settings.rbubble_pc = params.get_real("FEEDBACK_PARAMS", "rbubble");
  settings.kinetic_fraction = params.get_real("FEEDBACK_PARAMS", "f_ek");
  settings.binning = params.get_bool("FEEDBACK_PARAMS", "sn_binning");
  settings.delayed_cooling = params.get_bool("FEEDBACK_PARAMS", "delayed_cooling");
  return settings;
}

}  // namespace kosmo::feedback
