#include "io/ramses_sink_clouds.hpp"
#include "io/ramses_sink_file.hpp"
#include "io/ramses_reader.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "core/error.hpp"
#include "io/ramses_gravity_file.hpp"
#include "io/ramses_particles.hpp"
#include "io/ramses_record_reader.hpp"
#include "io/ramses_records.hpp"
#include "io/snapshot_particles.hpp"
#include "io/snapshot_writer.hpp"
#include "parallel/collective_check.hpp"

namespace kosmo::io {
namespace {

namespace fs = std::filesystem;
using parallel::run_collectively;
using ramses_detail::FortranRecordReader;
using ramses_detail::number5;
using ramses_detail::trim;


// info_NNNNN.txt: every "key = value" line (ramses-format.md, info_NNNNN.txt).
struct InfoFile {
  std::map<std::string, std::string> entries;
  std::string shown;
  const std::string& text(const std::string& key) const {
    const auto found = entries.find(key);
    KOSMO_REQUIRE(found != entries.end(), "RAMSES restart: '" << shown << "' has no '" << key << "' line");
    return found->second;
  }
  long long integer(const std::string& key) const {
    const std::string& value = text(key);
    char* end = nullptr;
    const long long parsed = std::strtoll(value.c_str(), &end, 10);
    KOSMO_REQUIRE(end != value.c_str() && trim(end).empty(),
                  "RAMSES restart: '" << shown << "': " << key << " = '" << value << "' is not an integer");
    return parsed;
  }
  double real(const std::string& key, double fallback) const {
    const auto found = entries.find(key);
    if (found == entries.end()) return fallback;
    std::string value = found->second;
    for (char& c : value)
      if (c == 'd' || c == 'D') c = 'e';
    char* end = nullptr;
    const double parsed = std::strtod(value.c_str(), &end);
    KOSMO_REQUIRE(end != value.c_str(), "RAMSES restart: '" << shown << "': " << key << " = '" << value << "' is not a number");
    return parsed;
  }
};

InfoFile read_info(const fs::path& path, const std::string& shown) {
  InfoFile info;
  info.shown = shown;
  std::ifstream in(path);
  KOSMO_REQUIRE(in.is_open(), "RAMSES restart: '" << shown << "' does not exist (nrestart names an output that is not there, "
                                                  << "or it was not written in RAMSES format: see informat)");
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("DOMAIN") != std::string::npos) break;  // the domain table follows
    const auto equals = line.find('=');
    if (equals == std::string::npos) continue;
    info.entries[trim(line.substr(0, equals))] = trim(line.substr(equals + 1));
  }
  return info;
}

// Where each of the conversion's file variables sits in the hydro files (0-based), from
// hydro_file_descriptor.txt, or the conversion's own order (RAMSES' default layout) without one.
struct Layout {
  std::vector<int> column;  // column[i]: the file's variable holding conversion.file_variables[i], -1 when absent
  int nvar = 0;             // -1: no descriptor, take the hydro header's nvar
};

// "density, velocity_x, ..." for messages.
std::string listed(const CellVariableConversion& conversion) {
  std::string names;
  for (const FileVariable& variable : conversion.file_variables) names += (names.empty() ? "" : ", ") + variable.name;
  return names;
}

std::vector<std::string> descriptor_names(std::ifstream& in, const std::string& shown) {
  std::vector<std::string> names;
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    std::string name;
    if (line.rfind("variable #", 0) == 0) {  // version 0: "variable #  1: density"
      name = trim(line.substr(line.find(':') + 1));
    } else {  // version 1: " 1, density, d"
      std::stringstream fields(line);
      std::string index, type;
      std::getline(fields, index, ',');
      std::getline(fields, name, ',');
      std::getline(fields, type, ',');
      name = trim(name);
      KOSMO_REQUIRE(trim(type).empty() || trim(type) == "d", "RAMSES restart: '" << shown << "': variable '" << name
                                                                                 << "' has type '" << trim(type)
                                                                                 << "', only double ('d') is read");
    }
    names.push_back(name);
  }
  return names;
}

