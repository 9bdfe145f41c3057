#include "driver/check_command.hpp"

#include <ostream>
#include <string>

#include "core/error.hpp"
#include "driver/run.hpp"

namespace kosmo::driver {

int check_command(const CommandLine& line, std::ostream& out) {
  try {
    const core::ParameterSet params = load_run_parameters(line);
    out << line.namelist << ": the run can start\n";
    const std::string ignored = params.ignored_summary();
    if (!ignored.empty()) out << ignored << "\n";
    return 0;
  } catch (const Error& error) {
    const std::string problems = error.what();
    std::size_t count = 1;
    for (const char c : problems) count += c == '\n' ? 1 : 0;
    out << problems << "\n" << line.namelist << ": " << count << " problem" << (count == 1 ? "" : "s")
        << "; the run would stop before any work\n";
    return 1;
  }
}

}  // namespace kosmo::driver
