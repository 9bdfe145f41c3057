#pragma once
// The namelist keys of star formation (&SF_PARAMS) and of the supernova events it produces
// (&FEEDBACK_PARAMS eta_sn, yield, t_sne); docs/galaxy.md "Star formation".
#include "core/parameters.hpp"

namespace kosmo::core {
class SchemaBuilder;
}

namespace kosmo::star_formation {

void declare_parameters(core::SchemaBuilder& schema);

// RAMSES' switch (hydro/read_hydro_params.f90: star formation is on when eps_star > 0), or the
// older t_star > 0 of RAMSES namelists such as namelist/cosmo_gal.nml.
bool star_formation_on(const core::ParameterSet& params);

}  // namespace kosmo::star_formation
