// RAMSES names and defaults (pm/pm_parameters.f90, amr/amr_parameters.f90, pm/sink_particle.f90
// read_sink_params) unless the description says "kosmo". The other keys of &SINK_PARAMS are listed
// in driver/unimplemented_parameters.cpp.
#include "sinks/sink_parameters.hpp"

#include "core/error.hpp"
#include "core/schema_builder.hpp"
#include "sinks/agn_settings.hpp"

namespace kosmo::sinks {
namespace {

void check_sinks(const core::ParameterSet& p) {
  if (!p.get_bool("RUN_PARAMS", "sink")) return;
  KOSMO_REQUIRE(p.get_int("RUN_PARAMS", "ndim") == 3,
                p.location_of("RUN_PARAMS", "sink") << "sink=.true.: sink particles are three-dimensional (RAMSES stops when ndim /= 3)");
  const bool gas_needed = p.get_bool("SINK_PARAMS", "create_sinks") || p.get_string("SINK_PARAMS", "accretion_scheme") != "none";
  KOSMO_REQUIRE(!gas_needed || p.get_bool("RUN_PARAMS", "hydro"),
                p.location_of("SINK_PARAMS", "accretion_scheme")
                    << "sink creation and accretion take gas: they need hydro=.true. in &RUN_PARAMS (RAMSES stops too)");
  const int thresholds = (p.get_real("SINK_PARAMS", "n_sink") > 0.0) + (p.get_real("SINK_PARAMS", "d_sink") > 0.0) +
                         (p.get_real("SINK_PARAMS", "rho_sink") > 0.0);
  KOSMO_REQUIRE(thresholds <= 1, p.location_of("SINK_PARAMS", "n_sink") << "use n_sink [H/cc] OR rho_sink [g/cc] OR d_sink [code units] (RAMSES)");
  const bool create = p.get_bool("SINK_PARAMS", "create_sinks");
  // RAMSES derives a threshold from T2_star when none is given; kosmo asks for one.
  if (create || p.get_string("SINK_PARAMS", "accretion_scheme") == "threshold")
    KOSMO_REQUIRE(thresholds == 1, p.location_of("SINK_PARAMS", create ? "create_sinks" : "accretion_scheme")
                                       << "sink creation and threshold accretion need a density threshold: set n_sink (H/cm^3), "
                                          "rho_sink (g/cm^3) or d_sink (code units)");
  if (create)
    KOSMO_REQUIRE(p.get_real("SINK_PARAMS", "mass_sink_seed") > 0.0,
                  p.location_of("SINK_PARAMS", "mass_sink_seed") << "create_sinks=.true. needs the seed mass mass_sink_seed > 0 (solar masses; RAMSES stops too)");
}

}  // namespace

// The table is laid out by hand, one key per row.
// clang-format off
void declare_parameters(core::SchemaBuilder& schema) {
  using namespace core::parameter_rows;
  schema.add({
      logical_key("RUN_PARAMS", "sink", false,
                  "sink particles (docs/galaxy.md \"Sink particles\"): point masses replicated on every rank that accrete "
                  "gas (accretion_scheme), merge (r_merge) and weigh in gravity"),
  });
  schema.declare_block("SINK_PARAMS", "Sink particles (sink=.true. in &RUN_PARAMS; docs/galaxy.md \"Sink particles\").");
  schema.add({
      integer_key("SINK_PARAMS", "nsinkmax", 2000, at_least(1), "largest number of sinks the run may hold"),
      real_key("SINK_PARAMS", "mass_sink_seed", 0.0, at_least(0.0), "mass a new sink takes from its zone, in solar masses"),
      string_key("SINK_PARAMS", "accretion_scheme", "none", {"none", "threshold", "bondi"},
                 "'none'; 'bondi': Bondi-Hoyle rate 4 pi rho_inf (G M)^2 / (c^2 + v_rel^2)^(3/2) from the gas of the "
                 "accretion zone; 'threshold': c_acc of the gas above d_sink in the zone each step; RAMSES' 'flux' is "
                 "not implemented yet"),
      logical_key("SINK_PARAMS", "bondi_use_vrel", true, "Bondi rate: the gas velocity relative to the sink in the denominator"),
      logical_key("SINK_PARAMS", "eddington_limit", false, "Bondi rate capped at the Eddington rate (radiative efficiency 0.1)"),
      real_key("SINK_PARAMS", "c_acc", 0.75, above_up_to(0.0, 1.0),
               "fraction of the gas of a zone cell (threshold: above d_sink) that may be accreted in one step"),
      integer_key("SINK_PARAMS", "ir_cloud", 4, at_least(1),
                  "radius of the sink's cloud and accretion zone in cells of the finest level: r_acc = ir_cloud dx_min (the "
                  "Bondi extrapolation takes r_acc / 2, as RAMSES)"),
      real_key("SINK_PARAMS", "r_merge", 2.0, above(0.0),
               "kosmo (RAMSES hard-codes 2): sinks closer than r_merge dx_min merge, friends-of-friends groups at once"),
      real_key("SINK_PARAMS", "merging_timescale", -1.0, any_value(),
               "years; > 0: only groups holding a sink younger than this merge (RAMSES: pairs with a young member)"),
      real_key("SINK_PARAMS", "n_sink", -1.0, any_value(),
               "density threshold of sink creation and threshold accretion in H/cm^3 (<= 0: unset)"),
      real_key("SINK_PARAMS", "rho_sink", -1.0, any_value(), "the same threshold in g/cm^3 (<= 0: unset)"),
      real_key("SINK_PARAMS", "d_sink", -1.0, any_value(), "the same threshold in code units (<= 0: unset)"),
      logical_key("SINK_PARAMS", "create_sinks", false,
                  "form sinks at the density peaks of levelmax above the threshold, farther than r_acc from any sink, "
                  "with mass_sink_seed taken from their zone (kosmo's threshold criterion, not RAMSES' clump finder)"),
  });
  schema.add({
      integer_key("AMR_PARAMS", "nsinkmax", 2000, at_least(1),
                  "RAMSES reads nsinkmax here too: the sink limit is the larger of this and &SINK_PARAMS nsinkmax"),
  });
  schema.add({
      logical_key("REFINE_PARAMS", "sink_refine", false,
                  "refine to levelmax every cell that meets the accretion sphere (radius ir_cloud dx_min) of a sink"),
  });
  schema.add_check(&check_sinks);
  declare_agn_parameters(schema);
}
// clang-format on

}  // namespace kosmo::sinks
