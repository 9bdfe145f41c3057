#include "io/snapshot_particles.hpp"

#include <cstdint>
#include <set>
#include <type_traits>
#include <variant>

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
                                                 "potential",  "restart",    "restart_fields", "attributes"};
  std::set<std::string> names;
  const auto check_name = [&](const std::string& name, const char* what) {
    KOSMO_REQUIRE(!name.empty() && name != "." && name != ".." && name.find_first_of("/, \t\n") == std::string::npos &&
                      standard.count(name) == 0,
                  context << ": '" << name << "' cannot name a particle " << what);
    KOSMO_REQUIRE(names.insert(name).second, context << ": particle array '" << name << "' given twice");
  };
  for (const auto& field : particles.restart_fields) {
    check_name(field.name, "restart field");
    KOSMO_REQUIRE(field.values.size() == n, context << ": restart field '" << field.name << "' has "
                                                    << field.values.size() << " values for " << n << " particles");
  }
  for (const auto& attribute : particles.attributes) {
    check_name(attribute.name, "attribute");
    KOSMO_REQUIRE(attribute.size() == n, context << ": attribute '" << attribute.name << "' has " << attribute.size()
                                                 << " values for " << n << " particles");
  }
}

void require_same_restart_names(MPI_Comm comm, const SnapshotParticles& particles, const std::string& context) {
  std::uint64_t hash = 14695981039346656037ULL;  // FNV-1a over the names and their lengths
  const auto add = [&](const std::string& text) {
    for (char c : text + '\0') hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  };
  for (const auto& field : particles.restart_fields) add(field.name);
  add("/");  // the restart names end here, the attributes (name, type, units, exponent, restart) follow
  for (const auto& attribute : particles.attributes)
    add(attribute.name + ' ' + std::to_string(attribute.values.index()) + ' ' + attribute.units + ' ' +
        std::to_string(attribute.comoving_exponent) + (attribute.in_restarts ? " r" : " -"));
  std::uint64_t low = 0, high = 0;
  MPI_Allreduce(&hash, &low, 1, MPI_UINT64_T, MPI_MIN, comm);
  MPI_Allreduce(&hash, &high, 1, MPI_UINT64_T, MPI_MAX, comm);
  parallel::require_on_all_ranks(comm, low == high,
                                 context + ": the ranks pass different particle restart field or attribute names");
}

void append_particles(SnapshotParticles& to, const SnapshotParticles& from) {
  if (to.size() == 0 && to.restart_fields.empty() && to.attributes.empty()) {
    for (const auto& field : from.restart_fields) to.restart_fields.push_back({field.name, {}});
    for (const auto& attribute : from.attributes) {
      ParticleAttributeArray empty = attribute;
      std::visit([](auto& values) { values.clear(); }, empty.values);
      to.attributes.push_back(std::move(empty));
    }
  }
  KOSMO_REQUIRE(to.restart_fields.size() == from.restart_fields.size() && to.attributes.size() == from.attributes.size(),
                "particles: cannot append particles with " << from.restart_fields.size() << " restart fields and "
                                                           << from.attributes.size() << " attributes to "
                                                           << to.restart_fields.size() << " and " << to.attributes.size());
  for (std::size_t f = 0; f < to.restart_fields.size(); ++f) {
    KOSMO_REQUIRE(to.restart_fields[f].name == from.restart_fields[f].name,
                  "particles: restart field '" << from.restart_fields[f].name << "' where '"
                                               << to.restart_fields[f].name << "' was expected");
    auto& values = to.restart_fields[f].values;
    values.insert(values.end(), from.restart_fields[f].values.begin(), from.restart_fields[f].values.end());
  }
  for (std::size_t a = 0; a < to.attributes.size(); ++a) {
    ParticleAttributeArray& target = to.attributes[a];
    const ParticleAttributeArray& source = from.attributes[a];
    KOSMO_REQUIRE(target.name == source.name && target.values.index() == source.values.index(),
                  "particles: attribute '" << source.name << "' where '" << target.name << "' of the same type was expected");
    std::visit(
        [&](auto& values) {
          const auto& more = std::get<std::remove_reference_t<decltype(values)>>(source.values);
          values.insert(values.end(), more.begin(), more.end());
        },
        target.values);
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