// Each descriptor variable, in file order, goes to the first unmatched file variable of the
// conversion that takes its name (io/cell_variable_conversion.hpp).
Layout read_layout(const fs::path& path, const std::string& shown, const CellVariableConversion& conversion) {
  Layout layout;
  layout.column.assign(conversion.file_variables.size(), -1);
  std::ifstream in(path);
  if (!in.is_open()) {
    layout.nvar = -1;
    return layout;
  }
  const std::vector<std::string> names = descriptor_names(in, shown);
  layout.nvar = static_cast<int>(names.size());
  for (int v = 0; v < layout.nvar; ++v) {
    const std::string& name = names[static_cast<std::size_t>(v)];
    std::size_t i = 0;
    while (i < conversion.file_variables.size() && (layout.column[i] >= 0 || !conversion.file_variables[i].named(name))) ++i;
    KOSMO_REQUIRE(i < conversion.file_variables.size(),
                  "RAMSES restart: '" << shown << "' lists the variable '" << name << "', which this run's restart cannot take "
                                      << "(it takes " << listed(conversion) << "; npassive or the physics changed?)");
    layout.column[i] = v;
  }
  return layout;
}

// Checked once a file header has confirmed ndim (an ndim error is reported as such first).
void check_layout(const Layout& layout, const CellVariableConversion& conversion, int ndim) {
  for (std::size_t i = 0; i < layout.column.size(); ++i)
    KOSMO_REQUIRE(layout.column[i] >= 0, "RAMSES restart: 'hydro_file_descriptor.txt' of a " << ndim << "-D output lacks "
                                                                                              << conversion.file_variables[i].name
                                                                                              << ", which this run's restart needs (it takes "
                                                                                              << listed(conversion) << ")");
}

void default_layout(Layout& layout, int nvar, const std::string& hydro_shown, const CellVariableConversion& conversion) {
  KOSMO_REQUIRE(nvar == static_cast<int>(conversion.file_variables.size()),
                "RAMSES restart: '" << hydro_shown << "' has nvar=" << nvar << " and the output has no hydro_file_descriptor.txt, "
                                    << "but this run's restart takes " << conversion.file_variables.size() << " variables ("
                                    << listed(conversion) << ")");
  layout.nvar = nvar;
  for (std::size_t i = 0; i < layout.column.size(); ++i) layout.column[i] = static_cast<int>(i);
}

// The header values every file must agree on (packed for a broadcast from rank 0: file 1's).
struct Header {
  int nx = 1, ny = 1, nz = 1, nlevelmax = 0, nvar = 0;
  long long nstep_coarse = 0;
  double boxlen = 0.0, time = 0.0, gamma = 0.0;
  std::vector<double> dtnew;  // each level's latest step (RAMSES dtnew), from the AMR header
};

struct Shared {
  int ncpu = 0, ndim = 3, output_number = 0;
  fs::path directory;     // .../output_NNNNN
  std::string shown_dir;  // how messages name it
  const CellVariableConversion* conversion = nullptr;
  Layout layout;
  bool gravity = false;  // the output has grav_ files (potential and acceleration)
  std::string file(const char* kind, int cpu) const { return std::string(kind) + "_" + number5(output_number) + ".out" + number5(cpu); }
  std::string shown(const char* kind, int cpu) const { return shown_dir + "/" + file(kind, cpu); }
};

// What one amr_ file tells: its header, the oct counts of every (level, cpu) block and the
// coordinates of the octs of the file's own block, per level.
struct AmrFile {
  Header header;
  std::vector<std::int32_t> numbl;  // [level * ncpu + block]
  std::vector<std::vector<std::int64_t>> coordinates;
  std::size_t count(std::size_t level, int block, int ncpu) const {
    return static_cast<std::size_t>(numbl[level * static_cast<std::size_t>(ncpu) + static_cast<std::size_t>(block)]);
  }
};

