#include "sinks/sink_initial_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace kosmo::sinks {

std::vector<InitialSink> read_initial_sinks(const std::string& path, double boxlen) {
  std::ifstream in(path);
  KOSMO_REQUIRE(in, path << ": cannot open the initial sinks");
  std::vector<InitialSink> sinks;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    for (char& c : line)
      if (c == ',') c = ' ';
    std::istringstream fields(line);
    std::vector<double> values;
    for (double v; fields >> v;) values.push_back(v);
    if (values.empty()) continue;
    KOSMO_REQUIRE(values.size() >= 12 && fields.eof(),
                  path << ":" << number << ": an initial sink is 12 numbers (m, x, y, z, vx, vy, vz, lx, ly, lz, m_smbh, dm), found '" << line << "'");
    InitialSink sink;
    sink.mass = values[0];
    for (std::size_t d = 0; d < 3; ++d) {
      sink.position[d] = values[1 + d] + boxlen / 2.0;
      sink.velocity[d] = values[4 + d];
    }
    sink.accreted_mass = values[11];
    KOSMO_REQUIRE(sink.mass > 0.0, path << ":" << number << ": a sink's mass must be > 0");
    sinks.push_back(sink);
  }
  return sinks;
}

std::string initial_sink_file(const std::string& directory) {
  namespace fs = std::filesystem;
  if (!directory.empty() && fs::exists(fs::path(directory) / "ic_sink")) return (fs::path(directory) / "ic_sink").string();
  if (fs::exists("ic_sink")) return "ic_sink";
  return "";
}

}  // namespace kosmo::sinks
