#pragma once
// RAMSES' initial sinks (pm/init_sink.f90): the text file `ic_sink`, in initfile(levelmin) when
// that is set and holds one, else in the working directory. One sink a line, separated by commas
// or blanks: mass, x, y, z (relative to the box centre), vx, vy, vz, lx, ly, lz (angular momentum),
// the SMBH mass and the accreted mass, in code units. kosmo keeps the mass, position, velocity and
// accreted mass (it models neither the spin nor a separate SMBH mass).
#include <array>
#include <string>
#include <vector>

namespace kosmo::sinks {

struct InitialSink {
  double mass = 0.0;
  std::array<double, 3> position{};  // absolute: the file's offset plus boxlen / 2
  std::array<double, 3> velocity{};
  double accreted_mass = 0.0;
};

// The sinks of the file at `path`.
std::vector<InitialSink> read_initial_sinks(const std::string& path, double boxlen);

// The ic_sink RAMSES would read: directory/ic_sink when that file exists, else ./ic_sink when it
// exists, else "".
std::string initial_sink_file(const std::string& directory);

}  // namespace kosmo::sinks
