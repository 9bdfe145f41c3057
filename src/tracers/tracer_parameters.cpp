// RAMSES names and defaults (amr/amr_parameters.f90 tracer and MC_tracer, pm/pm_parameters.f90
// tracer_feed .. tracer_first_balance_levelmin, amr/read_params.f90) unless the description says
// "kosmo". RAMSES places tracers from tracer_feed only for its Monte Carlo tracers (Cadiou et al.
// 2019); kosmo implements the velocity tracers and feeds them the same way (docs/tracers.md).
#include "tracers/tracer_parameters.hpp"

#include "core/error.hpp"
#include "core/parameters.hpp"
#include "core/schema_builder.hpp"

namespace kosmo::tracers {
namespace {

// What the tracers need and what kosmo does not do yet, each with the key to change.
void check_tracers(const core::ParameterSet& p) {
  if (!p.get_bool("RUN_PARAMS", "tracer")) return;
  KOSMO_REQUIRE(!p.get_bool("TRACER_PARAMS", "mc_tracer"),
                p.location_of("TRACER_PARAMS", "mc_tracer")
                    << "mc_tracer: MC_tracer=.false. gives velocity tracers, which follow the gas velocity "
                       "(docs/tracers.md); not implemented yet: Monte Carlo tracers");
  KOSMO_REQUIRE(p.get_bool("RUN_PARAMS", "hydro"), p.location_of("RUN_PARAMS", "tracer")
                                                       << "tracer=.true. needs hydro=.true.: tracers follow the gas");
  KOSMO_REQUIRE(p.get_bool("RUN_PARAMS", "pic"), p.location_of("RUN_PARAMS", "tracer")
                                                     << "tracer=.true. needs pic=.true., as in RAMSES: tracers are particles");
  const std::string format = p.get_string("TRACER_PARAMS", "tracer_feed_fmt");
  KOSMO_REQUIRE(format == "inplace" || format == "ascii",
                p.location_of("TRACER_PARAMS", "tracer_feed_fmt")
                    << "tracer_feed_fmt='" << format << "': RAMSES' binary tracer files are not implemented yet in kosmo; "
                       "use 'inplace' (tracers from the gas mass) or 'ascii' (positions from tracer_feed)");
  if (format == "inplace")
    KOSMO_REQUIRE(p.get_real("TRACER_PARAMS", "tracer_mass") > 0.0,
                  p.location_of("TRACER_PARAMS", "tracer_mass")
                      << "tracer_feed_fmt='inplace' needs tracer_mass > 0: each leaf cell gets its gas mass / tracer_mass "
                         "tracers");
  if (format == "ascii")
    KOSMO_REQUIRE(!p.get_string("TRACER_PARAMS", "tracer_feed").empty(),
                  p.location_of("TRACER_PARAMS", "tracer_feed")
                      << "tracer_feed_fmt='ascii' needs tracer_feed, the file of tracer positions (ndim numbers a line, "
                         "in units of boxlen)");
}

}  // namespace

// The table is laid out by hand, one key per row.
// clang-format off
void declare_parameters(core::SchemaBuilder& schema) {
  using namespace core::parameter_rows;
  schema.add_after("pic", {
      logical_key("RUN_PARAMS", "tracer", false,
                  "tracer particles: massless particles of family 'tracer' (RAMSES family 0) carried by the gas "
                  "velocity, placed as &TRACER_PARAMS says; needs hydro=.true. and pic=.true. (docs/tracers.md)"),
  });
  schema.declare_block("TRACER_PARAMS", "Tracer particles (used when tracer=.true. in &RUN_PARAMS; docs/tracers.md).");
  schema.add({
      logical_key("TRACER_PARAMS", "mc_tracer", false,
                  "Monte Carlo tracers (Cadiou et al. 2019): not implemented yet in kosmo, which stops with that message "
                  "when set; .false.: velocity tracers, moved with the gas velocity interpolated cloud-in-cell"),
      string_key("TRACER_PARAMS", "tracer_feed", "", {},
                 "with tracer_feed_fmt='ascii': the file of initial tracer positions, ndim numbers a line, in units of "
                 "boxlen (RAMSES load_tracers)"),
      string_key("TRACER_PARAMS", "tracer_feed_fmt", "ascii", {"ascii", "inplace", "binary", "binary2"},
                 "how the tracers are created at the start: 'inplace' round(gas mass / tracer_mass) tracers at the centre "
                 "of every leaf cell, 'ascii' the positions of tracer_feed; 'binary' and 'binary2' (RAMSES' binary "
                 "files) are not implemented yet"),
      real_key("TRACER_PARAMS", "tracer_mass", -1.0, any_value(),
               "gas mass per tracer for tracer_feed_fmt='inplace' (code units); kosmo's tracers carry no mass themselves "
               "(their mass in outputs is 0)"),
      integer_key("TRACER_PARAMS", "tracer_first_balance_part_per_cell", 0, at_least(0),
                  "accepted for compatibility, no effect: kosmo's load balance already weighs every particle "
                  "(seeds/000 eq. 4)"),
      integer_key("TRACER_PARAMS", "tracer_first_balance_levelmin", -1, any_value(),
                  "accepted for compatibility, no effect (see tracer_first_balance_part_per_cell)"),
  });
  schema.add_check(&check_tracers);
}
// clang-format on

}  // namespace kosmo::tracers
