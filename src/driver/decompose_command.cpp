// The `kosmo decompose` dry run: build a k-section or Hilbert decomposition for N ranks on a
// synthetic G^3 load and report the figures of seeds/000 §8.6.1 and §8.6.3 as one JSON object.
#include "driver/decompose_command.hpp"

#include <charconv>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "core/error.hpp"
#include "parallel/decomposition_metrics.hpp"
#include "parallel/hilbert_curve.hpp"
#include "parallel/ksection_tree.hpp"
#include "parallel/prime_factors.hpp"
#include "parallel/synthetic_load.hpp"

namespace kosmo::driver {

namespace {

// 1024^3 cells already need ~20 GB for weights, prefix sums and owners; 2^24 ranks keep the tree
// (about 2 N nodes) and the per-rank tallies well inside memory.
constexpr long long max_grid = 1024;
constexpr long long max_nrank = 1LL << 24;

long long parse_integer(const std::string& flag, const std::string& text, long long min, long long max) {
  long long value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  KOSMO_REQUIRE(error == std::errc() && stop == end && !text.empty(),
                "kosmo decompose: " << flag << " expects an integer, got '" << text << "'\n"
                                    << decompose_usage());
  KOSMO_REQUIRE(value >= min && value <= max, "kosmo decompose: " << flag << " must be in [" << min << ", " << max
                                                                  << "], got " << value << "\n"
                                                                  << decompose_usage());
  return value;
}

}  // namespace

std::string decompose_usage() {
  return "usage: kosmo decompose --nrank N [--ordering ksection|hilbert] [--grid G] [--load uniform|clusters] "
         "[--seed S]\n"
         "  dry run of the domain decomposition on a synthetic periodic G^3 grid (default G = 256,\n"
         "  ordering ksection, load uniform, seed 42); prints one JSON object.";
}

DecomposeOptions parse_decompose_options(const std::vector<std::string>& arguments) {
  DecomposeOptions options;
  bool have_nrank = false;
  std::size_t n = 0;
  if (!arguments.empty() && arguments[0] == "decompose") n = 1;
  for (; n < arguments.size(); ++n) {
    std::string flag = arguments[n], value;
    if (const auto equals = flag.find('='); flag.rfind("--", 0) == 0 && equals != std::string::npos) {
      value = flag.substr(equals + 1);
      flag = flag.substr(0, equals);
    } else {
      KOSMO_REQUIRE(
          flag == "--nrank" || flag == "--ordering" || flag == "--grid" || flag == "--load" || flag == "--seed",
          "kosmo decompose: unknown argument '" << flag << "'\n"
                                                << decompose_usage());
      KOSMO_REQUIRE(n + 1 < arguments.size(), "kosmo decompose: " << flag << " needs a value\n" << decompose_usage());
      value = arguments[++n];
    }
    if (flag == "--nrank") {
      options.nrank = static_cast<int>(parse_integer(flag, value, 1, max_nrank));
      have_nrank = true;
    } else if (flag == "--grid") {
      options.grid = static_cast<int>(parse_integer(flag, value, 1, max_grid));
    } else if (flag == "--seed") {
      options.seed = static_cast<unsigned long long>(parse_integer(flag, value, 0, INT64_MAX));
    } else if (flag == "--ordering") {
      KOSMO_REQUIRE(value == "ksection" || value == "hilbert",
                    "kosmo decompose: unknown ordering '" << value << "' (valid: ksection, hilbert)");
      options.ordering = value;
    } else if (flag == "--load") {
      KOSMO_REQUIRE(value == "uniform" || value == "clusters",
                    "kosmo decompose: unknown load '" << value << "' (valid: uniform, clusters)");
      options.load = value;
    } else {
      KOSMO_FAIL("kosmo decompose: unknown argument '" << flag << "'\n" << decompose_usage());
    }
  }
  KOSMO_REQUIRE(have_nrank, "kosmo decompose: --nrank N is required\n" << decompose_usage());
  return options;
}

int decompose_command(const std::vector<std::string>& arguments, std::ostream& out) {
  const DecomposeOptions options = parse_decompose_options(arguments);
  const std::vector<double> weight =
      options.load == "clusters" ? parallel::clustered_load(options.grid, parallel::random_clusters(options.seed))
                                 : parallel::uniform_load(options.grid);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::int32_t> owner;
  int tree_levels = 0, messages = 0, unresolved_walls = 0;
  if (options.ordering == "ksection") {
    parallel::GridCostSource cost(weight, options.grid);
    parallel::WallSettings settings;
    settings.bins_per_domain = options.grid;  // walls on cell faces: Delta x_hist = one cell
    const parallel::KSectionTree tree = parallel::KSectionTree::build(options.nrank, parallel::Box{}, cost, settings);
    owner = tree.owner_map(options.grid);
    tree_levels = tree.tree_levels();
    messages = parallel::ksection_messages_per_exchange(tree.splits());
    unresolved_walls = tree.wall_report().unresolved_walls;
  } else {
    owner = parallel::hilbert_owner_map(weight, options.grid, options.nrank);
  }
  const double build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const parallel::DecompositionMetrics metrics =
      parallel::measure_decomposition(owner, weight, options.grid, options.nrank);

  std::ostringstream json;
  json << std::setprecision(6) << "{\"nrank\": " << options.nrank << ", \"ordering\": \"" << options.ordering
       << "\", \"grid\": " << options.grid << ", \"load\": \"" << options.load << "\", \"seed\": " << options.seed
       << ", \"partners_mean\": " << metrics.partners_mean << ", \"partners_max\": " << metrics.partners_max
       << ", \"tree_levels\": " << tree_levels << ", \"messages_per_exchange\": ";
  // Hilbert has no tree: its exchange is point-to-point, one message per partner.
  if (options.ordering == "ksection")
    json << messages;
  else
    json << metrics.partners_mean;
  json << ", \"imbalance\": " << metrics.imbalance << ", \"ghost_ratio\": " << metrics.ghost_ratio
       << ", \"surface_to_volume\": " << metrics.surface_to_volume << ", \"empty_ranks\": " << metrics.empty_ranks
       << ", \"unresolved_walls\": " << unresolved_walls << ", \"build_seconds\": " << build_seconds << "}";
  out << json.str() << '\n';
  return 0;
}

}  // namespace kosmo::driver
