// Reading the particle files of a RAMSES output for a restart (declarations: io/ramses_particles.hpp).
#include <cstdint>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "io/ramses_particles.hpp"
#include "io/ramses_record_reader.hpp"
#include "io/ramses_records.hpp"

namespace kosmo::io {
namespace {

namespace fs = std::filesystem;
using ramses_detail::FortranRecordReader;
using ramses_detail::number5;
using ramses_detail::trim;


std::string part_file(int output_number, int cpu) { return "part_" + number5(output_number) + ".out" + number5(cpu); }

// Which fields a kosmo restart takes, and the struct type codes it accepts for each. The potential
// is recomputed by the first Poisson solve after the restart, as RAMSES does, so it is skipped; any
// other field is a registered attribute of the run that wrote it (float64 ones come back as restart
// fields, int64 and int8 ones as attributes: read_ramses_particle_file).
bool is_standard(const std::string& name) {
  for (const char* prefix : {"position_", "velocity_"})
    for (const char* axis : {"x", "y", "z"})
      if (name == std::string(prefix) + axis) return true;
  for (const char* other : {"mass", "potential", "identity", "levelp", "family", "tag"})
    if (name == other) return true;
  return false;
}
bool accepted(const std::string& name, char type, int ndim) {
  for (int d = 0; d < ndim; ++d)
    if (name == std::string("position_") + "xyz"[d] || name == std::string("velocity_") + "xyz"[d]) return type == 'd';
  if (name == "mass" || name == "potential") return type == 'd';
  if (name == "identity") return type == 'i' || type == 'q';
  if (name == "levelp") return type == 'i';
  if (name == "family" || name == "tag") return type == 'b';
  return !is_standard(name) && (type == 'd' || type == 'q' || type == 'b');
}

// header_NNNNN.txt's particle total: the family table (RAMSES with families) or the line after
// "Total number of particles" (older RAMSES); -1 when there is no such file or neither form.
long long header_total(const fs::path& path) {
  std::ifstream in(path);
  if (!in.is_open()) return -1;
  std::string line;
  long long total = 0;
  bool table = false;
  while (std::getline(in, line)) {
    if (line.find("Total number of particles") != std::string::npos) {
      long long count = -1;
      return (in >> count) ? count : -1;
    }
    if (line.rfind('#', 0) == 0 && line.find("Family") != std::string::npos) {
      table = true;
      continue;
    }
    if (!table) continue;
    if (line.find("Particle fields") != std::string::npos) return total;
    std::istringstream fields(line);
    std::string key;
    long long count = 0;
    if (!(fields >> key >> count)) return -1;
    total += count;
  }
  return -1;
}

}  // namespace

RamsesParticleLayout read_ramses_particle_layout(const fs::path& output, const std::string& shown, int output_number,
                                                 int ndim) {
  RamsesParticleLayout layout;
  layout.header_total = header_total(output / ("header_" + number5(output_number) + ".txt"));
  const fs::path descriptor = output / "part_file_descriptor.txt";
  const std::string descriptor_shown = shown + "/part_file_descriptor.txt";
  std::ifstream in(descriptor);
  if (in.is_open()) {
    layout.present = true;
    layout.why = descriptor_shown;
    std::string line;
    while (std::getline(in, line)) {
      line = trim(line);
      if (line.empty() || line[0] == '#') continue;
      std::stringstream fields(line);
      std::string index, name, type;
      std::getline(fields, index, ',');
      std::getline(fields, name, ',');
      std::getline(fields, type, ',');
      name = trim(name);
      type = trim(type);
      KOSMO_REQUIRE(!name.empty() && type.size() == 1,
                    "RAMSES restart: '" << descriptor_shown << "': cannot read the line '" << line << "'");
      KOSMO_REQUIRE(accepted(name, type[0], ndim),
                    "RAMSES restart: '" << descriptor_shown << "' lists the particle field '" << name << "' of type '"
                                        << type << "', which a kosmo restart cannot take (it reads position_* and "
                                        << "velocity_* of the run's axes, mass as d, identity as i or q, levelp as i, "
                                        << "family and tag as b, other fields as d, q or b)");
      layout.fields.emplace_back(name, type[0]);
    }
  } else {
    const bool first_file = fs::exists(output / part_file(output_number, 1));
    if (!first_file && layout.header_total <= 0) return layout;  // a run without particles
    // RAMSES' layout before descriptors existed (pm/output_part.f90 of those versions).
    layout.present = true;
    layout.why = first_file ? shown + "/" + part_file(output_number, 1)
                            : shown + "/header_" + number5(output_number) + ".txt";
    for (const char* kind : {"position_", "velocity_"})
      for (int d = 0; d < ndim; ++d) layout.fields.emplace_back(std::string(kind) + "xyz"[d], 'd');
    layout.fields.emplace_back("mass", 'd');
    layout.fields.emplace_back("identity", 'i');
    layout.fields.emplace_back("levelp", 'i');
  }
  for (const char* kind : {"position_", "velocity_"})
    for (int d = 0; d < ndim; ++d) {
      int found = 0;
      for (const auto& field : layout.fields) found += field.first == std::string(kind) + "xyz"[d];
      KOSMO_REQUIRE(found == 1, "RAMSES restart: '" << layout.why << "' lists " << kind << "xyz"[d] << " " << found
                                                    << " times, expected once");
    }
  for (const char* name : {"mass", "identity"}) {
    int found = 0;
    for (const auto& field : layout.fields) found += field.first == name;
    KOSMO_REQUIRE(found == 1, "RAMSES restart: '" << layout.why << "' lists the particle field '" << name << "' " << found
                                                  << " times, expected once");
  }
  return layout;
}

SnapshotParticles empty_ramses_particles(const RamsesParticleLayout& layout) {
  SnapshotParticles particles;
  for (const auto& [field, type] : layout.fields) {
    if (is_standard(field)) continue;
    if (type == 'd') {
      particles.restart_fields.push_back({field, {}});
    } else {
      ParticleAttributeArray attribute;
      attribute.name = field;
      if (type == 'q') attribute.values = std::vector<std::int64_t>{};
      if (type == 'b') attribute.values = std::vector<std::int8_t>{};
      particles.attributes.push_back(std::move(attribute));
    }
  }
  return particles;
}

SnapshotParticles read_ramses_particle_file(const fs::path& output, const std::string& shown, int output_number, int cpu,
                                            int ncpu, int ndim, const RamsesParticleLayout& layout) {
  const std::string name = part_file(output_number, cpu);
  const std::string file_shown = shown + "/" + name;
  KOSMO_REQUIRE(fs::exists(output / name), "RAMSES restart: " << file_shown << " is missing: " << layout.why
                                                              << " says the output has particles, in ncpu=" << ncpu
                                                              << " files");
  FortranRecordReader in(output / name, file_shown);
  const int file_ncpu = in.value<std::int32_t>("ncpu");
  const int file_ndim = in.value<std::int32_t>("ndim");
  KOSMO_REQUIRE(file_ncpu == ncpu && file_ndim == ndim, "RAMSES restart: '" << file_shown << "' has ncpu=" << file_ncpu
                                                                            << ", ndim=" << file_ndim
                                                                            << " but the info file says ncpu=" << ncpu
                                                                            << ", ndim=" << ndim);
  const int npart = in.value<std::int32_t>("npart");
  KOSMO_REQUIRE(npart >= 0, "RAMSES restart: '" << file_shown << "' has npart=" << npart);
  // localseed (4 int32), nstar_tot (int32, int64 with LONGINT), mstar_tot, mstar_lost, nsink: the
  // star-formation and sink state, which kosmo does not restore.
  for (const char* what : {"localseed", "nstar_tot", "mstar_tot", "mstar_lost", "nsink"}) in.skip(what);

  const auto n = static_cast<std::size_t>(npart);
  SnapshotParticles particles = empty_ramses_particles(layout);
  particles.level.assign(n, 0);
  particles.family.assign(n, 1);  // files without a family record hold dark matter (RAMSES FAM_DM)
  for (const auto& [field, type] : layout.fields) {
    const char* what = field.c_str();
    if (field == "potential" || field == "tag") {
      in.skip(what);
    } else if (field == "mass") {
      particles.mass = in.values<double>(n, what);
    } else if (field == "identity" && type == 'q') {
      particles.id = in.values<std::int64_t>(n, what);
    } else if (field == "identity") {
      const auto id = in.values<std::int32_t>(n, what);
      particles.id.assign(id.begin(), id.end());
    } else if (field == "levelp") {
      const auto level = in.values<std::int32_t>(n, what);
      for (std::size_t i = 0; i < n; ++i) {
        KOSMO_REQUIRE(level[i] >= 0 && level[i] <= INT8_MAX,
                      "RAMSES restart: '" << file_shown << "': particle " << i << " has levelp " << level[i]);
        particles.level[i] = static_cast<std::int8_t>(level[i]);
      }
    } else if (field == "family") {
      particles.family = in.values<std::int8_t>(n, what);
    } else if (is_standard(field)) {  // position_<axis> or velocity_<axis> (read_ramses_particle_layout)
      const auto axis = static_cast<std::size_t>(field.back() - 'x');
      (field[0] == 'p' ? particles.position : particles.velocity)[axis] = in.values<double>(n, what);
    } else if (type == 'd') {
      for (auto& restart : particles.restart_fields)
        if (restart.name == field) restart.values = in.values<double>(n, what);
    } else {
      for (auto& attribute : particles.attributes)
        if (attribute.name == field) {
          if (type == 'q') attribute.values = in.values<std::int64_t>(n, what);
          if (type == 'b') attribute.values = in.values<std::int8_t>(n, what);
        }
    }
  }
  KOSMO_REQUIRE(in.at_end(), "RAMSES restart: '" << file_shown << "' holds more records than " << layout.why
                                                 << " lists (for example birth_time and metallicity of a RAMSES run "
                                                 << "with stars and no part_file_descriptor.txt)");
  return particles;
}

}  // namespace kosmo::io
