#pragma once
// The particle module's namelist keys: the particle initial conditions of &INIT_PARAMS and RAMSES'
// npartmax.
namespace kosmo::core {
class SchemaBuilder;
}

namespace kosmo::particles {

void declare_parameters(core::SchemaBuilder& schema);

}  // namespace kosmo::particles
