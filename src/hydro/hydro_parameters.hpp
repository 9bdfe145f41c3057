#pragma once
// The hydro module's namelist keys: &HYDRO_PARAMS, the gas regions of &INIT_PARAMS, the gas
// refinement criteria of &REFINE_PARAMS and the boundaries of &BOUNDARY_PARAMS.
namespace kosmo::core {
class SchemaBuilder;
class ParameterSet;
}

namespace kosmo::hydro {

void declare_parameters(core::SchemaBuilder& schema);

// pressure_fix as the run uses it: the user's value when set, else on in cosmological runs
// (cosmo=.true.) and RAMSES' .false. otherwise (docs/hydro.md, "Positive pressure").
bool pressure_fix_enabled(const core::ParameterSet& params);

}  // namespace kosmo::hydro
