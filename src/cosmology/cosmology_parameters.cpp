// RAMSES names and defaults (amr/init_time.f90, pm/init_part.f90) unless the description says
// "kosmo"; the keys of the built-in generator (filetype='gaussian') are kosmo's.
#include "cosmology/cosmology_parameters.hpp"

#include "core/schema_builder.hpp"

namespace kosmo::cosmology {

// The table is laid out by hand, one key per row.
// clang-format off
void declare_parameters(core::SchemaBuilder& schema) {
  using namespace core::parameter_rows;
  schema.add({
      real_key("INIT_PARAMS", "aexp_ini", 10.0, above(0),
               "starting expansion factor; RAMSES' default 10 means: that of the grafic header (filetype='grafic') "
               "or 1/51 (filetype='gaussian')"),
      real_key("INIT_PARAMS", "omega_b", 0.045, at_least(0),
               "kosmo: baryon density parameter (the grafic header has none; the gas carries omega_b/omega_m of "
               "the mass)"),
      real_key("INIT_PARAMS", "omega_m", 0.3, above(0), "kosmo, filetype='gaussian': matter density parameter"),
      real_key("INIT_PARAMS", "omega_l", 0.7, at_least(0), "kosmo, filetype='gaussian': cosmological constant"),
      real_key("INIT_PARAMS", "h0", 70.0, above(0), "kosmo, filetype='gaussian': Hubble constant in km/s/Mpc"),
      real_key("INIT_PARAMS", "boxlen_ini", 100.0, above(0),
               "kosmo, filetype='gaussian': comoving box size in Mpc/h (RAMSES' boxlen_ini)"),
      real_key("INIT_PARAMS", "sigma8", 0.8, above(0),
               "kosmo, filetype='gaussian': rms linear overdensity in 8 Mpc/h spheres today"),
      real_key("INIT_PARAMS", "n_s", 0.96, any_value(), "kosmo, filetype='gaussian': primordial spectral index"),
      integer_key("INIT_PARAMS", "ic_lattice", 0, at_least(0),
                  "kosmo, filetype='gaussian': particles per axis of the initial lattice; 0 = one per levelmin cell "
                  "(RAMSES); levelmin cells / 2 gives a PM mesh twice as fine as the particle grid"),
      integer_key("INIT_PARAMS", "seed", 1, at_least(0),
                  "kosmo, filetype='gaussian': seed of the random phases (each mode seeded from its wave vector)"),
      logical_key("INIT_PARAMS", "ic_invert_phases", false,
                  "kosmo, filetype='gaussian': flip the sign of every mode (phases shifted by pi), the partner run "
                  "of a paired simulation (Angulo & Pontzen 2016; GADGET-4's NGENIC_MIRROR_PHASES)"),
      logical_key("INIT_PARAMS", "ic_fix_amplitudes", false,
                  "kosmo, filetype='gaussian': every mode's amplitude set to sqrt(P(k)/V), random phases only "
                  "(Angulo & Pontzen 2016; GADGET-4's NGENIC_FIX_MODE_AMPLITUDES)"),
  });
}
// clang-format on

}  // namespace kosmo::cosmology
