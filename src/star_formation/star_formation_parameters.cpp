// RAMSES names and defaults (amr/amr_parameters.f90, hydro/read_hydro_params.f90 &SF_PARAMS and
// &FEEDBACK_PARAMS) unless the description says "kosmo". The other keys of both blocks are listed in
// driver/unimplemented_parameters.cpp (the feedback module declares its own rows of &FEEDBACK_PARAMS).
#include "star_formation/star_formation_parameters.hpp"

#include "core/error.hpp"
#include "core/schema_builder.hpp"

namespace kosmo::star_formation {
namespace {

void check_star_formation(const core::ParameterSet& p) {
  if (!star_formation_on(p)) return;
  const char* key = p.get_real("SF_PARAMS", "eps_star") > 0.0 ? "eps_star" : "t_star";
  KOSMO_REQUIRE(p.get_bool("RUN_PARAMS", "hydro"),
                p.location_of("SF_PARAMS", key) << key << " > 0 forms stars from the gas: it needs hydro=.true. in &RUN_PARAMS");
  KOSMO_REQUIRE(p.get_bool("RUN_PARAMS", "pic"),
                p.location_of("SF_PARAMS", key)
                    << key << " > 0 forms star particles: it needs pic=.true. in &RUN_PARAMS (RAMSES switches it on itself)");
  if (p.get_real("SF_PARAMS", "m_star") > 0.0 && !p.get_bool("RUN_PARAMS", "cosmo"))
    KOSMO_REQUIRE(p.get_real("REFINE_PARAMS", "mass_sph") > 0.0,
                  p.location_of("SF_PARAMS", "m_star") << "m_star > 0 counts the star particle mass in units of mass_sph: set "
                                                          "&REFINE_PARAMS mass_sph > 0, or m_star <= 0 for n_star dx_min^3");
  KOSMO_REQUIRE(p.get_int("RUN_PARAMS", "ndim") == 3,
                p.location_of("SF_PARAMS", key) << key << " > 0: star formation is three-dimensional (RAMSES forms stars only with ndim=3)");
}

}  // namespace

bool star_formation_on(const core::ParameterSet& params) {
  return params.get_real("SF_PARAMS", "eps_star") > 0.0 || params.get_real("SF_PARAMS", "t_star") > 0.0;
}

// The table is laid out by hand, one key per row.
// clang-format off
void declare_parameters(core::SchemaBuilder& schema) {
  using namespace core::parameter_rows;
  schema.declare_block("SF_PARAMS", "Star formation (on when eps_star > 0 or t_star > 0; docs/galaxy.md \"Star formation\").");
  schema.add({
      real_key("SF_PARAMS", "eps_star", 0.0, at_least(0.0),
               "star formation efficiency per free-fall time: a leaf cell above the threshold turns eps_star dt / t_ff of its "
               "gas into stars, t_ff = 0.5427 / sqrt(G rho); > 0 switches star formation on"),
      real_key("SF_PARAMS", "t_star", 0.0, at_least(0.0),
               "kosmo (the older RAMSES key of namelist/cosmo_gal.nml): star formation time scale in Gyr at the threshold "
               "density; a cell of density rho forms stars at the rate rho / (t_star sqrt(rho_threshold / rho)); used when "
               "eps_star = 0, > 0 switches star formation on"),
      real_key("SF_PARAMS", "n_star", 0.1, above(0.0),
               "star formation density threshold in H/cm^3 (in a cosmological run at least del_star times the mean baryon "
               "density); also the density of the polytrope T2_star"),
      real_key("SF_PARAMS", "m_star", -1.0, any_value(),
               "star particle mass in units of mass_sph; <= 0: the mass of gas at n_star in a cell of the finest level, "
               "n_star / (scale_nH aexp^3) dx_min^3 (RAMSES)"),
      real_key("SF_PARAMS", "t2_star", 0.0, at_least(0.0),
               "temperature (T/mu in K) of the ISM polytrope T2_star (n_H / n_star)^(g_star - 1): the cell's temperature "
               "above it counts for the T/mu < 2e4 K criterion, and with cooling=.true. it is the gas temperature floor"),
      real_key("SF_PARAMS", "g_star", 1.6, any_value(), "polytropic index of the ISM polytrope (see t2_star)"),
      real_key("SF_PARAMS", "del_star", 200.0, at_least(0.0),
               "cosmological runs: the threshold is at least del_star times the mean baryon density"),
  });
  // &FEEDBACK_PARAMS is declared by the feedback module (declared before this one); these are its rows
  // that describe the events star formation produces.
  schema.add({
      real_key("FEEDBACK_PARAMS", "eta_sn", 0.0, between(0.0, 0.5),
               "mass fraction of a star particle returned to the gas by its supernovae, t_sne after its birth, with "
               "10^51 erg per 10 solar masses ejected (kosmo: at most 0.5)"),
      real_key("FEEDBACK_PARAMS", "yield", 0.0, between(0.0, 1.0),
               "metal yield of the ejecta: their metal mass is eta_sn m (yield + (1 - yield) Z_star)"),
      real_key("FEEDBACK_PARAMS", "t_sne", 10.0, at_least(0.0), "delay between a star particle's birth and its supernovae, in Myr"),
  });
  schema.add_check(&check_star_formation);
}
// clang-format on

}  // namespace kosmo::star_formation
