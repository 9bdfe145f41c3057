#pragma once
// The courant_factor a run's time steps use. RAMSES reads &HYDRO_PARAMS only when hydro=.true.
// (hydro/read_hydro_params.f90), so a run without gas keeps the default 0.5 whatever its namelist
// says, and its particles' Courant limit and free-fall limit (pm/newdt_fine.f90) use 0.5. kosmo
// does the same, so that one namelist gives both codes the same time steps and mesh
// (docs/performance.md, "The 64³ dark-matter box against RAMSES").
#include "core/parameters.hpp"

namespace kosmo::core {

inline constexpr double ramses_default_courant_factor = 0.5;

inline double run_courant_factor(const ParameterSet& params) {
  return params.get_bool("RUN_PARAMS", "hydro") ? params.get_real("HYDRO_PARAMS", "courant_factor")
                                                : ramses_default_courant_factor;
}

}  // namespace kosmo::core