AmrFile read_amr_file(const Shared& s, int cpu) {
  const int ndim = s.ndim, nchild = 1 << ndim;
  const std::string amr_shown = s.shown("amr", cpu);
  FortranRecordReader amr(s.directory / s.file("amr", cpu), amr_shown);
  AmrFile file;
  Header& h = file.header;
  const int ncpu = amr.value<std::int32_t>("ncpu");
  const int file_ndim = amr.value<std::int32_t>("ndim");
  KOSMO_REQUIRE(file_ndim == ndim, "RAMSES restart: '" << amr_shown << "' has ndim=" << file_ndim
                                                       << " in its header but the info file says ndim=" << ndim);
  KOSMO_REQUIRE(ncpu == s.ncpu, "RAMSES restart: '" << amr_shown << "' has ncpu=" << ncpu
                                                    << " in its header but the info file says ncpu=" << s.ncpu);
  const auto n = amr.values<std::int32_t>(3, "nx,ny,nz");
  h.nx = n[0], h.ny = n[1], h.nz = n[2];
  h.nlevelmax = amr.value<std::int32_t>("nlevelmax");
  KOSMO_REQUIRE(h.nlevelmax >= 1 && h.nx >= 1 && h.ny >= 1 && h.nz >= 1,
                "RAMSES restart: '" << amr_shown << "' has nlevelmax=" << h.nlevelmax << " or a bad nx,ny,nz");
  amr.skip("ngridmax");
  const int nboundary = amr.value<std::int32_t>("nboundary");
  KOSMO_REQUIRE(nboundary == 0, "RAMSES restart: '" << amr_shown << "' has nboundary=" << nboundary
                                                    << ": only periodic RAMSES outputs can be restarted from");
  amr.skip("ngrid_current");
  h.boxlen = amr.value<double>("boxlen");
  for (const char* what : {"noutput,iout,ifout", "tout", "aout"}) amr.skip(what);
  h.time = amr.value<double>("t");
  const auto nlevel = static_cast<std::size_t>(h.nlevelmax);
  amr.values<double>(nlevel, "dtold");
  h.dtnew = amr.values<double>(nlevel, "dtnew");
  h.nstep_coarse = amr.values<std::int32_t>(2, "nstep,nstep_coarse")[1];
  for (const char* what : {"einit,mass_tot_0,rho_tot", "cosmology", "aexp,hexp,...", "mass_sph", "headl", "taill"}) amr.skip(what);
  file.numbl = amr.values<std::int32_t>(static_cast<std::size_t>(ncpu) * nlevel, "numbl");
  for (const char* what : {"numbtot", "headf,tailf,numbf,used_mem,used_mem_tot"}) amr.skip(what);
  const auto ordering = amr.raw("ordering");
  amr.skip(std::string(ordering.begin(), ordering.end()).rfind("bisection", 0) == 0 ? "bisection records" : "bound_key");
  if (std::string(ordering.begin(), ordering.end()).rfind("bisection", 0) == 0)
    for (int r = 0; r < 4; ++r) amr.skip("bisection records");
  for (const char* what : {"son(1:ncoarse)", "flag1(1:ncoarse)", "cpu_map(1:ncoarse)"}) amr.skip(what);

  // Oct blocks: keep the xg of this cpu's own block, skip the others (ghost copies).
  const int nrecord = 3 + ndim + 1 + 2 * ndim + 3 * nchild;
  const std::int64_t coarse[3] = {h.nx, h.ny, h.nz};
  file.coordinates.resize(nlevel);
  for (std::size_t l = 0; l < nlevel; ++l)
    for (int b = 0; b < ncpu; ++b) {
      const std::size_t count = file.count(l, b, ncpu);
      if (count == 0) continue;
      if (b + 1 != cpu) {
        for (int r = 0; r < nrecord; ++r) amr.skip("oct block");
        continue;
      }
      for (const char* what : {"ind_grid", "next", "prev"}) amr.skip(what);
      auto& c = file.coordinates[l];
      c.resize(count * static_cast<std::size_t>(ndim));
      const double scale = std::ldexp(1.0, static_cast<int>(l));  // level l+1 octs per coarse cell and axis
      for (int d = 0; d < ndim; ++d) {
        const auto xg = amr.values<double>(count, "xg");
        for (std::size_t o = 0; o < count; ++o) {
          // xg = (i + 1/2) 2^-(level-1) in coarse-cell units (ramses-format.md, "xg").
          const double position = xg[o] * scale - 0.5;
          const auto i = static_cast<std::int64_t>(std::llround(position));
          KOSMO_REQUIRE(std::fabs(position - static_cast<double>(i)) < 1e-6 && i >= 0 && i < coarse[d] * static_cast<std::int64_t>(scale),
                        "RAMSES restart: '" << amr_shown << "': xg = " << xg[o] << " is not an oct centre of level " << l + 1);
          c[o * static_cast<std::size_t>(ndim) + static_cast<std::size_t>(d)] = i;
        }
      }
      for (int r = 3 + ndim; r < nrecord; ++r) amr.skip("father/nbor/son/cpu_map/flag1");
    }
  return file;
}

