// Writing the particle files of a RAMSES output (declarations and layout: io/ramses_particles.hpp).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <variant>

#include "core/error.hpp"
#include "io/info_file.hpp"
#include "io/ramses_particles.hpp"
#include "io/ramses_records.hpp"
#include "io/snapshot_particles.hpp"

namespace kosmo::io {
namespace {

namespace fs = std::filesystem;
using ramses_detail::AtomicFile;
using ramses_detail::FortranRecordWriter;
using ramses_detail::number5;
using ramses_detail::to_int32;

constexpr const char* kAxes[3] = {"x", "y", "z"};

// The part file's fields in record order with their struct type codes: RAMSES' backup_part order
// without the optional potential, then every further registered attribute (RAMSES writes a star
// formation run's birth_time and metallicity there too). Restart-only state is not written: a
// restart from these files rebuilds it (docs/outputs.md, "Restarts").
std::vector<std::pair<std::string, char>> written_fields(int ndim, const RamsesParticleTotals& totals) {
  std::vector<std::pair<std::string, char>> fields;
  for (int d = 0; d < ndim; ++d) fields.emplace_back(std::string("position_") + kAxes[d], 'd');
  for (int d = 0; d < ndim; ++d) fields.emplace_back(std::string("velocity_") + kAxes[d], 'd');
  fields.emplace_back("mass", 'd');
  fields.emplace_back("identity", totals.identity_int64 ? 'q' : 'i');
  fields.emplace_back("levelp", 'i');
  fields.emplace_back("family", 'b');
  fields.emplace_back("tag", 'b');
  for (const auto& attribute : totals.attributes) fields.push_back(attribute);
  return fields;
}

// RAMSES' levelp: the level whose step last kicked the particle (pm/synchro_fine.f90 sets it at each
// kick), which a restart needs to redo that kick's provisional half (its dtnew). The particle
// module keeps that step's half length (the restart field pending_half_dt); the level is the one
// whose latest step it is half of, the current level when several match. Without that field or
// the levels' steps: the level of the particle's cell.
std::vector<std::int32_t> kick_levels(const SnapshotMeta& meta, const SnapshotParticles& particles) {
  std::vector<std::int32_t> levels(particles.level.begin(), particles.level.end());
  const auto half_dt = std::find_if(particles.restart_fields.begin(), particles.restart_fields.end(),
                                    [](const ParticleRestartField& f) { return f.name == kRamsesKickHalfStepField; });
  if (half_dt == particles.restart_fields.end() || meta.level_time_steps.empty()) return levels;
  const auto nlevel = static_cast<int>(meta.level_time_steps.size());
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const double half = half_dt->values[i];
    const auto matches = [&](int l) { return l >= 1 && l <= nlevel && 0.5 * meta.level_time_steps[static_cast<std::size_t>(l - 1)] == half; };
    if (half == 0.0 || matches(levels[i])) continue;
    for (int distance = 1; distance < nlevel; ++distance) {
      if (matches(levels[i] - distance)) {
        levels[i] -= distance;
        break;
      }
      if (matches(levels[i] + distance)) {
        levels[i] += distance;
        break;
      }
    }
  }
  return levels;
}

// RAMSES' struct type code of an attribute's values.
char type_code(const ParticleValues& values) {
  return std::visit(
      [](const auto& v) {
        using Value = typename std::decay_t<decltype(v)>::value_type;
        return std::is_same_v<Value, double> ? 'd' : std::is_same_v<Value, std::int64_t> ? 'q' : 'b';
      },
      values);
}

// Fortran's A edit descriptor on output: right-justified in w characters when shorter.
std::string fortran_a(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

}  // namespace

RamsesParticleTotals ramses_particle_totals(MPI_Comm comm, const SnapshotParticles& particles) {
  // counts: the 11 families, undefined, total, stars; all summed in one reduction.
  constexpr std::size_t nfamily = 2 * kRamsesFamilies + 1;
  std::vector<long long> local(nfamily + 3, 0), global(nfamily + 3, 0);
  double star_mass = 0.0;
  std::int64_t low = 0, high = 0;
  for (std::size_t i = 0; i < particles.size(); ++i) {
    const int family = particles.family[i];
    if (family >= -kRamsesFamilies && family <= kRamsesFamilies) {
      ++local[static_cast<std::size_t>(family + kRamsesFamilies)];
    } else {
      ++local[nfamily];
    }
    if (family == 2) {  // RAMSES FAM_STAR
      ++local[nfamily + 2];
      star_mass += particles.mass[i];
    }
    low = std::min(low, particles.id[i]);
    high = std::max(high, particles.id[i]);
  }
  local[nfamily + 1] = static_cast<long long>(particles.size());
  MPI_Allreduce(local.data(), global.data(), static_cast<int>(local.size()), MPI_LONG_LONG, MPI_SUM, comm);
  RamsesParticleTotals totals;
  std::copy_n(global.begin(), nfamily, totals.family_count.begin());
  totals.undefined = global[nfamily];
  totals.total = global[nfamily + 1];
  totals.stars = global[nfamily + 2];
  MPI_Allreduce(&star_mass, &totals.star_mass, 1, MPI_DOUBLE, MPI_SUM, comm);
  std::int64_t global_low = 0, global_high = 0;
  MPI_Allreduce(&low, &global_low, 1, MPI_INT64_T, MPI_MIN, comm);
  MPI_Allreduce(&high, &global_high, 1, MPI_INT64_T, MPI_MAX, comm);
  totals.identity_int64 = global_low < INT32_MIN || global_high > INT32_MAX;
  for (const auto& attribute : particles.attributes) totals.attributes.emplace_back(attribute.name, type_code(attribute.values));
  return totals;
}

void write_ramses_particle_file(const fs::path& directory, const SnapshotMeta& meta, int cpu,
                                const SnapshotParticles& particles, const RamsesParticleTotals& totals) {
  const fs::path path = directory / ("part_" + number5(meta.output_number) + ".out" + number5(cpu));
  check_snapshot_particles(particles, meta.ndim, "RAMSES output: particles for '" + path.string() + "'");
  const std::size_t n = particles.size();
  AtomicFile file(path);
  FortranRecordWriter out(file);
  out.ints({meta.ncpu}, "ncpu");
  out.ints({meta.ndim}, "ndim");
  out.ints({to_int32(static_cast<long long>(n), path, "npart")}, "npart");
  // RAMSES' random-number state for star formation; -1 is its "not yet seeded" value
  // (init_part), which a RAMSES restart replaces by fresh seeds.
  out.ints({-1, -1, -1, -1}, "localseed");
  out.ints({to_int32(totals.stars, path, "nstar_tot")}, "nstar_tot");
  out.reals({totals.star_mass}, "mstar_tot");
  out.reals({0.0}, "mstar_lost");
  out.ints({static_cast<std::int32_t>(meta.sinks.particles.size())}, "nsink");  // RAMSES nsink: the sinks of sink_NNNNN.csv
  for (int d = 0; d < meta.ndim; ++d) out.record(particles.position[static_cast<std::size_t>(d)], "position");
  for (int d = 0; d < meta.ndim; ++d) out.record(particles.velocity[static_cast<std::size_t>(d)], "velocity");
  out.record(particles.mass, "mass");
  if (totals.identity_int64) {
    out.record(particles.id, "identity");
  } else {
    std::vector<std::int32_t> id(n);
    for (std::size_t i = 0; i < n; ++i) id[i] = to_int32(particles.id[i], path, "identity");
    out.record(id, "identity");
  }
  out.record(kick_levels(meta, particles), "levelp");
  out.record(particles.family, "family");
  out.record(std::vector<std::int8_t>(n, 0), "tag");  // RAMSES' default tag; kosmo has no tags
  KOSMO_REQUIRE(totals.attributes.size() == particles.attributes.size(),
                "RAMSES output: '" << path.string() << "': " << particles.attributes.size()
                                   << " attributes, the descriptor lists " << totals.attributes.size());
  for (const auto& attribute : particles.attributes)
    std::visit([&](const auto& values) { out.record(values, attribute.name.c_str()); }, attribute.values);
  file.commit();
}

void write_ramses_particle_descriptor(const fs::path& directory, const SnapshotMeta& meta,
                                      const RamsesParticleTotals& totals) {
  AtomicFile file(directory / "part_file_descriptor.txt");
  file.stream() << "# version:  1\n# ivar, variable_name, variable_type\n";
  int index = 1;
  for (const auto& [name, type] : written_fields(meta.ndim, totals))  // (I2,", ",a,", ",a)
    file.stream() << format_fortran_i(index++, 2) << ", " << name << ", " << type << '\n';
  file.commit();
}

void write_ramses_output_header(const fs::path& directory, const SnapshotMeta& meta,
                                const RamsesParticleTotals& totals) {
  // pm_commons' particle_family_keys for families -5..5, as RAMSES' output_header prints them.
  static const char* const keys[2 * kRamsesFamilies + 1] = {"other_tracer", "debris_tracer", "cloud_tracer",
                                                            "star_tracer",  "other_tracer",  "gas_tracer",
                                                            "DM",           "star",          "cloud",
                                                            "debris",       "other"};
  AtomicFile file(directory / ("header_" + number5(meta.output_number) + ".txt"));
  auto& out = file.stream();
  out << '#' << fortran_a("Family", 12) << fortran_a("Count", 10) << '\n';  // (a1,a12,a10)
  for (std::size_t f = 0; f < totals.family_count.size(); ++f)              // (a13,i10)
    out << fortran_a(keys[f], 13) << format_fortran_i(totals.family_count[f], 10) << '\n';
  out << fortran_a("undefined", 13) << format_fortran_i(totals.undefined, 10) << '\n';
  out << " Particle fields\n";  // list-directed write: one leading blank
  out << "pos vel mass iord level family tag \n";
  file.commit();
}

}  // namespace kosmo::io
