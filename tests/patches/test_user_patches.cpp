// User patches through the kosmo binary (docs/patches.md): examples/patches/ana-disk-potential,
// built by `kosmo run NAMELIST --patch DIR`, keeps its disc in vertical hydrostatic equilibrium in
// the field of gravity_type 3 on 1 and 2 ranks; an unchanged patch is not rebuilt; a patch that does
// not compile stops the run with the compiler's file:line and nothing written; a patch's particles
// orbit the point mass of gravity_type 2, and a patch's gravana of the same field moves them the same.
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "io/snapshot_reader.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path example_directory = fs::path(KOSMO_SOURCE_DIR) / "examples" / "patches" / "ana-disk-potential";

fs::path fresh_directory(const std::string& name) {
  const fs::path directory = fs::temp_directory_path() / ("kosmo_test_user_patches_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(directory);
  fs::create_directories(directory);
  return directory;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// `env -u` for the variables this process's MPI (a singleton) set: a child mpirun that inherits them
// takes itself for a rank of this job and fails.
std::string without_this_jobs_mpi() {
  std::string command = "env";
  for (char** variable = environ; *variable; ++variable) {
    const std::string entry = *variable;
    if (entry.rfind("OMPI_", 0) == 0 || entry.rfind("PMIX_", 0) == 0 || entry.rfind("OPAL_", 0) == 0)
      command += " -u " + entry.substr(0, entry.find('='));
  }
  return command;
}

// Runs `launcher kosmo run NAMELIST --patch DIR` (no --patch when `patch` is empty) in `directory`
// with the patch cache `cache`; returns the exit status, stdout and stderr in directory/run.log.
int run_kosmo(const fs::path& directory, const fs::path& cache, const fs::path& namelist, const fs::path& patch,
              const std::string& launcher = "") {
  const std::string command = "cd '" + directory.string() + "' && " + without_this_jobs_mpi() + " KOSMO_PATCH_CACHE='" + cache.string() +
                              "' " + launcher + " '" + KOSMO_BINARY + "' run '" + namelist.string() + "'" +
                              (patch.empty() ? std::string() : " --patch '" + patch.string() + "'") + " > run.log 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<fs::path> libraries_in(const fs::path& cache) {
  std::vector<fs::path> found;
  if (!fs::exists(cache)) return found;
  for (const auto& entry : fs::recursive_directory_iterator(cache))
    if (entry.path().extension() == ".so") found.push_back(entry.path());
  return found;
}

int last_output(const fs::path& directory) {
  int last = 0;
  for (const auto& entry : fs::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("output_", 0) == 0) last = std::max(last, std::stoi(name.substr(7)));
  }
  EXPECT_GT(last, 0) << "no output in " << directory;
  return last;
}

// The density along y of the last output of a 2-D uniform run, averaged over x: rows [0, n).
std::vector<double> final_density_profile(const fs::path& directory) {
  const kosmo::io::RestartShare share = kosmo::io::read_restart_share(MPI_COMM_SELF, directory.string(), last_output(directory));
  EXPECT_NEAR(share.meta.time, 0.62, 1e-12) << "the last output is the one at tend";
  const auto name = std::find(share.restart_field_names.begin(), share.restart_field_names.end(), "density");
  EXPECT_NE(name, share.restart_field_names.end());
  const auto density_field = static_cast<std::size_t>(name - share.restart_field_names.begin());
  std::vector<double> sum, count;
  for (const kosmo::io::SnapshotLevel& level : share.levels) {
    if (level.level != 5) continue;
    const std::size_t octs = level.oct_coordinates.size() / 2;
    sum.assign(32, 0.0);
    count.assign(32, 0.0);
    for (std::size_t o = 0; o < octs; ++o)
      for (int c = 0; c < 4; ++c) {
        const auto row = static_cast<std::size_t>(2 * level.oct_coordinates[2 * o + 1] + ((c >> 1) & 1));
        sum[row] += level.restart_fields[density_field][4 * o + static_cast<std::size_t>(c)];
        count[row] += 1.0;
      }
  }
  EXPECT_EQ(sum.size(), 32u) << "level 5 (32 x 32 cells) not found";
  for (std::size_t row = 0; row < sum.size(); ++row) sum[row] /= count[row];
  return sum;
}

// The initial profile: the patch's Gaussian at the cell centres (rho0 = 0.66, h = 150, boxlen 1000).
double initial_density(std::size_t row) {
  const double z = (static_cast<double>(row) + 0.5) * 1000.0 / 32.0 - 500.0;
  return 0.66 * std::exp(-z * z / (2.0 * 150.0 * 150.0));
}

// Largest change of the row-averaged density over the run relative to the central density.
double profile_change(const std::vector<double>& profile) {
  double change = 0.0;
  for (std::size_t row = 0; row < profile.size(); ++row) change = std::max(change, std::fabs(profile[row] - initial_density(row)) / 0.66);
  return change;
}

TEST(AnaDiskPotential, StaysInHydrostaticEquilibriumAndIsBuiltOnce) {
  const fs::path cache = fresh_directory("cache");
  const fs::path namelist = example_directory / "ana-disk-potential.nml";

  const fs::path first = fresh_directory("first");
  ASSERT_EQ(run_kosmo(first, cache, namelist, example_directory), 0) << read_text(first / "run.log");
  const std::string first_log = read_text(first / "run.log");
  EXPECT_NE(first_log.find(": built ("), std::string::npos) << first_log;
  EXPECT_NE(first_log.find("hooks: condinit"), std::string::npos) << first_log;
  const std::vector<fs::path> libraries = libraries_in(cache);
  ASSERT_EQ(libraries.size(), 1u);
  const auto built_at = fs::last_write_time(libraries[0]);

  const std::vector<double> profile = final_density_profile(first);
  const double change = profile_change(profile);
  std::printf("ana-disk-potential: largest change of the density profile after t = 0.62: %.3e of rho0\n", change);
  // Measured 2.86e-2 at 32^2 cells, 1.39e-2 at 64^2, 6.6e-3 at 128^2 (README.md): the scheme's
  // first-order truncation error (slope_type=1) at the density's extrema, halving with dx. The
  // bound, 4e-2, leaves room for another compiler's rounding, not for a disc out of equilibrium:
  // RAMSES' isothermal start (P = rho kB T0 / mu mH, held up only by cooling) changes it by 0.239.
  EXPECT_LE(change, 4e-2);
  // Still a disc: the mid-plane rows keep the central density (measured 1.7e-3 below it).
  EXPECT_NEAR(profile[15], initial_density(15), 5e-3);

  // Unchanged patch directory: the cached library is loaded, not rebuilt. This time the patch is
  // the namelist's patch='.', the namelist's own directory.
  const fs::path second = fresh_directory("second");
  ASSERT_EQ(run_kosmo(second, cache, namelist, fs::path()), 0) << read_text(second / "run.log");
  EXPECT_NE(read_text(second / "run.log").find("Patch " + example_directory.string() + ": unchanged"), std::string::npos)
      << read_text(second / "run.log");
  EXPECT_NE(read_text(second / "run.log").find(": unchanged, cached ("), std::string::npos) << read_text(second / "run.log");
  EXPECT_EQ(libraries_in(cache), libraries);
  EXPECT_EQ(fs::last_write_time(libraries[0]), built_at);

  // Two ranks: the same profile, bit for bit.
  const fs::path two_ranks = fresh_directory("two_ranks");
  ASSERT_EQ(run_kosmo(two_ranks, cache, namelist, example_directory, std::string(KOSMO_MPIRUN) + " -np 2"), 0)
      << read_text(two_ranks / "run.log");
  EXPECT_EQ(final_density_profile(two_ranks), profile);

  for (const fs::path& directory : {cache, first, second, two_ranks}) fs::remove_all(directory);
}

TEST(UserPatch, CompileErrorStopsWithFileAndLineWritesNothingAndTheFixIsBuilt) {
  const fs::path cache = fresh_directory("broken_cache");
  const fs::path patch = fresh_directory("broken_patch");
  std::ofstream(patch / "broken.cpp") << "#include \"kosmo/patch.hpp\"\n"
                                         "extern \"C\" void kosmo_patch_condinit(const kosmo_patch_context*, int, const double*, double, double* q) {\n"
                                         "  q[0] = 1.0 +;\n"
                                         "}\n";
  const fs::path run = fresh_directory("broken_run");
  EXPECT_NE(run_kosmo(run, cache, example_directory / "ana-disk-potential.nml", patch), 0);
  const std::string log = read_text(run / "run.log");
  EXPECT_NE(log.find((patch / "broken.cpp").string() + ":3:"), std::string::npos) << log;
  EXPECT_NE(log.find("does not compile"), std::string::npos) << log;
  // Nothing written: no output, no library in the cache.
  std::vector<std::string> written;
  for (const auto& entry : fs::directory_iterator(run)) written.push_back(entry.path().filename().string());
  EXPECT_EQ(written, std::vector<std::string>{"run.log"});
  EXPECT_TRUE(libraries_in(cache).empty());

  // Corrected (the example's condinit in its place): the changed directory is built and runs.
  std::ofstream(patch / "broken.cpp") << read_text(example_directory / "condinit.cpp");
  const fs::path corrected = fresh_directory("corrected_run");
  EXPECT_EQ(run_kosmo(corrected, cache, example_directory / "ana-disk-potential.nml", patch), 0) << read_text(corrected / "run.log");
  EXPECT_NE(read_text(corrected / "run.log").find(": built ("), std::string::npos) << read_text(corrected / "run.log");
  EXPECT_EQ(libraries_in(cache).size(), 1u);
  for (const fs::path& directory : {cache, patch, run, corrected}) fs::remove_all(directory);
}

// Four particles of a patch on circular orbits of radius 0.2 about a softened point mass (GM = 1,
// softening 0.02) at the centre of a 64^2 box, a quarter of a period (RAMSES' point-mass tests'
// kind of set-up, 2-D): where they end, in the particles' id order, as (x, y) pairs.
constexpr double orbit_quarter_period = 0.14154870513517354;  // (pi/2) r / v, v^2 = GM r^2 / (r^2 + eps^2)^{3/2}

const char* orbit_namelist =
    "&RUN_PARAMS\nndim=2\npic=.true.\npoisson=.true.\n/\n"
    "&AMR_PARAMS\nlevelmin=6\nlevelmax=6\nboxlen=1.0\n/\n"
    "&POISSON_PARAMS\ngravity_type=2\ngravity_params=1.0, 0.02, 0.5, 0.5\n/\n"
    "&OUTPUT_PARAMS\ntend=0.14154870513517354\nnoutput=1\ntout=0.14154870513517354\n/\n";

const char* orbiting_particles_source = R"(// Four particles on circular orbits of radius 0.2 about the point mass of gravity_params.
#include <cmath>
#include "kosmo/patch.hpp"
extern "C" long long kosmo_patch_particle_count(const kosmo_patch_context*) { return 4; }
extern "C" void kosmo_patch_particles(const kosmo_patch_context* context, long long n, double* x, double* v, double* m) {
  double gm = 0.0, softening = 0.0, centre[2] = {0.0, 0.0};
  context->get_real(context, "POISSON_PARAMS", "gravity_params", 1, &gm);
  context->get_real(context, "POISSON_PARAMS", "gravity_params", 2, &softening);
  context->get_real(context, "POISSON_PARAMS", "gravity_params", 3, &centre[0]);
  context->get_real(context, "POISSON_PARAMS", "gravity_params", 4, &centre[1]);
  const double radius = 0.2;
  const double speed = std::sqrt(gm * radius * radius / std::pow(radius * radius + softening * softening, 1.5));
  for (long long p = 0; p < n; ++p) {
    const double angle = 0.5 * M_PI * static_cast<double>(p) + 0.3;
    x[0 * n + p] = centre[0] + radius * std::cos(angle);
    x[1 * n + p] = centre[1] + radius * std::sin(angle);
    v[0 * n + p] = -speed * std::sin(angle);
    v[1 * n + p] = speed * std::cos(angle);
    m[p] = 1e-6;
  }
}
)";