// The file variables of `count` octs (file_values[v][o * nchild + ind]) converted cell by cell
// to the conversion's restart fields, appended to `fields`.
void append_restart_state(const std::vector<std::vector<double>>& file_values, const Layout& layout,
                          const CellVariableConversion& conversion, double gamma, std::vector<std::vector<double>>& fields) {
  std::vector<double> cell_in(conversion.file_variables.size()), cell_out(conversion.restart_fields.size());
  const std::size_t ncell = file_values.empty() ? 0 : file_values.front().size();
  for (std::size_t k = 0; k < ncell; ++k) {
    for (std::size_t i = 0; i < cell_in.size(); ++i) cell_in[i] = file_values[static_cast<std::size_t>(layout.column[i])][k];
    conversion.to_restart(cell_in.data(), cell_out.data(), gamma);
    for (std::size_t j = 0; j < cell_out.size(); ++j) fields[j].push_back(cell_out[j]);
  }
}

// The hydro file of one cpu: header checks against the amr file, then the conversion's restart
// fields of the octs of the file's own block appended to `levels` (the other blocks are ghost
// copies of octs other files own).
void read_hydro_file(const Shared& s, int cpu, const AmrFile& amr, Header& h, std::vector<SnapshotLevel>& levels, Layout& layout) {
  const int ndim = s.ndim, nchild = 1 << ndim, ncpu = s.ncpu;
  const CellVariableConversion& conversion = *s.conversion;
  const std::string amr_shown = s.shown("amr", cpu), hydro_shown = s.shown("hydro", cpu);
  KOSMO_REQUIRE(fs::exists(s.directory / s.file("hydro", cpu)), "RAMSES restart: " << hydro_shown << " is missing: the info file says ncpu=" << s.ncpu);
  FortranRecordReader hydro(s.directory / s.file("hydro", cpu), hydro_shown);
  const auto header = hydro.values<std::int32_t>(1, "ncpu");
  h.nvar = hydro.value<std::int32_t>("nvar");
  const int hydro_ndim = hydro.value<std::int32_t>("ndim"), hydro_levels = hydro.value<std::int32_t>("nlevelmax"),
            hydro_boundary = hydro.value<std::int32_t>("nboundary");
  h.gamma = hydro.value<double>("gamma");
  KOSMO_REQUIRE(header[0] == ncpu && hydro_ndim == ndim && hydro_levels == h.nlevelmax && hydro_boundary == 0 && h.gamma > 1.0,
                "RAMSES restart: the header of '" << hydro_shown << "' (ncpu=" << header[0] << ", ndim=" << hydro_ndim
                                                  << ", nlevelmax=" << hydro_levels << ", nboundary=" << hydro_boundary
                                                  << ", gamma=" << h.gamma << ") contradicts the info file or '" << amr_shown << "'");
  if (layout.nvar < 0) default_layout(layout, h.nvar, hydro_shown, conversion);
  check_layout(layout, conversion, ndim);
  KOSMO_REQUIRE(layout.nvar == h.nvar, "RAMSES restart: '" << hydro_shown << "' has nvar=" << h.nvar
                                                          << " but hydro_file_descriptor.txt lists " << layout.nvar << " variables");
  const auto nlevel = static_cast<std::size_t>(h.nlevelmax);
  const auto nvar = static_cast<std::size_t>(h.nvar);
  for (std::size_t l = 0; l < nlevel; ++l)
    for (int b = 0; b < ncpu; ++b) {
      const int level = hydro.value<std::int32_t>("ilevel"), ncache = hydro.value<std::int32_t>("ncache");
      const std::size_t count = amr.count(l, b, ncpu);
      KOSMO_REQUIRE(level == static_cast<int>(l) + 1 && ncache >= 0 && static_cast<std::size_t>(ncache) == count,
                    "RAMSES restart: '" << hydro_shown << "' has a block (ilevel=" << level << ", ncache=" << ncache
                                        << ") where '" << amr_shown << "' has level " << l + 1 << " with " << count << " octs");
      if (count == 0) continue;
      if (b + 1 != cpu) {
        for (std::size_t r = 0; r < nvar * static_cast<std::size_t>(nchild); ++r) hydro.skip("hydro variable");
        continue;
      }
      // file_values[v][o * nchild + ind]
      std::vector<std::vector<double>> file_values(nvar, std::vector<double>(count * static_cast<std::size_t>(nchild)));
      for (int ind = 0; ind < nchild; ++ind)
        for (std::size_t v = 0; v < nvar; ++v) {
          const auto values = hydro.values<double>(count, "hydro variable");
          for (std::size_t o = 0; o < count; ++o) file_values[v][o * static_cast<std::size_t>(nchild) + static_cast<std::size_t>(ind)] = values[o];
        }
      // The files hold the primitive variables of analysis outputs, converted back to the evolved
      // state only to round-off: a RAMSES-format restart equals the HDF5 one to a few 1e-16
      // relative, not bit for bit.
      append_restart_state(file_values, layout, conversion, h.gamma, levels[l].restart_fields);
    }
}

