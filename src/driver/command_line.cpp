#include "driver/command_line.hpp"

#include <algorithm>
#include <exception>

#include "core/error.hpp"

namespace kosmo::driver {

std::string usage() {
  return "usage: kosmo run [NAMELIST] [--ndim D]   run a RAMSES namelist (no NAMELIST: the built-in demo)\n"
         "           [--patch DIR]                  with the C++ patch in DIR (docs/patches.md)\n"
         "           [--snapshot-steps N,M,...]     also a snapshot after these coarse steps; the run ends after the last\n"
         "       kosmo check NAMELIST [--ndim D]    list every problem of a namelist, or that it can run (exit 0/1)\n"
         "       kosmo bench hydro [--steps N]      hydro benchmarks, one JSON object per case\n"
         "       kosmo bench gravity                base-level FFT (gathered, slabs) and multigrid solves, 64^3-256^3, JSON lines\n"
         "       kosmo bench feedback [--steps N]   average_SN and Sedov_blast, binned vs all-pairs, ~2000 supernovae, levels 7-10\n"
         "       kosmo bench agn [--steps N]        average_AGN and AGN_blast, binned vs all-pairs, ~30 000 AGN, levels 6-9\n"
         "       kosmo bench fof [--steps N]        friends-of-friends sink merger backends, clustered sinks, 10^2-10^6, JSON lines\n"
         "       kosmo bench io                     snapshot write and read throughput, 32^3-128^3, JSON lines\n"
         "       kosmo bench scaling [--case C] [--steps N]\n"
         "                                          Sedov AMR, 64^3 dark-matter box, showcase box at 1x1, 2x1, 1x2\n"
         "                                          ranks x threads through mpirun, JSON lines (docs/benchmarks.md)\n"
         "       kosmo decompose --nrank N ...      dry run of the domain decomposition (see docs/parallel.md)\n"
         "       kosmo grafic NAMELIST DIRECTORY    grafic files of a filetype='gaussian' namelist's realisation\n"
         "       kosmo help | version\n";
}

namespace {

// "3,5,10": increasing positive coarse steps.
std::vector<long long> parse_step_list(const std::string& text) {
  std::vector<long long> steps;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, end - begin);
    std::size_t used = 0;
    long long step = 0;
    try {
      step = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    KOSMO_REQUIRE(!item.empty() && used == item.size() && step > 0 && (steps.empty() || step > steps.back()),
                  "--snapshot-steps: '" << text << "' is not a list of increasing positive coarse steps (N,M,...)");
    steps.push_back(step);
    begin = end + 1;
  }
  return steps;
}

}  // namespace

CommandLine parse_command_line(const std::vector<std::string>& arguments) {
  CommandLine line;
  if (arguments.empty()) {
    line.command = "help";
    return line;
  }
  line.command = arguments[0];
  if (line.command == "--help" || line.command == "-h") line.command = "help";
  if (line.command == "--version") line.command = "version";
  if (line.command == "decompose" || line.command == "grafic") {
    line.passthrough.assign(arguments.begin() + 1, arguments.end());
    return line;
  }
  KOSMO_REQUIRE(line.command == "run" || line.command == "check" || line.command == "bench" || line.command == "help" || line.command == "version",
                "unknown command '" << line.command << "'\n" << usage());
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    const std::string& a = arguments[i];
    if (a == "--ndim" || a.rfind("--ndim=", 0) == 0) {
      std::string value;
      if (a == "--ndim") {
        KOSMO_REQUIRE(i + 1 < arguments.size(), "--ndim needs a value (1, 2 or 3)");
        value = arguments[++i];
      } else {
        value = a.substr(7);
      }
      KOSMO_REQUIRE(value == "1" || value == "2" || value == "3", "--ndim must be 1, 2 or 3, not '" << value << "'");
      line.ndim = value[0] - '0';
    } else if (a == "--patch") {
      KOSMO_REQUIRE(i + 1 < arguments.size() && !arguments[i + 1].empty(), "--patch needs a directory");
      line.patch = arguments[++i];
    } else if (a == "--snapshot-steps") {
      KOSMO_REQUIRE(i + 1 < arguments.size(), "--snapshot-steps needs a list of coarse steps (N,M,...)");
      line.snapshot_steps = parse_step_list(arguments[++i]);
    } else if (a == "--steps") {
      KOSMO_REQUIRE(i + 1 < arguments.size(), "--steps needs a value");
      line.steps = std::stoi(arguments[++i]);
      KOSMO_REQUIRE(line.steps > 0, "--steps must be positive");
    } else if (a == "--case") {
      KOSMO_REQUIRE(i + 1 < arguments.size(), "--case needs a value (a case of kosmo bench scaling)");
      line.bench_case = arguments[++i];
    } else if (line.command == "bench") {
      KOSMO_REQUIRE(line.bench.empty(), "only one benchmark may be named (got '" << line.bench << "' and '" << a << "')");
      KOSMO_REQUIRE(a == "hydro" || a == "gravity" || a == "feedback" || a == "agn" || a == "fof" || a == "io" || a == "scaling",
                    "unknown benchmark '" << a << "' (available: hydro, gravity, feedback, agn, fof, io, scaling)");
      line.bench = a;
    } else if (!a.empty() && a[0] == '-') {
      KOSMO_FAIL("unknown option '" << a << "'\n" << usage());
    } else {
      KOSMO_REQUIRE(line.namelist.empty(), "only one namelist file may be given (got '" << line.namelist << "' and '" << a << "')");
      line.namelist = a;
    }
  }
  KOSMO_REQUIRE(line.bench_case.empty() || line.bench == "scaling", "--case applies to kosmo bench scaling only");
  KOSMO_REQUIRE(line.snapshot_steps.empty() || line.command == "run", "--snapshot-steps applies to kosmo run only");
  KOSMO_REQUIRE(line.command != "check" || !line.namelist.empty(), "kosmo check needs a namelist file\n" << usage());
  return line;
}

}  // namespace kosmo::driver
