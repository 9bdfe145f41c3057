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

// Where each primitive variable sits in the hydro files (0-based), from hydro_file_descriptor.txt,
// or RAMSES' default layout (density, velocities, pressure, passive scalars) without one.
struct Layout {
  int density = -1, pressure = -1;
  int velocity[3] = {-1, -1, -1};
  std::vector<int> scalars;
  int nvar = 0;  // -1: no descriptor, take the hydro header's nvar
};

Layout read_layout(const fs::path& path, const std::string& shown) {
  Layout layout;
  std::ifstream in(path);
  if (!in.is_open()) {
    layout.nvar = -1;
    return layout;
  }
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
  layout.nvar = static_cast<int>(names.size());
  for (int v = 0; v < layout.nvar; ++v) {
    const std::string& name = names[static_cast<std::size_t>(v)];
    if (name == "density") {
      layout.density = v;
    } else if (name == "pressure") {
      layout.pressure = v;
    } else if (name.rfind("velocity_", 0) == 0 && name.size() == 10 && name[9] >= 'x' && name[9] <= 'z') {
      layout.velocity[name[9] - 'x'] = v;
    } else if (name == "metallicity" || name.rfind("scalar_", 0) == 0) {
      layout.scalars.push_back(v);
    } else {
      KOSMO_FAIL("RAMSES restart: '" << shown << "' lists the variable '" << name
                                     << "', which a kosmo hydro restart cannot take (only density, velocity_x/y/z, "
                                     << "pressure, metallicity and scalar_NN)");
    }
  }
  return layout;
}

// Checked once a file header has confirmed ndim (an ndim error is reported as such first).
void check_layout(const Layout& layout, int ndim) {
  const std::string shown = "hydro_file_descriptor.txt";
  KOSMO_REQUIRE(layout.density >= 0 && layout.pressure >= 0, "RAMSES restart: '" << shown << "' lacks density or pressure");
  for (int d = 0; d < 3; ++d)
    KOSMO_REQUIRE((layout.velocity[d] >= 0) == (d < ndim), "RAMSES restart: '" << shown << "' lists velocity_x..z of a run with ndim="
                                                                                  << ndim << " (velocity_" << char('x' + d) << ")");
}

void default_layout(Layout& layout, int nvar, int ndim) {
  layout.nvar = nvar;
  layout.density = 0;
  for (int d = 0; d < ndim; ++d) layout.velocity[d] = 1 + d;
  layout.pressure = ndim + 1;
  for (int v = ndim + 2; v < nvar; ++v) layout.scalars.push_back(v);
}

// The header values every file must agree on (packed for a broadcast from rank 0: file 1's).
struct Header {
  int nx = 1, ny = 1, nz = 1, nlevelmax = 0, nvar = 0, nscalar = 0;
  long long nstep_coarse = 0;
  double boxlen = 0.0, time = 0.0, gamma = 0.0;
};

struct Shared {
  int ncpu = 0, ndim = 3, output_number = 0;
  fs::path directory;     // .../output_NNNNN
  std::string shown_dir;  // how messages name it
  Layout layout;
  std::string file(const char* kind, int cpu) const { return std::string(kind) + "_" + number5(output_number) + ".out" + number5(cpu); }
};

