#include "io/snapshot_particles.hpp"

#include <cstdint>
#include <set>

#include "core/error.hpp"
#include "parallel/collective_check.hpp"

namespace kosmo::io {

void check_snapshot_particles(const SnapshotParticles& particles, int ndim, const std::string& context) {
  KOSMO_REQUIRE(ndim >= 1 && ndim <= 3, context << ": ndim must be 1, 2 or 3, got " << ndim);
  const std::size_t n = particles.size();
  const char* axes = "xyz";
  for (int d = 0; d < 3; ++d) {
    const auto axis = static_cast<std::size_t>(d);
    const std::size_t expected = d < ndim ? n : 0;
    KOSMO_REQUIRE(particles.position[axis].size() == expected,
                  context << ": position_" << axes[d] << " has " << particles.position[axis].size() << " values for "
                          << n << " particles in " << ndim << "-D (expected " << expected << ")");
    KOSMO_REQUIRE(particles.velocity[axis].size() == expected,
                  context << ": velocity_" << axes[d] << " has " << particles.velocity[axis].size() << " values for "
                          << n << " particles in " << ndim << "-D (expected " << expected << ")");
  }
  KOSMO_REQUIRE(particles.id.size() == n && particles.level.size() == n && particles.family.size() == n,
                context << ": " << n << " masses but " << particles.id.size() << " ids, " << particles.level.size()
                        << " levels and " << particles.family.size() << " families");
  static const std::set<std::string> standard = {"position_x", "position_y", "position_z", "velocity_x",
                                                 "velocity_y", "velocity_z", "mass",       "identity",
                                                 "level",      "levelp",     "family",     "tag",
                                                 "potential",  "restart",    "restart_fields"};
  std::set<std::string> names;
  for (const auto& field : particles.restart_fields) {
    KOSMO_REQUIRE(!field.name.empty() && field.name != "." && field.name != ".." &&
                      field.name.find_first_of("/, \t\n") == std::string::npos && standard.count(field.name) == 0,
                  context << ": '" << field.name << "' cannot name a particle restart field");
    KOSMO_REQUIRE(names.insert(field.name).second, context << ": restart field '" << field.name << "' given twice");
    KOSMO_REQUIRE(field.values.size() == n, context << ": restart field '" << field.name << "' has "
                                                    << field.values.size() << " values for " << n << " particles");
  }
}

void require_same_restart_names(MPI_Comm comm, const SnapshotParticles& particles, const std::string& context) {
  std::uint64_t hash = 14695981039346656037ULL;  // FNV-1a over the names and their lengths
  for (const auto& field : particles.restart_fields) {
    for (char c : field.name + '\0') hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  std::uint64_t low = 0, high = 0;
  MPI_Allreduce(&hash, &low, 1, MPI_UINT64_T, MPI_MIN, comm);
  MPI_Allreduce(&hash, &high, 1, MPI_UINT64_T, MPI_MAX, comm);
  parallel::require_on_all_ranks(comm, low == high,
                                 context + ": the ranks pass different particle restart field names");
}

void append_particles(SnapshotParticles& to, const SnapshotParticles& from) {
  if (to.size() == 0 && to.restart_fields.empty()) {
    for (const auto& field : from.restart_fields) to.restart_fields.push_back({field.name, {}});
  }
  KOSMO_REQUIRE(to.restart_fields.size() == from.restart_fields.size(),
                "particles: cannot append particles with " << from.restart_fields.size() << " restart fields to "
                                                           << to.restart_fields.size());
  for (std::size_t f = 0; f < to.restart_fields.size(); ++f) {
    KOSMO_REQUIRE(to.restart_fields[f].name == from.restart_fields[f].name,
                  "particles: restart field '" << from.restart_fields[f].name << "' where '"
                                               << to.restart_fields[f].name << "' was expected");
    auto& values = to.restart_fields[f].values;
    values.insert(values.end(), from.restart_fields[f].values.begin(), from.restart_fields[f].values.end());
  }
  for (std::size_t d = 0; d < 3; ++d) {
    to.position[d].insert(to.position[d].end(), from.position[d].begin(), from.position[d].end());
    to.velocity[d].insert(to.velocity[d].end(), from.velocity[d].begin(), from.velocity[d].end());
  }
  to.mass.insert(to.mass.end(), from.mass.begin(), from.mass.end());
  to.id.insert(to.id.end(), from.id.begin(), from.id.end());
  to.level.insert(to.level.end(), from.level.begin(), from.level.end());
  to.family.insert(to.family.end(), from.family.begin(), from.family.end());
}

}  // namespace kosmo::io
