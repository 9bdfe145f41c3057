#pragma once
// The driver's namelist keys: the &RUN_PARAMS switches that choose the modules and the problem, and
// run control (steps, subcycling, restart, wall-clock limit, job control).
namespace kosmo::core {
class SchemaBuilder;
}

namespace kosmo::driver {

void declare_run_parameters(core::SchemaBuilder& schema);

}  // namespace kosmo::driver