// One cpu's files: the octs of its own block appended to `levels` with the conversion's restart
// fields from the hydro file (when the run has gas: RAMSES writes hydro files only then) and the
// potential and acceleration from the grav file (when the output has grav files).
Header read_cpu_files(const Shared& s, int cpu, std::vector<SnapshotLevel>& levels, Layout& layout) {
  const int ndim = s.ndim;
  const CellVariableConversion& conversion = *s.conversion;
  const std::string amr_shown = s.shown("amr", cpu);
  KOSMO_REQUIRE(fs::exists(s.directory / s.file("amr", cpu)), "RAMSES restart: " << amr_shown << " is missing: the info file says ncpu=" << s.ncpu);
  const AmrFile amr = read_amr_file(s, cpu);
  Header h = amr.header;
  const int ncpu = s.ncpu;
  const auto nlevel = static_cast<std::size_t>(h.nlevelmax);
  if (levels.size() < nlevel) levels.resize(nlevel);
  const std::size_t ngravity = s.gravity ? static_cast<std::size_t>(ndim) + 1 : 0;
  for (std::size_t l = 0; l < nlevel; ++l) {
    levels[l].level = static_cast<int>(l) + 1;
    levels[l].restart_fields.resize(conversion.restart_fields.size() + ngravity);
  }
  if (!conversion.file_variables.empty()) read_hydro_file(s, cpu, amr, h, levels, layout);
  for (std::size_t l = 0; l < nlevel; ++l)
    levels[l].oct_coordinates.insert(levels[l].oct_coordinates.end(), amr.coordinates[l].begin(), amr.coordinates[l].end());
  if (s.gravity) {
    // RAMSES' phi and f, after the conversion's fields (as read_ramses_restart_share names them).
    const std::string grav_shown = s.shown("grav", cpu);
    KOSMO_REQUIRE(fs::exists(s.directory / s.file("grav", cpu)),
                  "RAMSES restart: " << grav_shown << " is missing: the output has grav_ files for ncpu=" << s.ncpu);
    const auto gravity = read_ramses_gravity_file(s.directory / s.file("grav", cpu), grav_shown, cpu, ncpu, ndim, h.nlevelmax, amr.numbl);
    for (std::size_t l = 0; l < nlevel; ++l)
      for (std::size_t v = 0; v < gravity[l].size(); ++v) {
        auto& field = levels[l].restart_fields[conversion.restart_fields.size() + v];
        field.insert(field.end(), gravity[l][v].begin(), gravity[l][v].end());
      }
  }
  return h;
}

}  // namespace

