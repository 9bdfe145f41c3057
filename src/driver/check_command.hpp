#pragma once
// `kosmo check NAMELIST`: reads and validates a namelist as a run would, without running it.
#include <iosfwd>

#include "driver/command_line.hpp"

namespace kosmo::driver {

// Prints every problem of the namelist, one line each (file:line: &BLOCK: ...), or that the run
// can start and which RAMSES keys it accepts and ignores. Returns the exit status: 0 when the run
// could start, 1 otherwise.
int check_command(const CommandLine& line, std::ostream& out);

}  // namespace kosmo::driver
