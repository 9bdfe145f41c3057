// RAMSES names and defaults (amr/amr_parameters.f90, pm/init_part.f90) unless the description says
// "kosmo".
#include "particles/particle_parameters.hpp"

#include "core/parameter_schema.hpp"
#include "core/schema_builder.hpp"

namespace kosmo::particles {

// The table is laid out by hand, one key per row.
// clang-format off
void declare_parameters(core::SchemaBuilder& schema) {
  using namespace core::parameter_rows;
  using core::kMaxLevel;
  // Next to the cost of one particle (parallel's mem_weight_part), as in RAMSES' &AMR_PARAMS.
  schema.add_after("mem_weight_part", {
      integer_key("AMR_PARAMS", "npartmax", 0, at_least(0),
                  "accepted for compatibility, no effect: kosmo's particle arrays grow on demand"),
  });

  schema.add({
      // &INIT_PARAMS: particle initial conditions (RAMSES init_part / init_file); the cosmological keys
      // follow from the cosmology module
      string_key("INIT_PARAMS", "filetype", "ascii", {"ascii", "grafic", "gaussian"},
                 "particle initial conditions: 'ascii' reads initfile(1)/ic_part (one particle per line: ndim "
                 "positions, ndim velocities, mass, code units; RAMSES); 'grafic' the single-level grafic files "
                 "of initfile(1) (cosmo); 'gaussian' kosmo's Gaussian random field with Zel'dovich displacements "
                 "(cosmo, the keys below)"),
      string_array_key("INIT_PARAMS", "initfile", kMaxLevel, "", {},
                       "per level: directory of the initial-condition files (kosmo reads initfile(1) only)"),
  });
}
// clang-format on

}  // namespace kosmo::particles
