#pragma once
// The user patch's namelist key: &RUN_PARAMS patch (docs/patches.md).
namespace kosmo::core {
class SchemaBuilder;
}

namespace kosmo::driver {

void declare_patch_parameters(core::SchemaBuilder& schema);

}  // namespace kosmo::driver
