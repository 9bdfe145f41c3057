#pragma once
// The cosmology module's namelist keys: the starting expansion factor and the cosmological model and
// random field of the built-in initial conditions (&INIT_PARAMS).
namespace kosmo::core {
class SchemaBuilder;
}

namespace kosmo::cosmology {

void declare_parameters(core::SchemaBuilder& schema);

}  // namespace kosmo::cosmology
