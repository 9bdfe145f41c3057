#include "driver/patch_parameters.hpp"

#include "core/schema_builder.hpp"

namespace kosmo::driver {

void declare_patch_parameters(core::SchemaBuilder& schema) {
  using namespace core::parameter_rows;
  schema.add({
      string_key("RUN_PARAMS", "patch", "", {},
                 "kosmo (RAMSES sets PATCH= at compile time): a directory of C++ files defining the hooks of "
                 "include/kosmo/patch.hpp (condinit, gravana, initial particles), built and loaded by the run "
                 "(docs/patches.md); relative to the namelist's directory. `kosmo run --patch DIR` overrides it"),
  });
}

}  // namespace kosmo::driver