// gravity_type 2's field as a patch's gravana, with kosmo's operations in kosmo's order.
const char* point_mass_gravana_source = R"(#include <cmath>
#include "kosmo/patch.hpp"
extern "C" void kosmo_patch_gravana(const kosmo_patch_context* context, int ncell, const double* x, double, double* f) {
  double params[4] = {0.0, 0.0, 0.0, 0.0};
  for (int k = 0; k < 4; ++k) context->get_real(context, "POISSON_PARAMS", "gravity_params", k + 1, &params[k]);
  for (int i = 0; i < ncell; ++i) {
    double offset[2];
    double r2 = params[1] * params[1];
    for (int d = 0; d < 2; ++d) {
      offset[d] = x[d * ncell + i] - params[2 + d];
      r2 += offset[d] * offset[d];
    }
    const double factor = -params[0] / (r2 * std::sqrt(r2));
    for (int d = 0; d < 2; ++d) f[d * ncell + i] = factor * offset[d];
  }
}
)";

std::vector<double> final_particle_positions(const fs::path& directory) {
  const kosmo::io::RestartShare share = kosmo::io::read_restart_share(MPI_COMM_SELF, directory.string(), last_output(directory));
  EXPECT_NEAR(share.meta.time, orbit_quarter_period, 1e-15);
  std::vector<double> positions(2 * share.particles.size());
  EXPECT_EQ(share.particles.size(), 4u);
  for (std::size_t p = 0; p < share.particles.size(); ++p) {
    const auto slot = static_cast<std::size_t>(share.particles.id[p] - 1);
    positions[2 * slot] = share.particles.position[0][p];
    positions[2 * slot + 1] = share.particles.position[1][p];
  }
  return positions;
}