// One cpu file pair: the octs of its own block appended to `levels` (conservative restart fields).
Header read_cpu_files(const Shared& s, int cpu, std::vector<SnapshotLevel>& levels, Layout& layout) {
  const int ndim = s.ndim, nchild = 1 << ndim;
  const std::string amr_shown = s.shown_dir + "/" + s.file("amr", cpu), hydro_shown = s.shown_dir + "/" + s.file("hydro", cpu);
  for (const auto& [path, shown] : {std::pair{s.directory / s.file("amr", cpu), amr_shown},
                                    std::pair{s.directory / s.file("hydro", cpu), hydro_shown}})
    KOSMO_REQUIRE(fs::exists(path), "RAMSES restart: " << shown << " is missing: the info file says ncpu=" << s.ncpu);

  FortranRecordReader amr(s.directory / s.file("amr", cpu), amr_shown);
  Header h;
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
  amr.values<double>(nlevel, "dtnew");
  h.nstep_coarse = amr.values<std::int32_t>(2, "nstep,nstep_coarse")[1];
  for (const char* what : {"einit,mass_tot_0,rho_tot", "cosmology", "aexp,hexp,...", "mass_sph", "headl", "taill"}) amr.skip(what);
  const auto numbl = amr.values<std::int32_t>(static_cast<std::size_t>(ncpu) * nlevel, "numbl");
  for (const char* what : {"numbtot", "headf,tailf,numbf,used_mem,used_mem_tot"}) amr.skip(what);
  const auto ordering = amr.raw("ordering");
  amr.skip(std::string(ordering.begin(), ordering.end()).rfind("bisection", 0) == 0 ? "bisection records" : "bound_key");
  if (std::string(ordering.begin(), ordering.end()).rfind("bisection", 0) == 0)
    for (int r = 0; r < 4; ++r) amr.skip("bisection records");
  for (const char* what : {"son(1:ncoarse)", "flag1(1:ncoarse)", "cpu_map(1:ncoarse)"}) amr.skip(what);

  // Oct blocks: keep the xg of this cpu's own block, skip the others (ghost copies).
  const int nrecord = 3 + ndim + 1 + 2 * ndim + 3 * nchild;
  const std::int64_t coarse[3] = {h.nx, h.ny, h.nz};
  std::vector<std::vector<std::int64_t>> coordinates(nlevel);
  for (std::size_t l = 0; l < nlevel; ++l)
    for (int b = 0; b < ncpu; ++b) {
      const auto count = static_cast<std::size_t>(numbl[l * static_cast<std::size_t>(ncpu) + static_cast<std::size_t>(b)]);
      if (count == 0) continue;
      if (b + 1 != cpu) {
        for (int r = 0; r < nrecord; ++r) amr.skip("oct block");
        continue;
      }
      for (const char* what : {"ind_grid", "next", "prev"}) amr.skip(what);
      auto& c = coordinates[l];
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
  if (layout.nvar < 0) default_layout(layout, h.nvar, ndim);
  check_layout(layout, ndim);
  KOSMO_REQUIRE(layout.nvar == h.nvar, "RAMSES restart: '" << hydro_shown << "' has nvar=" << h.nvar
                                                          << " but hydro_file_descriptor.txt lists " << layout.nvar << " variables");
  h.nscalar = static_cast<int>(layout.scalars.size());
  if (levels.size() < nlevel) levels.resize(nlevel);
  for (std::size_t l = 0; l < nlevel; ++l) {
    levels[l].level = static_cast<int>(l) + 1;
    if (levels[l].restart_fields.size() < static_cast<std::size_t>(ndim + 2 + h.nscalar))
      levels[l].restart_fields.resize(static_cast<std::size_t>(ndim + 2 + h.nscalar));
  }
  const auto nvar = static_cast<std::size_t>(h.nvar);
  for (std::size_t l = 0; l < nlevel; ++l)
    for (int b = 0; b < ncpu; ++b) {
      const int level = hydro.value<std::int32_t>("ilevel"), ncache = hydro.value<std::int32_t>("ncache");
      const auto count = static_cast<std::size_t>(numbl[l * static_cast<std::size_t>(ncpu) + static_cast<std::size_t>(b)]);
      KOSMO_REQUIRE(level == static_cast<int>(l) + 1 && ncache >= 0 && static_cast<std::size_t>(ncache) == count,
                    "RAMSES restart: '" << hydro_shown << "' has a block (ilevel=" << level << ", ncache=" << ncache
                                        << ") where '" << amr_shown << "' has level " << l + 1 << " with " << count << " octs");
      if (count == 0) continue;
      if (b + 1 != cpu) {
        for (std::size_t r = 0; r < nvar * static_cast<std::size_t>(nchild); ++r) hydro.skip("hydro variable");
        continue;
      }
      // primitive[v][o * nchild + ind]
      std::vector<std::vector<double>> primitive(nvar, std::vector<double>(count * static_cast<std::size_t>(nchild)));
      for (int ind = 0; ind < nchild; ++ind)
        for (std::size_t v = 0; v < nvar; ++v) {
          const auto values = hydro.values<double>(count, "hydro variable");
          for (std::size_t o = 0; o < count; ++o) primitive[v][o * static_cast<std::size_t>(nchild) + static_cast<std::size_t>(ind)] = values[o];
        }
      // Primitive -> conservative, as HydroSolver::output_values inverted: rho v and
      // p / (gamma - 1) + rho v^2 / 2 reproduce kosmo's conservative state only to round-off, so
      // a RAMSES-format restart equals the HDF5 one to a few 1e-16 relative, not bit for bit.
      SnapshotLevel& out = levels[l];
      auto& fields = out.restart_fields;
      const auto at = [&](int v) -> const std::vector<double>& { return primitive[static_cast<std::size_t>(v)]; };
      for (std::size_t k = 0; k < count * static_cast<std::size_t>(nchild); ++k) {
        const double rho = at(layout.density)[k];
        double kinetic = 0.0;
        fields[0].push_back(rho);
        for (int d = 0; d < ndim; ++d) {
          const double velocity = at(layout.velocity[d])[k];
          fields[static_cast<std::size_t>(1 + d)].push_back(rho * velocity);
          kinetic += 0.5 * rho * velocity * velocity;
        }
        fields[static_cast<std::size_t>(ndim + 1)].push_back(at(layout.pressure)[k] / (h.gamma - 1.0) + kinetic);
        for (std::size_t i = 0; i < layout.scalars.size(); ++i)
          fields[static_cast<std::size_t>(ndim + 2) + i].push_back(rho * at(layout.scalars[i])[k]);
      }
      out.oct_coordinates.insert(out.oct_coordinates.end(), coordinates[l].begin(), coordinates[l].end());
    }
  return h;
}

}  // namespace