RestartShare read_ramses_restart_share(MPI_Comm comm, const std::string& directory, int output_number,
                                        const CellVariableConversion& conversion) {
  int rank = 0, nrank = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nrank);
  Shared s;
  s.output_number = output_number;
  s.conversion = &conversion;
  const std::string name = output_directory_name(output_number);  // output_NNNNN
  const bool here = directory.empty() || directory == ".";
  s.directory = (here ? fs::path(".") : fs::path(directory)) / name;
  s.shown_dir = here ? name : s.directory.string();
  const std::string info_name = "info_" + number5(output_number) + ".txt";

  RestartShare share;
  SnapshotMeta& meta = share.meta;
  InfoFile info;
  run_collectively(comm, [&] {
    info = read_info(s.directory / info_name, s.shown_dir + "/" + info_name);
    s.ncpu = static_cast<int>(info.integer("ncpu"));
    s.ndim = static_cast<int>(info.integer("ndim"));
    KOSMO_REQUIRE(s.ncpu >= 1 && s.ndim >= 1 && s.ndim <= 3,
                  "RAMSES restart: '" << info.shown << "' has ncpu=" << s.ncpu << ", ndim=" << s.ndim);
    s.layout = read_layout(s.directory / "hydro_file_descriptor.txt", s.shown_dir + "/hydro_file_descriptor.txt", conversion);
    s.gravity = fs::exists(s.directory / s.file("grav", 1));
  });
  RamsesParticleLayout particle_layout;
  run_collectively(comm, [&] { particle_layout = read_ramses_particle_layout(s.directory, s.shown_dir, output_number, s.ndim); });

  // Every rank reads its files (rank 0 always has file 1); a rank without any still holds the
  // layout's attribute names, so that the driver refuses an unknown one on every rank alike.
  if (particle_layout.present) share.particles = empty_ramses_particles(particle_layout);
  std::vector<Header> headers;
  std::vector<SnapshotLevel> levels;
  run_collectively(comm, [&] {
    for (int cpu = rank + 1; cpu <= s.ncpu; cpu += nrank) {
      Layout layout = s.layout;
      headers.push_back(read_cpu_files(s, cpu, levels, layout));
      if (particle_layout.present)
        append_particles(share.particles, read_ramses_particle_file(s.directory, s.shown_dir, output_number, cpu, s.ncpu,
                                                                    s.ndim, particle_layout));
    }
  });
  // header_NNNNN.txt's count against what the part files held: each file is consistent on its own
  // even when the files come from different outputs or one was replaced by hand.
  long long local_particles = static_cast<long long>(share.particles.size()), all_particles = 0;
  MPI_Allreduce(&local_particles, &all_particles, 1, MPI_LONG_LONG, MPI_SUM, comm);
  run_collectively(comm, [&] {
    KOSMO_REQUIRE(particle_layout.header_total < 0 || particle_layout.header_total == all_particles,
                  "RAMSES restart: '" << s.shown_dir << "/header_" << number5(output_number) << ".txt' counts "
                                      << particle_layout.header_total << " particles but the part files hold "
                                      << all_particles);
  });

  // The sinks (RAMSES pm/init_sink.f90 reads sink_NNNNN.csv on every rank too). In an output with
  // sinks the family-3 particles are their clouds, rebuilt from the sinks as RAMSES' restart does.
  run_collectively(comm, [&] { share.meta.sinks = read_ramses_sink_file(s.directory, s.shown_dir, output_number, s.ndim); });
  if (share.meta.sinks.present) remove_cloud_particles(share.particles);

  // File 1's header (rank 0 read it) is the reference every other file must match.
  Header h = rank == 0 ? headers.front() : Header{};
  long long ints[6] = {h.nx, h.ny, h.nz, h.nlevelmax, h.nvar, h.nstep_coarse};
  double reals[3] = {h.boxlen, h.time, h.gamma};
  MPI_Bcast(ints, 6, MPI_LONG_LONG, 0, comm);
  MPI_Bcast(reals, 3, MPI_DOUBLE, 0, comm);
  h = Header{static_cast<int>(ints[0]), static_cast<int>(ints[1]), static_cast<int>(ints[2]), static_cast<int>(ints[3]),
             static_cast<int>(ints[4]), ints[5], reals[0], reals[1], reals[2], {}};
  run_collectively(comm, [&] {
    for (std::size_t i = 0; i < headers.size(); ++i) {
      const Header& f = headers[i];
      const int cpu = rank + 1 + static_cast<int>(i) * nrank;
      KOSMO_REQUIRE(f.nx == h.nx && f.ny == h.ny && f.nz == h.nz && f.nlevelmax == h.nlevelmax && f.nvar == h.nvar &&
                        f.nstep_coarse == h.nstep_coarse && f.boxlen == h.boxlen && f.time == h.time && f.gamma == h.gamma,
                    "RAMSES restart: the header of '" << s.shown_dir << "/" << s.file("amr", cpu) << "' or '" << s.file("hydro", cpu)
                                                      << "' (nx, nlevelmax, nvar, nstep_coarse, boxlen, time or gamma) "
                                                      << "differs from file 1's");
    }
  });

  meta.output_number = output_number;
  meta.ndim = s.ndim;
  meta.ncpu = s.ncpu;
  meta.levelmin = static_cast<int>(info.integer("levelmin"));
  meta.levelmax = h.nlevelmax;
  meta.nx = h.nx, meta.ny = h.ny, meta.nz = h.nz;
  meta.boxlen = h.boxlen;
  meta.time = h.time;
  meta.step = h.nstep_coarse;
  meta.aexp = info.real("aexp", 1.0);
  meta.unit_l = info.real("unit_l", 1.0), meta.unit_d = info.real("unit_d", 1.0), meta.unit_t = info.real("unit_t", 1.0);
  const auto ordering = info.entries.find("ordering type");
  meta.ordering = ordering == info.entries.end() ? "hilbert" : ordering->second;

  share.restart_field_names = conversion.restart_fields;
  if (s.gravity)
    for (const std::string& name : ramses_gravity_variables(s.ndim)) share.restart_field_names.push_back(name);
  // Each level's latest step, file 1's (RAMSES dtnew): the driver rebuilds the leapfrog's
  // provisional half kicks from it.
  meta.level_time_steps = rank == 0 ? headers.front().dtnew : std::vector<double>(static_cast<std::size_t>(h.nlevelmax));
  MPI_Bcast(meta.level_time_steps.data(), h.nlevelmax, MPI_DOUBLE, 0, comm);
  levels.resize(static_cast<std::size_t>(h.nlevelmax));
  for (std::size_t l = 0; l < levels.size(); ++l) {
    levels[l].level = static_cast<int>(l) + 1;
    levels[l].restart_fields.resize(share.restart_field_names.size());
  }
  share.levels = std::move(levels);
  return share;
}

}  // namespace kosmo::io
