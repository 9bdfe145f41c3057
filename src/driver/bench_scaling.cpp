// `kosmo bench scaling` (see bench_scaling.hpp): a driver of whole runs, each launched through
// mpirun in its own directory and read back from its run_summary.json.
#include "driver/bench_scaling.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "core/error.hpp"
#include "driver/builtin_namelists.hpp"

extern char** environ;

namespace kosmo::driver {
namespace {

// The adaptive Sedov blast of RAMSES' sedov3d set-up, one level deeper than examples/sedov3d.nml and
// stopped at t = 3e-3 (about 30 s on one core of a 2-core machine).
constexpr const char* sedov_amr_namelist = R"(&RUN_PARAMS
nremap=5
hydro=.true.
ndim=3
/
&AMR_PARAMS
levelmin=5
levelmax=8
/
&INIT_PARAMS
nregion=2
region_type(1)='square'
region_type(2)='square'
x_center=0.5,0.5
y_center=0.5,0.5
z_center=0.5,0.5
length_x=10.0,0.06
length_y=10.0,0.06
length_z=10.0,0.06
exp_region=10.0,2.0
d_region=1.0,1.0
p_region=1e-5,1415.0
/
&OUTPUT_PARAMS
noutput=1
tout=3e-3
/
&HYDRO_PARAMS
gamma=1.4
courant_factor=0.8
slope_type=2
riemann='hllc'
/
&REFINE_PARAMS
err_grad_p=0.1
interpol_type=2
/
)";

// The 64^3 dark-matter box (100 Mpc/h, levelmin 6 -> levelmax 10, m_refine 8 particles), started
// late (a = 0.25, Zel'dovich displacements) so that the first steps already refine to level 10:
// the full run from z = 49 takes about 20 minutes on one core.
std::string dm_box_namelist(int steps) {
  return "&RUN_PARAMS\ncosmo=.true.\npic=.true.\npoisson=.true.\nhydro=.false.\nnstepmax=" + std::to_string(steps) +
         "\n/\n&AMR_PARAMS\nlevelmin=6\nlevelmax=10\n/\n&INIT_PARAMS\nfiletype='gaussian'\naexp_ini=0.25\nboxlen_ini=100.0\n"
         "seed=2026\n/\n&HYDRO_PARAMS\ncourant_factor=0.8\n/\n&REFINE_PARAMS\nm_refine=10*8.0\n/\n"
         "&OUTPUT_PARAMS\nnoutput=1\naout=1.0\n/\n";
}

// examples/cosmology_box.nml (the showcase) with nstepmax added to its &RUN_PARAMS.
std::string showcase_namelist(int steps) {
  std::string text = cosmology_box_namelist;
  const std::string block = "&RUN_PARAMS\n";
  const auto at = text.find(block);
  KOSMO_REQUIRE(at != std::string::npos, "bench scaling: the showcase namelist has no &RUN_PARAMS block");
  return text.insert(at + block.size(), "nstepmax=" + std::to_string(steps) + "\n");
}

std::string json_number(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

// Ranks' values of `column` divided by the coarse steps, as a JSON array.
std::string per_step(const JsonValue& column, double steps) {
  std::string out = "[";
  for (std::size_t r = 0; r < column.items.size(); ++r) {
    if (r > 0) out += ",";
    out += json_number(column.items[r].number / steps);
  }
  return out + "]";
}

std::string per_rank(const JsonValue& column) { return per_step(column, 1.0); }

// The environment of a launched run: this process's, without the variables of an MPI launcher
// that may have started the bench itself (they would make the inner mpirun a child of the outer
// job), and with OMP_NUM_THREADS set.
std::vector<std::string> run_environment(int threads) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    bool launcher = false;
    for (const char* prefix : {"OMPI_", "PMIX_", "OPAL_", "PRTE_", "PMI_", "HYDRA_", "OMP_NUM_THREADS="})
      launcher = launcher || entry.rfind(prefix, 0) == 0;
    if (!launcher) env.push_back(entry);
  }
  env.push_back("OMP_NUM_THREADS=" + std::to_string(threads));
  return env;
}

