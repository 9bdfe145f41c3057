#pragma once
// RAMSES and cuRAMSES namelist keys and blocks kosmo knows by name but does not implement yet.
namespace kosmo::core {
class SchemaBuilder;
}

namespace kosmo::driver {

void declare_unimplemented_parameters(core::SchemaBuilder& schema);

}  // namespace kosmo::driver
