#include "io/ramses_sink_file.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "core/error.hpp"

namespace kosmo::io {
namespace {

// RAMSES' columns after `id` up to `dmfsink`, each with the kosmo attribute it comes from ("" when
// kosmo keeps nothing there: written as 0) and its units in RAMSES' notation.
struct RamsesColumn {
  const char* name;
  const char* attribute;
  const char* units;
};
constexpr std::array<RamsesColumn, 21> ramses_columns = {{
    {"msink", "mass", "m"},
    {"x", "position_x", "l"},
    {"y", "position_y", "l"},
    {"z", "position_z", "l"},
    {"vx", "velocity_x", "l t**-1"},
    {"vy", "velocity_y", "l t**-1"},
    {"vz", "velocity_z", "l t**-1"},
    {"lx", "spin_x", "m l**2 t**-1"},
    {"ly", "spin_y", "m l**2 t**-1"},
    {"lz", "spin_z", "m l**2 t**-1"},
    {"tform", "birth_time", "t"},
    {"acc_rate", "accretion_rate", "m t**-1"},
    {"del_mass", "delta_mass", "m"},
    {"rho_gas", "zone_density", "m l**-3"},
    {"cs**2", "zone_sound_speed_squared", "l**2 t**-2"},
    {"etherm", "zone_thermal_energy", "m l**2 t**-2"},
    {"vx_gas", "zone_velocity_x", "l t**-1"},
    {"vy_gas", "zone_velocity_y", "l t**-1"},
    {"vz_gas", "zone_velocity_z", "l t**-1"},
    {"mbh", "mass", "m"},
    {"dmfsink", "accreted_mass", "m"},
}};

std::string number5(int n) {
  char text[16];
  std::snprintf(text, sizeof text, "%05d", n);
  return text;
}

std::string fortran_i10(long long value) {
  char text[32];
  std::snprintf(text, sizeof text, "%10lld", value);
  const std::string s = text;
  return s.size() > 10 ? std::string(10, '*') : s;  // Fortran fills an overflowing field with stars
}

// The float64 attribute named `name` of the sinks, or nullptr.
const std::vector<double>* attribute_values(const SnapshotParticles& p, const std::string& name) {
  for (const auto& attribute : p.attributes)
    if (attribute.name == name) return std::get_if<std::vector<double>>(&attribute.values);
  return nullptr;
}

// The values of a RAMSES column for the sinks: a standard array, an attribute, or nothing.
const std::vector<double>* column_values(const SnapshotParticles& p, const std::string& attribute) {
  if (attribute == "mass") return &p.mass;
  for (int d = 0; d < 3; ++d) {
    if (attribute == std::string("position_") + "xyz"[d]) return p.position[static_cast<std::size_t>(d)].empty() ? nullptr : &p.position[static_cast<std::size_t>(d)];
    if (attribute == std::string("velocity_") + "xyz"[d]) return p.velocity[static_cast<std::size_t>(d)].empty() ? nullptr : &p.velocity[static_cast<std::size_t>(d)];
  }
  return attribute_values(p, attribute);
}

// A registry unit (code_mass*code_velocity**2, code_mass/code_time, ...) in the notation of
// RAMSES' units line (m l**2 t**-2), which osyris evaluates with m, l and t bound to the code units;
// "1" for a dimensionless or unknown unit.
std::string ramses_units(const std::string& units) {
  static const std::map<std::string, std::array<int, 3>> base = {
      {"code_mass", {1, 0, 0}},     {"code_length", {0, 1, 0}},  {"code_time", {0, 0, 1}},
      {"code_velocity", {0, 1, -1}}, {"code_density", {1, -3, 0}}};
  std::array<int, 3> power{};
  std::size_t at = 0;
  int sign = 1;
  while (at < units.size()) {
    std::size_t end = at;
    while (end < units.size() && units[end] != '/' && !(units[end] == '*' && (end + 1 >= units.size() || units[end + 1] != '*'))) {
      if (units[end] == '*') ++end;  // the first '*' of '**'
      ++end;
    }
    const std::string term = units.substr(at, end - at);
    const std::size_t raise = term.find("**");
    const auto found = base.find(term.substr(0, raise));
    if (found == base.end()) return "1";
    const int exponent = raise == std::string::npos ? 1 : std::atoi(term.c_str() + raise + 2);
    for (std::size_t k = 0; k < 3; ++k) power[k] += sign * exponent * found->second[k];
    if (end < units.size()) sign = units[end] == '/' ? -1 : 1;
    at = end + 1;
  }
  std::string text;
  const char* symbols[3] = {"m", "l", "t"};
  for (std::size_t k = 0; k < 3; ++k) {
    if (power[k] == 0) continue;
    if (!text.empty()) text.append(" ");
    text.append(symbols[k]);
    if (power[k] != 1) text.append("**").append(std::to_string(power[k]));
  }
  return text.empty() ? std::string("1") : text;
}

bool is_ramses_column_attribute(const std::string& name) {
  return std::any_of(ramses_columns.begin(), ramses_columns.end(), [&](const RamsesColumn& c) { return name == c.attribute; });
}

// Fortran accepts "1.0000000000+100" (no E before a three-digit exponent); strtod needs the E.
double parse_real(std::string text, const std::string& shown, long line) {
  text.erase(0, text.find_first_not_of(" \t"));
  text.erase(text.find_last_not_of(" \t\r") + 1);
  for (std::size_t i = 1; i < text.size(); ++i)
    if ((text[i] == '+' || text[i] == '-') && std::isdigit(static_cast<unsigned char>(text[i - 1]))) {
      text.insert(i, "E");
      break;
    }
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  KOSMO_REQUIRE(!text.empty() && end == text.c_str() + text.size(),
                "RAMSES restart: '" << shown << "' line " << line << ": '" << text << "' is not a number");
  return value;
}

std::vector<std::string> split_columns(const std::string& line) {
  std::vector<std::string> columns;
  std::stringstream in(line);
  std::string column;
  while (std::getline(in, column, ',')) {
    column.erase(0, column.find_first_not_of(" \t"));
    column.erase(column.find_last_not_of(" \t\r") + 1);
    columns.push_back(column);
  }
  return columns;
}

}  // namespace

std::string fortran_es21_10(double value) {
  std::string body;
  if (std::isnan(value)) {
    body = "NaN";
  } else if (std::isinf(value)) {
    body = value > 0 ? "Infinity" : "-Infinity";
  } else {
    char text[64];
    std::snprintf(text, sizeof text, "%.10E", value);
    body = text;
    const std::size_t e = body.find('E');
    const int exponent = std::atoi(body.c_str() + e + 1);
    if (std::abs(exponent) >= 100) body.erase(e, 1);  // gfortran: d.ddd+100
  }
  return body.size() >= 21 ? body : std::string(21 - body.size(), ' ') + body;
}

std::string format_ramses_sink_file(const SnapshotMeta& meta) {
  const SnapshotParticles& p = meta.sinks.particles;
  std::vector<const ParticleAttributeArray*> extra;
  for (const auto& attribute : p.attributes)
    if (std::holds_alternative<std::vector<double>>(attribute.values) && !is_ramses_column_attribute(attribute.name))
      extra.push_back(&attribute);
  std::string names = " # id", units = " # 1";
  for (const RamsesColumn& column : ramses_columns) {
    names += std::string(",") + column.name;
    units += std::string(",") + column.units;
  }
  names += ",level";
  units += ",1";
  for (const ParticleAttributeArray* attribute : extra) {
    names.append(",").append(attribute->name);
    units.append(",").append(ramses_units(attribute->units));
  }
  // RAMSES ends the names line with a blank; after kosmo's extra columns none (osyris keeps it in
  // the last column's name).
  if (extra.empty()) names.append(" ");
  std::string text = names + "\n" + units + "\n";
  for (std::size_t s = 0; s < p.size(); ++s) {
    text += fortran_i10(p.id[s]);
    for (const RamsesColumn& column : ramses_columns) {
      const std::vector<double>* values = column_values(p, column.attribute);
      text.append(",").append(fortran_es21_10(values != nullptr ? (*values)[s] : 0.0));
    }
    text.append(",").append(fortran_i10(meta.levelmin));
    for (const ParticleAttributeArray* attribute : extra)
      text.append(",").append(fortran_es21_10(std::get<std::vector<double>>(attribute->values)[s]));
    text += "\n";
  }
  return text;
}

void write_ramses_sink_file(const std::filesystem::path& directory, const SnapshotMeta& meta) {
  if (!meta.sinks.present) return;
  const std::filesystem::path path = directory / ("sink_" + number5(meta.output_number) + ".csv");
  const std::filesystem::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << format_ramses_sink_file(meta);
    out.close();
    KOSMO_REQUIRE(out, "RAMSES output: cannot write '" << temporary.string() << "'");
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  KOSMO_REQUIRE(!error, "RAMSES output: cannot rename '" << temporary.string() << "': " << error.message());
}

SnapshotSinks read_ramses_sink_file(const std::filesystem::path& output_directory, const std::string& shown_directory,
                                    int output_number, int ndim) {
  SnapshotSinks sinks;
  const std::string name = "sink_" + number5(output_number) + ".csv";
  const std::filesystem::path path = output_directory / name;
  const std::string shown = shown_directory + "/" + name;
  if (!std::filesystem::exists(path)) return sinks;
  std::ifstream in(path);
  KOSMO_REQUIRE(in, "RAMSES restart: cannot open '" << shown << "'");
  std::string header, units;
  KOSMO_REQUIRE(std::getline(in, header) && std::getline(in, units), "RAMSES restart: '" << shown << "' lacks its two comment lines");
  std::vector<std::string> names = split_columns(header);
  KOSMO_REQUIRE(!names.empty() && names.front().find('#') != std::string::npos && names.size() >= 23,
                "RAMSES restart: '" << shown << "': the first line does not name RAMSES' 23 sink columns");
  names.front() = "id";
  sinks.present = true;
  SnapshotParticles& p = sinks.particles;
  std::vector<std::vector<double>> columns(names.size());
  std::string line;
  long number = 2;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::vector<std::string> values = split_columns(line);
    KOSMO_REQUIRE(values.size() == names.size(), "RAMSES restart: '" << shown << "' line " << number << " has " << values.size()
                                                                     << " columns, the header names " << names.size());
    for (std::size_t c = 0; c < names.size(); ++c) columns[c].push_back(parse_real(values[c], shown, number));
  }
  const auto column = [&](const std::string& wanted) -> const std::vector<double>* {
    for (std::size_t c = 0; c < names.size(); ++c)
      if (names[c] == wanted) return &columns[c];
    return nullptr;
  };
  const auto required = [&](const std::string& wanted) -> const std::vector<double>& {
    const std::vector<double>* values = column(wanted);
    KOSMO_REQUIRE(values != nullptr, "RAMSES restart: '" << shown << "' has no column '" << wanted << "'");
    return *values;
  };
  const std::size_t n = columns.front().size();
  for (double id : required("id")) p.id.push_back(static_cast<std::int64_t>(std::llround(id)));
  p.mass = required("msink");
  const char* axes = "xyz";
  for (int d = 0; d < ndim; ++d) {
    p.position[static_cast<std::size_t>(d)] = required(std::string(1, axes[d]));
    p.velocity[static_cast<std::size_t>(d)] = required(std::string("v") + axes[d]);
  }
  for (double level : required("level")) p.level.push_back(static_cast<std::int8_t>(std::lround(level)));
  p.family.assign(n, 3);  // RAMSES' FAM_CLOUD, kosmo's sink family
  // RAMSES' columns are kosmo's attributes; a further column that this run's sinks do not carry
  // (another code's extra column) is dropped rather than refused.
  const auto add = [&](const std::string& attribute, const std::vector<double>& values, bool in_restarts = true) {
    ParticleAttributeArray array;
    array.name = attribute;
    array.in_restarts = in_restarts;
    array.values = values;
    p.attributes.push_back(std::move(array));
  };
  add("birth_time", required("tform"));
  add("accretion_rate", required("acc_rate"));
  add("accreted_mass", required("dmfsink"));
  for (std::size_t c = 23; c < names.size(); ++c) add(names[c], columns[c], false);  // kosmo's further attributes
  for (std::int64_t id : p.id) sinks.largest_identity = std::max(sinks.largest_identity, id);
  return sinks;
}

}  // namespace kosmo::io