RestartShare read_ramses_restart_share(MPI_Comm comm, const std::string& directory, int output_number) {
  int rank = 0, nrank = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nrank);
  Shared s;
  s.output_number = output_number;
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
    s.layout = read_layout(s.directory / "hydro_file_descriptor.txt", s.shown_dir + "/hydro_file_descriptor.txt");
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

  // File 1's header (rank 0 read it) is the reference every other file must match.
  Header h = rank == 0 ? headers.front() : Header{};
  long long ints[7] = {h.nx, h.ny, h.nz, h.nlevelmax, h.nvar, h.nscalar, h.nstep_coarse};
  double reals[3] = {h.boxlen, h.time, h.gamma};
  MPI_Bcast(ints, 7, MPI_LONG_LONG, 0, comm);
  MPI_Bcast(reals, 3, MPI_DOUBLE, 0, comm);
  h = Header{static_cast<int>(ints[0]), static_cast<int>(ints[1]), static_cast<int>(ints[2]), static_cast<int>(ints[3]),
             static_cast<int>(ints[4]), static_cast<int>(ints[5]), ints[6], reals[0], reals[1], reals[2]};
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

  const char* axes[3] = {"x", "y", "z"};
  share.restart_field_names.push_back("density");
  for (int d = 0; d < s.ndim; ++d) share.restart_field_names.push_back(std::string("momentum_") + axes[d]);
  share.restart_field_names.push_back("total_energy");
  for (int k = 0; k < h.nscalar; ++k) {
    char scalar[32];
    std::snprintf(scalar, sizeof scalar, "scalar_%02d_density", k + 1);
    share.restart_field_names.push_back(scalar);
  }
  levels.resize(static_cast<std::size_t>(h.nlevelmax));
  for (std::size_t l = 0; l < levels.size(); ++l) {
    levels[l].level = static_cast<int>(l) + 1;
    levels[l].restart_fields.resize(share.restart_field_names.size());
  }
  share.levels = std::move(levels);
  return share;
}

}  // namespace kosmo::io
