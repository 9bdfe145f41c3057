#include "driver/particle_initial_conditions.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace kosmo::driver {

template <int D>
particles::ParticleSet<D> read_ascii_particles(const core::ParameterSet& params) {
  const auto initfile = params.get_string_array("INIT_PARAMS", "initfile");
  KOSMO_REQUIRE(!initfile.empty() && !initfile[0].empty(),
                params.source() << ": &INIT_PARAMS: pic=.true. with filetype='ascii' needs initfile(1), the directory "
                                   "holding ic_part");
  const std::string path = (std::filesystem::path(initfile[0]) / "ic_part").string();
  std::ifstream in(path);
  KOSMO_REQUIRE(in.good(), path << ": cannot open the particle file (&INIT_PARAMS initfile(1) of " << params.source() << ")");
  const double boxlen = params.get_real("AMR_PARAMS", "boxlen");
  particles::ParticleSet<D> set;
  std::string line;
  long long number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream fields(line);
    std::vector<double> values;
    double v = 0.0;
    while (fields >> v) values.push_back(v);
    KOSMO_REQUIRE(fields.eof() && values.size() == 2 * D + 1,
                  path << ":" << number << ": expected " << 2 * D + 1 << " numbers (" << D << " positions, " << D
                       << " velocities, mass), found '" << line << "'");
    typename particles::ParticleSet<D>::Particle p;
    for (int d = 0; d < D; ++d) {
      p.position[static_cast<std::size_t>(d)] = values[static_cast<std::size_t>(d)];
      p.velocity[static_cast<std::size_t>(d)] = values[static_cast<std::size_t>(D + d)];
      KOSMO_REQUIRE(values[static_cast<std::size_t>(d)] >= 0.0 && values[static_cast<std::size_t>(d)] < boxlen,
                    path << ":" << number << ": position " << values[static_cast<std::size_t>(d)] << " lies outside the box [0, "
                         << boxlen << ")");
    }
    p.mass = values[2 * D];
    KOSMO_REQUIRE(p.mass >= 0.0, path << ":" << number << ": negative mass " << p.mass);
    p.id = static_cast<std::int64_t>(set.size()) + 1;
    set.add(p);
  }
  return set;
}

template particles::ParticleSet<1> read_ascii_particles<1>(const core::ParameterSet&);
template particles::ParticleSet<2> read_ascii_particles<2>(const core::ParameterSet&);
template particles::ParticleSet<3> read_ascii_particles<3>(const core::ParameterSet&);

}  // namespace kosmo::driver
