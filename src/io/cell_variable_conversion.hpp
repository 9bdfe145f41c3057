#pragma once
// What the RAMSES-format restart reader (io/ramses_reader.hpp) needs to know about the physics
// module whose variables a hydro_NNNNN.outCCCCC file holds, handed to it by that module (for the
// gas: hydro/hydro_restart_conversion.hpp), so that io/ repeats none of the module's names or
// formulas. RAMSES files hold the primitive variables of analysis outputs; restarts need the
// module's evolved (conservative) state.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace kosmo::io {

// One variable a hydro_ file may hold, as hydro_file_descriptor.txt names it.
struct FileVariable {
  std::string name;  // as kosmo's writer lists it
  // Further names a descriptor may give it (RAMSES' own, e.g. metallicity for the first passive
  // scalar). A name ending in '*' stands for every name with that prefix.
  std::vector<std::string> other_names;

  bool named(const std::string& descriptor_name) const {
    if (descriptor_name == name) return true;
    for (const std::string& other : other_names) {
      const bool prefix = !other.empty() && other.back() == '*';
      if (prefix ? descriptor_name.starts_with(other.substr(0, other.size() - 1)) : descriptor_name == other) return true;
    }
    return false;
  }
};

struct CellVariableConversion {
  // The variables a hydro_ file must hold, in the order `to_restart` reads them; also RAMSES'
  // default order when an output has no hydro_file_descriptor.txt. A descriptor's variables are
  // matched in file order, each to the first not yet matched entry that takes its name (RAMSES
  // numbers passive scalars by position, so a file's scalars fill the scalar entries in turn).
  std::vector<FileVariable> file_variables;
  // The restart fields `to_restart` produces, in order: registered field names of the module.
  std::vector<std::string> restart_fields;
  // One cell: file_variables.size() values in, restart_fields.size() values out; `gamma` is the
  // ratio of specific heats of the hydro files' header.
  std::function<void(const double* file_values, double* restart_values, double gamma)> to_restart;
};

}  // namespace kosmo::io
