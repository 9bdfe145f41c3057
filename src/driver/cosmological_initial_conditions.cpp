#include "driver/cosmological_initial_conditions.hpp"

#include <cmath>
#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "cosmology/initial_conditions.hpp"
#include "io/grafic_file.hpp"

namespace kosmo::driver {
namespace {

struct Setup {
  std::string source;
  int mesh = 0;  // levelmin cells per axis
  int n = 0;     // particle lattice (initial-condition grid) per axis
  bool gas = false;
  double boxlen = 1.0;
  core::InterpolationType interpolation = core::InterpolationType::minmod;
};

bool is_power_of_two(long long value) { return value > 0 && (value & (value - 1)) == 0; }

// The displacement psi (box units) and velocity (code units) of each levelmin cell, and the gas
// overdensity and velocity, in the grafic plane order (x fastest).
struct LagrangianFields {
  std::array<std::vector<double>, 3> displacement, velocity, gas_velocity;
  std::vector<double> delta;
  std::vector<std::int64_t> ids;  // empty: 1 + cell index
};

// Particles at q + psi and the gas on the grid, in code units.
CosmologicalStart assemble(const Setup& setup, std::shared_ptr<const cosmology::CosmologicalModel> model, double aexp, LagrangianFields&& fields) {
  CosmologicalStart start;
  start.model = std::move(model);
  start.aexp = aexp;
  const int n = setup.n;
  start.n = n;
  start.interpolation = setup.interpolation;
  const std::size_t cells = static_cast<std::size_t>(n) * n * n;
  const auto& cosmology = start.model->parameters();
  const double baryon_fraction = setup.gas ? cosmology.omega_b / cosmology.omega_m : 0.0;
  // Mean matter density 1 in code units (boxlen = 1): the particles carry the dark matter.
  const double particle_mass = (1.0 - baryon_fraction) / static_cast<double>(cells);
  start.particles.reserve(cells);
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const std::size_t c = static_cast<std::size_t>(i) + static_cast<std::size_t>(n) * (static_cast<std::size_t>(j) + static_cast<std::size_t>(n) * static_cast<std::size_t>(k));
        particles::ParticleSet<3>::Particle p;
        const int q[3] = {i, j, k};
        for (int d = 0; d < 3; ++d) {
          const auto axis = static_cast<std::size_t>(d);
          p.position[axis] = particles::wrap_coordinate(((q[d] + 0.5) / n + fields.displacement[axis][c]) * setup.boxlen, setup.boxlen);
          p.velocity[axis] = fields.velocity[axis][c];
        }
        p.mass = particle_mass;
        p.id = fields.ids.empty() ? static_cast<std::int64_t>(c) + 1 : fields.ids[c];
        p.family = particles::Family::dark_matter;
        start.particles.add(p);
      }
  if (setup.gas) {
    const double pressure_per_density = start.model->initial_pressure_per_density(aexp);
    start.density.resize(cells);
    start.pressure.resize(cells);
    for (std::size_t c = 0; c < cells; ++c) {
      start.density[c] = baryon_fraction * (1.0 + fields.delta[c]);
      start.pressure[c] = start.density[c] * pressure_per_density;
    }
    start.velocity = std::move(fields.gas_velocity);
  }
  return start;
}

Setup setup_of(const core::ParameterSet& params) {
  Setup s;
  s.source = params.source();
  KOSMO_REQUIRE(params.get_int("RUN_PARAMS", "ndim") == 3, s.source << ": &RUN_PARAMS: cosmo=.true. needs ndim=3");
  KOSMO_REQUIRE(params.get_bool("RUN_PARAMS", "pic") && params.get_bool("RUN_PARAMS", "poisson"),
                s.source << ": &RUN_PARAMS: cosmo=.true. needs pic=.true. and poisson=.true. (dark matter and gravity)");
  s.boxlen = params.get_real("AMR_PARAMS", "boxlen");
  KOSMO_REQUIRE(s.boxlen == 1.0, s.source << ": &AMR_PARAMS: boxlen=" << s.boxlen
                                         << ": cosmological runs have boxlen=1 (the box size is boxlen_ini in Mpc/h)");
  const long long nx = params.get_int("AMR_PARAMS", "nx");
  KOSMO_REQUIRE(nx == params.get_int("AMR_PARAMS", "ny") && nx == params.get_int("AMR_PARAMS", "nz"),
                s.source << ": &AMR_PARAMS: cosmological runs need a cubic coarse grid (nx = ny = nz)");
  // Level l has nx 2^l cells per axis (RAMSES: levelmin=7 is a 128^3 box).
  s.mesh = static_cast<int>(nx << params.get_int("AMR_PARAMS", "levelmin"));
  s.n = s.mesh;
  // kosmo: the particle lattice may be coarser than the levelmin mesh (a PM mesh twice as fine as
  // the particle grid, as GADGET's PMGRID = 2 N): the particles then start on cell faces of the mesh,
  // not at the CIC kernel's kink at cell centres. The generator's lattice is ic_lattice; grafic
  // files bring their own (checked against the mesh when they are read).
  const long long lattice = params.get_int("INIT_PARAMS", "ic_lattice");
  if (lattice > 0) {
    KOSMO_REQUIRE(params.get_string("INIT_PARAMS", "filetype") == "gaussian",
                  s.source << ": &INIT_PARAMS: ic_lattice applies to filetype='gaussian' (grafic files fix their own grid)");
    KOSMO_REQUIRE(lattice <= s.mesh && s.mesh % lattice == 0 && is_power_of_two(s.mesh / lattice),
                  s.source << ": &INIT_PARAMS: ic_lattice=" << lattice << " must be the levelmin grid (" << s.mesh
                           << ") divided by a power of two");
    s.n = static_cast<int>(lattice);
  }
  s.interpolation = static_cast<core::InterpolationType>(params.get_int("REFINE_PARAMS", "interpol_type"));
  for (const char* key : {"ic_invert_phases", "ic_fix_amplitudes"})
    KOSMO_REQUIRE(!params.get_bool("INIT_PARAMS", key) || params.get_string("INIT_PARAMS", "filetype") == "gaussian",
                  s.source << ": &INIT_PARAMS: " << key << " applies to filetype='gaussian' (grafic files fix their own modes)");
  s.gas = params.get_bool("RUN_PARAMS", "hydro");
  if (s.gas)
    KOSMO_REQUIRE(std::fabs(params.get_real("HYDRO_PARAMS", "gamma") - 5.0 / 3.0) < 1e-6,
                  s.source << ": &HYDRO_PARAMS: gamma=" << params.get_real("HYDRO_PARAMS", "gamma")
                           << ": cosmological runs need gamma=5/3 (the super-comoving Euler equations have no expansion "
                              "term only then)");
  return s;
}

double final_expansion_factor(const core::ParameterSet& params) {
  double a = std::max(1.0, params.get_real("OUTPUT_PARAMS", "aend"));
  const auto aout = params.get_real_array("OUTPUT_PARAMS", "aout");
  const auto noutput = static_cast<std::size_t>(params.get_int("OUTPUT_PARAMS", "noutput"));
  for (std::size_t i = 0; i < noutput && i < aout.size(); ++i) a = std::max(a, aout[i]);
  return a;
}

CosmologicalStart from_generator(const core::ParameterSet& params, const Setup& setup) {
  cosmology::CosmologyParameters c;
  c.omega_m = params.get_real("INIT_PARAMS", "omega_m");
  c.omega_l = params.get_real("INIT_PARAMS", "omega_l");
  c.omega_b = params.get_real("INIT_PARAMS", "omega_b");
  c.h0 = params.get_real("INIT_PARAMS", "h0");
  c.omega_k = 1.0 - c.omega_m - c.omega_l;
  KOSMO_REQUIRE(c.omega_b <= c.omega_m, setup.source << ": &INIT_PARAMS: omega_b=" << c.omega_b << " exceeds omega_m=" << c.omega_m);
  double aexp = params.get_real("INIT_PARAMS", "aexp_ini");
  if (aexp >= 10.0) aexp = 1.0 / 51.0;
  KOSMO_REQUIRE(aexp < 1.0, setup.source << ": &INIT_PARAMS: aexp_ini=" << aexp << " must be below 1");
  const double box = params.get_real("INIT_PARAMS", "boxlen_ini");
  auto model = std::make_shared<const cosmology::CosmologicalModel>(c, box, aexp, final_expansion_factor(params));
  const cosmology::LinearPowerSpectrum spectrum(c, params.get_real("INIT_PARAMS", "n_s"), params.get_real("INIT_PARAMS", "sigma8"));
  cosmology::GaussianFieldParameters g;
  g.n = setup.n;
  g.box_size = box;
  g.seed = static_cast<std::uint64_t>(params.get_int("INIT_PARAMS", "seed"));
  g.a_start = aexp;
  g.invert_phases = params.get_bool("INIT_PARAMS", "ic_invert_phases");
  g.fix_amplitudes = params.get_bool("INIT_PARAMS", "ic_fix_amplitudes");
  const cosmology::GaussianRandomField field(g, spectrum);
  cosmology::DisplacementField psi = cosmology::zeldovich_displacement(field.fourier(), setup.n, box);
  const double velocity_factor = cosmology::zeldovich_velocity_factor_super_comoving(model->background(), aexp);
  LagrangianFields fields;
  for (int d = 0; d < 3; ++d) {
    auto& displacement = fields.displacement[static_cast<std::size_t>(d)];
    displacement = std::move(psi.components[static_cast<std::size_t>(d)]);
    auto& velocity = fields.velocity[static_cast<std::size_t>(d)];
    velocity.resize(displacement.size());
    for (std::size_t c2 = 0; c2 < displacement.size(); ++c2) {
      displacement[c2] /= box;  // Mpc/h -> box units
      velocity[c2] = velocity_factor * displacement[c2];
    }
    fields.gas_velocity[static_cast<std::size_t>(d)] = velocity;
  }
  if (setup.gas) fields.delta = field.real();
  return assemble(setup, std::move(model), aexp, std::move(fields));
}

std::vector<double> read_whole(const std::filesystem::path& file, const io::GraficHeader& h) {
  const std::vector<float> values = io::read_grafic_planes(file, 0, h.np3);
  return std::vector<double>(values.begin(), values.end());
}

CosmologicalStart from_grafic(const core::ParameterSet& params, const Setup& setup) {
  const auto initfile = params.get_string_array("INIT_PARAMS", "initfile");
  KOSMO_REQUIRE(!initfile.empty() && !initfile[0].empty(),
                setup.source << ": &INIT_PARAMS: filetype='grafic' needs initfile(1), the directory of the grafic files");
  for (std::size_t l = 1; l < initfile.size(); ++l)
    KOSMO_REQUIRE(initfile[l].empty(), setup.source << ": &INIT_PARAMS: initfile(" << l + 1
                                                     << ") is set: multi-level (zoom) grafic initial conditions are not "
                                                        "implemented; kosmo reads initfile(1) only");
  const std::filesystem::path directory(initfile[0]);
  const io::GraficDirectory dir = io::check_grafic_directory(directory);
  const io::GraficHeader& h = dir.header;
  // RAMSES reads a grafic grid equal to the levelmin mesh; kosmo also takes one coarser by a power
  // of two (the particles' lattice, the mesh finer than it as with ic_lattice).
  KOSMO_REQUIRE(h.np1 == h.np2 && h.np1 == h.np3 && h.np1 <= setup.mesh && setup.mesh % h.np1 == 0 &&
                    is_power_of_two(setup.mesh / h.np1),
                (directory / "ic_deltab").string() << ": the grafic grid is " << h.np1 << "x" << h.np2 << "x" << h.np3
                                                   << " but levelmin and nx of " << setup.source << " give " << setup.mesh
                                                   << "^3 cells: set levelmin so that nx 2^levelmin = " << h.np1
                                                   << " (or that grid times a power of two)");
  Setup grid = setup;
  grid.n = h.np1;
  bool velocities = false;
  for (const std::string& f : dir.files) velocities = velocities || f == "ic_velcx";
  KOSMO_REQUIRE(velocities, (directory / "ic_velcx").string() << ": missing (grafic initial conditions need ic_velcx/y/z)");
  cosmology::CosmologyParameters c;
  c.omega_m = h.omega_m;
  c.omega_l = h.omega_v;
  c.omega_k = 1.0 - c.omega_m - c.omega_l;
  c.h0 = h.h0;
  c.omega_b = params.get_real("INIT_PARAMS", "omega_b");
  KOSMO_REQUIRE(c.omega_b <= c.omega_m, setup.source << ": &INIT_PARAMS: omega_b=" << c.omega_b << " exceeds the grafic header's omega_m=" << c.omega_m);
  double aexp = params.get_real("INIT_PARAMS", "aexp_ini");
  if (aexp >= 10.0) aexp = h.astart;
  // RAMSES boxlen_ini: the grafic dx is in comoving Mpc.
  const double box = static_cast<double>(h.np1) * h.dx * h.h0 / 100.0;
  auto model = std::make_shared<const cosmology::CosmologicalModel>(c, box, aexp, final_expansion_factor(params));
  const double to_code = model->code_velocity_per_km_s(aexp);
  const double velocity_factor = cosmology::zeldovich_velocity_factor_super_comoving(model->background(), aexp);
  LagrangianFields fields;
  const char* axes = "xyz";
  auto has = [&dir](const std::string& name) {
    for (const std::string& f : dir.files)
      if (f == name) return true;
    return false;
  };
  for (int d = 0; d < 3; ++d) {
    const auto axis = static_cast<std::size_t>(d);
    fields.velocity[axis] = read_whole(directory / (std::string("ic_velc") + axes[d]), h);
    for (double& v : fields.velocity[axis]) v *= to_code;
    if (dir.has_positions) {
      // ic_posc: displacement from the cell centre in comoving Mpc/h (RAMSES divides by boxlen_ini).
      fields.displacement[axis] = read_whole(directory / (std::string("ic_posc") + axes[d]), h);
      for (double& x : fields.displacement[axis]) x /= box;
    } else {
      // RAMSES without ic_posc: the Zel'dovich displacement from the growing-mode velocity.
      fields.displacement[axis] = fields.velocity[axis];
      for (double& x : fields.displacement[axis]) x /= velocity_factor;
    }
    const std::string gas_file = std::string("ic_velb") + axes[d];
    if (has(gas_file)) {
      fields.gas_velocity[axis] = read_whole(directory / gas_file, h);
      for (double& v : fields.gas_velocity[axis]) v *= to_code;
    } else {
      fields.gas_velocity[axis] = fields.velocity[axis];
    }
  }
  if (setup.gas) fields.delta = read_whole(directory / "ic_deltab", h);
  if (dir.has_particle_ids) {
    fields.ids = io::read_grafic_id_planes(directory / "ic_particle_ids", 0, h.np3);
  }
  return assemble(grid, std::move(model), aexp, std::move(fields));
}

}  // namespace

