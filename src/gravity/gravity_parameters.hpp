#pragma once
// The gravity module's namelist keys: &POISSON_PARAMS and the choice of the base-level solver in
// &RUN_PARAMS (use_fftw).
namespace kosmo::core {
class SchemaBuilder;
}

namespace kosmo::gravity {

void declare_parameters(core::SchemaBuilder& schema);

}  // namespace kosmo::gravity
