#pragma once
// The tracer module's namelist keys: RAMSES' &RUN_PARAMS tracer and the &TRACER_PARAMS block
// (docs/tracers.md).
namespace kosmo::core {
class SchemaBuilder;
}

namespace kosmo::tracers {

void declare_parameters(core::SchemaBuilder& schema);

}  // namespace kosmo::tracers
