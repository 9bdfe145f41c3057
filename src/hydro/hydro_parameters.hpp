#pragma once
// The hydro module's namelist keys: &HYDRO_PARAMS, the gas regions of &INIT_PARAMS, the gas
// refinement criteria of &REFINE_PARAMS and the boundaries of &BOUNDARY_PARAMS.
namespace kosmo::core {
class SchemaBuilder;
}

namespace kosmo::hydro {

void declare_parameters(core::SchemaBuilder& schema);

}  // namespace kosmo::hydro
