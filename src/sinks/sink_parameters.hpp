#pragma once
// The namelist keys of sink particles (&RUN_PARAMS sink, &SINK_PARAMS, &REFINE_PARAMS sink_refine);
// docs/galaxy.md "Sink particles".
#include "core/parameters.hpp"

namespace kosmo::core {
class SchemaBuilder;
}

namespace kosmo::sinks {

void declare_parameters(core::SchemaBuilder& schema);

}  // namespace kosmo::sinks
