// User patches through the kosmo binary (docs/patches.md): examples/patches/ana-disk-potential,
// built by `kosmo run NAMELIST --patch DIR`, keeps its disc in vertical hydrostatic equilibrium in
// the field of gravity_type 3 on 1 and 2 ranks; an unchanged patch is not rebuilt; a patch that does
// not compile stops the run with the compiler's file:line and nothing written.
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

// Runs `launcher kosmo run NAMELIST --patch DIR` in `directory` with the patch cache `cache`;
// returns the exit status, stdout and stderr in directory/run.log.
int run_kosmo(const fs::path& directory, const fs::path& cache, const fs::path& namelist, const fs::path& patch,
              const std::string& launcher = "") {
  const std::string command = "cd '" + directory.string() + "' && " + without_this_jobs_mpi() + " KOSMO_PATCH_CACHE='" + cache.string() +
                              "' " + launcher + " '" + KOSMO_BINARY + "' run '" + namelist.string() + "' --patch '" + patch.string() +
                              "' > run.log 2>&1";
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

// The density along y of the last output of a 2-D uniform run, averaged over x: rows [0, n).
std::vector<double> final_density_profile(const fs::path& directory) {
  int last = 0;
  for (const auto& entry : fs::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("output_", 0) == 0) last = std::max(last, std::stoi(name.substr(7)));
  }
  EXPECT_GT(last, 0) << "no output in " << directory;
  const kosmo::io::RestartShare share = kosmo::io::read_restart_share(MPI_COMM_SELF, directory.string(), last);
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

  // Unchanged patch directory: the cached library is loaded, not rebuilt.
  const fs::path second = fresh_directory("second");
  ASSERT_EQ(run_kosmo(second, cache, namelist, example_directory), 0) << read_text(second / "run.log");
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

TEST(UserPatch, CompileErrorStopsWithFileAndLineAndWritesNothing) {
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
  for (const fs::path& directory : {cache, patch, run}) fs::remove_all(directory);
}

}  // namespace
