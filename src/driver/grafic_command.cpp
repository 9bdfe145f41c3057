// `kosmo grafic` (see grafic_command.hpp). The fields are those filetype='gaussian' gives the
// particles (driver/cosmological_initial_conditions.cpp, from_generator): the same random field,
// Zel'dovich displacement and growing-mode velocity, converted to the grafic units RAMSES reads
// (pm/init_part.f90 load_grafic: velocities in proper km/s, ic_posc in comoving Mpc/h, the header's
// dx in comoving Mpc and h0 in km/s/Mpc). Both codes then put a particle at the cell centre plus
// ic_posc; float32 rounds the displacement to about 1e-7 of its size.
#include "driver/grafic_command.hpp"

#include <filesystem>
#include <ostream>

#include "core/error.hpp"
#include "cosmology/initial_conditions.hpp"
#include "driver/command_line.hpp"
#include "driver/run.hpp"
#include "io/grafic_file.hpp"

namespace kosmo::driver {
namespace {

std::vector<float> single_precision(const std::vector<double>& values, double factor) {
  std::vector<float> result(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) result[i] = static_cast<float>(values[i] * factor);
  return result;
}

}  // namespace

int grafic_command(const std::vector<std::string>& arguments, std::ostream& out) {
  KOSMO_REQUIRE(arguments.size() == 2, "usage: kosmo grafic NAMELIST DIRECTORY (a filetype='gaussian' namelist)");
  CommandLine line;
  line.command = "run";
  line.namelist = arguments[0];
  const core::ParameterSet params = load_run_parameters(line);
  KOSMO_REQUIRE(params.get_bool("RUN_PARAMS", "cosmo") && params.get_string("INIT_PARAMS", "filetype") == "gaussian",
                params.source() << ": kosmo grafic needs cosmo=.true. and &INIT_PARAMS filetype='gaussian'");
  KOSMO_REQUIRE(params.get_int("RUN_PARAMS", "ndim") == 3 && params.get_int("AMR_PARAMS", "nx") == 1 &&
                    params.get_int("AMR_PARAMS", "ny") == 1 && params.get_int("AMR_PARAMS", "nz") == 1,
                params.source() << ": kosmo grafic writes a 3-D box of nx = ny = nz = 1 coarse cells");
  // The generator's inputs, read as cosmological_initial_conditions.cpp's from_generator reads them.
  cosmology::CosmologyParameters c;
  c.omega_m = params.get_real("INIT_PARAMS", "omega_m");
  c.omega_l = params.get_real("INIT_PARAMS", "omega_l");
  c.omega_b = params.get_real("INIT_PARAMS", "omega_b");
  c.h0 = params.get_real("INIT_PARAMS", "h0");
  c.omega_k = 1.0 - c.omega_m - c.omega_l;
  cosmology::validate(c);
  double aexp = params.get_real("INIT_PARAMS", "aexp_ini");
  if (aexp >= 10.0) aexp = 1.0 / 51.0;
  KOSMO_REQUIRE(aexp < 1.0, params.source() << ": &INIT_PARAMS: aexp_ini=" << aexp << " must be below 1");
  const long long lattice = params.get_int("INIT_PARAMS", "ic_lattice");
  cosmology::GaussianFieldParameters g;
  g.n = lattice > 0 ? static_cast<int>(lattice) : static_cast<int>(1LL << params.get_int("AMR_PARAMS", "levelmin"));
  g.box_size = params.get_real("INIT_PARAMS", "boxlen_ini");
  g.seed = static_cast<std::uint64_t>(params.get_int("INIT_PARAMS", "seed"));
  g.a_start = aexp;
  g.invert_phases = params.get_bool("INIT_PARAMS", "ic_invert_phases");
  g.fix_amplitudes = params.get_bool("INIT_PARAMS", "ic_fix_amplitudes");
  const cosmology::LinearPowerSpectrum spectrum(c, params.get_real("INIT_PARAMS", "n_s"),
                                                params.get_real("INIT_PARAMS", "sigma8"));
  const cosmology::GaussianRandomField field(g, spectrum);
  const cosmology::DisplacementField psi = cosmology::zeldovich_displacement(field.fourier(), g.n, g.box_size);
  const double velocity_km_s = cosmology::zeldovich_velocity_factor_km_s(spectrum.background(), aexp);

  io::GraficHeader header;
  header.np1 = header.np2 = header.np3 = g.n;
  header.dx = static_cast<float>(g.box_size / g.n / (c.h0 / 100.0));  // comoving Mpc
  header.astart = static_cast<float>(aexp);
  header.omega_m = static_cast<float>(c.omega_m);
  header.omega_v = static_cast<float>(c.omega_l);
  header.h0 = static_cast<float>(c.h0);
  const std::filesystem::path directory(arguments[1]);
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  KOSMO_REQUIRE(!error, "kosmo grafic: cannot create '" << directory.string() << "': " << error.message());
  io::write_grafic(directory / "ic_deltab", header, single_precision(field.real(), 1.0));
  const char* axes = "xyz";
  for (std::size_t d = 0; d < 3; ++d) {
    io::write_grafic(directory / (std::string("ic_velc") + axes[d]), header, single_precision(psi.components[d], velocity_km_s));
    io::write_grafic(directory / (std::string("ic_posc") + axes[d]), header, single_precision(psi.components[d], 1.0));
  }
  out << "kosmo grafic: " << g.n << "^3 grafic files of seed " << g.seed << ", " << g.box_size << " Mpc/h at aexp "
      << aexp << " written to " << directory.string() << " (ic_deltab, ic_velc*, ic_posc*)\n";
  return 0;
}

}  // namespace kosmo::driver
