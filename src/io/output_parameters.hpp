#pragma once
// The io module's namelist keys: &OUTPUT_PARAMS, when snapshots are written, in which format, and
// what a restart reads.
namespace kosmo::core {
class SchemaBuilder;
}

namespace kosmo::io {

void declare_parameters(core::SchemaBuilder& schema);

}  // namespace kosmo::io