TEST(UserPatch, ParticlesOrbitThePointMassAndGravanaReplacesTheField) {
  const fs::path cache = fresh_directory("orbit_cache");
  const fs::path particles_only = fresh_directory("orbit_particles");
  std::ofstream(particles_only / "particles.cpp") << orbiting_particles_source;
  const fs::path own_field = fresh_directory("orbit_own_field");
  std::ofstream(own_field / "particles.cpp") << orbiting_particles_source;
  std::ofstream(own_field / "field.cpp") << point_mass_gravana_source;
  const fs::path namelist = fresh_directory("orbit_namelist") / "orbit.nml";
  std::ofstream(namelist) << orbit_namelist;

  const fs::path built_in = fresh_directory("orbit_built_in");
  ASSERT_EQ(run_kosmo(built_in, cache, namelist, particles_only), 0) << read_text(built_in / "run.log");
  EXPECT_NE(read_text(built_in / "run.log").find("hooks: particles\n"), std::string::npos) << read_text(built_in / "run.log");
  const std::vector<double> positions = final_particle_positions(built_in);
  // A quarter turn: particle p started at angle 0.3 + p pi/2 and ends pi/2 further.
  double error = 0.0;
  for (std::size_t p = 0; p < 4; ++p) {
    const double angle = 0.5 * M_PI * static_cast<double>(p) + 0.3 + 0.5 * M_PI;
    error = std::max(error, std::hypot(positions[2 * p] - (0.5 + 0.2 * std::cos(angle)), positions[2 * p + 1] - (0.5 + 0.2 * std::sin(angle))));
  }
  std::printf("point-mass orbits after a quarter period: largest position error %.3e (radius 0.2, cell 1/64)\n", error);
  // Measured 3.56e-4: the cloud-in-cell interpolation of the cell-centred field and the leapfrog.
  // A field of the wrong sign, strength or centre sends them far off.
  EXPECT_LE(error, 1e-3);

  // The same field from the patch's gravana: the same orbits, bit for bit.
  const fs::path patched = fresh_directory("orbit_patched");
  ASSERT_EQ(run_kosmo(patched, cache, namelist, own_field), 0) << read_text(patched / "run.log");
  EXPECT_NE(read_text(patched / "run.log").find("hooks: gravana, particles"), std::string::npos);
  EXPECT_EQ(final_particle_positions(patched), positions);
  EXPECT_EQ(libraries_in(cache).size(), 2u) << "another directory, another library";

  // Two ranks: the particles start in different domains and end where one rank puts them.
  const fs::path two_ranks = fresh_directory("orbit_two_ranks");
  ASSERT_EQ(run_kosmo(two_ranks, cache, namelist, particles_only, std::string(KOSMO_MPIRUN) + " -np 2"), 0)
      << read_text(two_ranks / "run.log");
  EXPECT_EQ(final_particle_positions(two_ranks), positions);
  for (const fs::path& directory : {cache, particles_only, own_field, namelist.parent_path(), built_in, patched, two_ranks})
    fs::remove_all(directory);
}

}  // namespace