void CosmologicalStart::gas_state(const std::array<double, 3>& x, double boxlen, double dx, double* q) const {
  const double h = boxlen / n;  // initial-condition cell
  std::array<int, 3> cell{};
  std::array<double, 3> offset{};  // from the cell centre, in cell widths
  for (std::size_t d = 0; d < 3; ++d) {
    cell[d] = std::min(std::max(static_cast<int>(std::floor(x[d] / h)), 0), n - 1);
    offset[d] = x[d] / h - (cell[d] + 0.5);
  }
  auto index = [this](std::array<int, 3> c) {
    std::size_t i = 0;
    for (int d = 2; d >= 0; --d) i = i * static_cast<std::size_t>(n) + static_cast<std::size_t>((c[static_cast<std::size_t>(d)] % n + n) % n);
    return i;
  };
  // Conserved per volume: density, momentum, pressure (what prolongation keeps, as interpol_var=0
  // keeps RAMSES' conservative variables; the cold start makes pressure and energy equivalent).
  auto conserved = [this](std::size_t i, int v) {
    if (v == 0) return density[i];
    if (v == 4) return pressure[i];
    return density[i] * velocity[static_cast<std::size_t>(v - 1)][i];
  };
  const std::size_t centre = index(cell);
  double u[5];
  for (int v = 0; v < 5; ++v) {
    const double mid = conserved(centre, v);
    u[v] = mid;
    if (dx >= h * (1.0 - 1e-12)) continue;  // as coarse as the grid: its value
    for (std::size_t d = 0; d < 3; ++d) {
      std::array<int, 3> left = cell, right = cell;
      --left[d];
      ++right[d];
      const double slope =
          core::prolongation_slope(interpolation, v >= 1 && v <= 3, conserved(index(left), v), mid, conserved(index(right), v));
      u[v] += slope * offset[d];
    }
  }
  q[0] = u[0];
  for (int d = 0; d < 3; ++d) q[1 + d] = u[1 + d] / u[0];
  q[4] = u[4];
}

CosmologicalStart cosmological_start(const core::ParameterSet& params) {
  const Setup setup = setup_of(params);
  const std::string filetype = params.get_string("INIT_PARAMS", "filetype");
  if (filetype == "gaussian") return from_generator(params, setup);
  if (filetype == "grafic") return from_grafic(params, setup);
  KOSMO_FAIL(setup.source << ": &INIT_PARAMS: filetype='" << filetype
                          << "' cannot start a cosmological run: use 'grafic' (initfile(1)) or 'gaussian'");
}

}  // namespace kosmo::driver