// mpirun -np R on this binary in `directory`, output to run.log there. Returns the exit status.
int launch(const std::filesystem::path& directory, ScalingLayout layout) {
  const std::string executable = std::filesystem::read_symlink("/proc/self/exe").string();
  // --bind-to none: Open MPI binds each rank to one core when there are at most two ranks, which
  // would put a 1x2 run's two threads on a single core.
  std::vector<std::string> arguments = {"mpirun", "-np", std::to_string(layout.ranks), "--oversubscribe", "--bind-to", "none",
                                        "-x", "OMP_NUM_THREADS"};
  if (geteuid() == 0) arguments.push_back("--allow-run-as-root");
  arguments.insert(arguments.end(), {executable, "run", "params.nml"});
  const std::vector<std::string> env = run_environment(layout.threads);
  std::vector<char*> argv, envp;
  for (const std::string& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  const std::string log = (directory / "run.log").string();
  const pid_t child = fork();
  KOSMO_REQUIRE(child >= 0, "bench scaling: fork failed: " << std::strerror(errno));
  if (child == 0) {
    if (chdir(directory.c_str()) != 0 || !std::freopen(log.c_str(), "w", stdout) || !std::freopen(log.c_str(), "a", stderr)) _exit(127);
    execvpe("mpirun", argv.data(), envp.data());
    _exit(127);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::vector<ScalingCase> scaling_cases(int steps) {
  return {{"sedov_amr", sedov_amr_namelist},
          {"dm_box_64_short", dm_box_namelist(steps > 0 ? steps : 6)},
          {"showcase_short", showcase_namelist(steps > 0 ? steps : 40)}};
}

std::vector<ScalingLayout> scaling_layouts() { return {{1, 1}, {2, 1}, {1, 2}}; }

std::string scaling_result_json(const std::string& case_name, ScalingLayout layout, double seconds, double baseline_seconds,
                                const JsonValue& summary) {
  const double steps = std::max(summary.at("coarse_steps").number, 1.0);
  const bool baseline_run = layout.ranks == 1 && layout.threads == 1;
  // Without a 1x1 time (its run failed) there is nothing to compare with.
  const std::string speedup = baseline_seconds > 0.0 ? json_number(baseline_seconds / seconds) : (baseline_run ? "1" : "null");
  std::string out = "{\"case\": \"" + case_name + "\", \"ranks\": " + std::to_string(layout.ranks) +
                    ", \"threads\": " + std::to_string(layout.threads) + ", \"seconds\": " + json_number(seconds) +
                    ", \"cpu_seconds\": " + json_number(summary.at("cpu_seconds").number) +
                    ", \"speedup\": " + speedup +
                    ", \"run_seconds\": " + json_number(summary.at("wall_seconds").number) +
                    ", \"coarse_steps\": " + json_number(summary.at("coarse_steps").number) +
                    ", \"peak_rss_bytes\": " + json_number(summary.at("peak_rss_bytes").number) + ", \"timers\": {";
  bool first = true;
  for (const auto& [name, value] : summary.at("timers").members) {
    out += std::string(first ? "" : ", ") + "\"" + name + "\": " + json_number(value.number);
    first = false;
  }
  out += "}, \"exchanges_per_rank_per_step\": {";
  first = true;
  for (const auto& [kind, figures] : summary.at("exchanges").members) {
    out += std::string(first ? "" : ", ") + "\"" + kind + "\": {\"messages\": " + per_step(figures.at("messages_sent"), steps) +
           ", \"bytes\": " + per_step(figures.at("bytes_sent"), steps) +
           ", \"wait_seconds_total\": " + per_rank(figures.at("wait_seconds")) + "}";
    first = false;
  }
  return out + "}}";
}

bool bench_scaling(const ScalingOptions& options, std::ostream& out, std::ostream& err) {
  std::string pattern = (std::filesystem::temp_directory_path() / "kosmo_bench_scaling_XXXXXX").string();
  KOSMO_REQUIRE(mkdtemp(pattern.data()) != nullptr, "bench scaling: cannot create a directory under " << pattern);
  const std::filesystem::path root = pattern;
  bool all_ran = true;
  bool any_case = false;
  for (const ScalingCase& c : scaling_cases(options.steps)) {
    if (!options.only_case.empty() && c.name != options.only_case) continue;
    any_case = true;
    double baseline = 0.0;
    for (const ScalingLayout layout : scaling_layouts()) {
      const std::filesystem::path directory =
          root / (c.name + "_" + std::to_string(layout.ranks) + "x" + std::to_string(layout.threads));
      std::filesystem::create_directories(directory);
      std::ofstream(directory / "params.nml") << c.namelist;
      err << " bench scaling: " << c.name << " " << layout.ranks << "x" << layout.threads << " in " << directory.string() << "\n"
          << std::flush;
      const auto start = std::chrono::steady_clock::now();
      const int status = launch(directory, layout);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const auto summary_path = directory / "run_summary.json";
      if (status != 0 || !std::filesystem::exists(summary_path)) {
        err << " bench scaling: " << c.name << " " << layout.ranks << "x" << layout.threads << " failed (exit status " << status
            << "), its log: " << (directory / "run.log").string() << "\n";
        all_ran = false;
        continue;
      }
      if (layout.ranks == 1 && layout.threads == 1) baseline = seconds;
      out << scaling_result_json(c.name, layout, seconds, baseline, parse_json(read_text(summary_path))) << "\n" << std::flush;
      std::filesystem::remove_all(directory);
    }
  }
  KOSMO_REQUIRE(any_case, "bench scaling: no case named '" << options.only_case << "' (sedov_amr, dm_box_64_short, showcase_short)");
  if (all_ran) std::filesystem::remove_all(root);
  return all_ran;
}

}  // namespace kosmo::driver
