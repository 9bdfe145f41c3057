#pragma once
// The parallel module's namelist keys: domain decomposition, load balance and its cost weights,
// ghost-exchange transport (&RUN_PARAMS, &AMR_PARAMS).
namespace kosmo::core {
class SchemaBuilder;
}

namespace kosmo::parallel {

void declare_parameters(core::SchemaBuilder& schema);

}  // namespace kosmo::parallel
