// The end-of-run summary (driver/run_summary): every rank's exchange figures reach run_summary.json
// in rank order, the peak memory is the maximum over ranks, the CPU time their sum, and the log
// line names the peak memory; the bench reads the file back with the same JSON reader.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "driver/json_value.hpp"
#include "driver/run_summary.hpp"

using namespace kosmo;
using namespace kosmo::driver;

TEST(RunSummary, GathersEveryRankIntoTheJsonFile) {
  int rank = 0, nrank = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nrank);
  core::Timers timers;
  timers.add_seconds("hydro - gather, fluxes, update", 2.0);
  timers.add_seconds("refine", 0.5);
  RunFigures figures{10, 3.0, &timers, {}};
  for (const char* kind : {"ghost_refresh", "mesh_changes"}) {
    ExchangeKindTotals totals{kind, {}};
    totals.stats.messages_sent = 100 + rank;  // rank-dependent, to check the order of the gather
    totals.stats.bytes_sent = 1000 * (rank + 1);
    totals.stats.wait_seconds = 0.25 * rank;
    totals.stats.exchanges = 7;
    figures.exchanges.push_back(totals);
  }
  // One file name for all ranks (rank 0 writes it), unique per test run.
  long long stamp = rank == 0 ? static_cast<long long>(getpid()) : 0;
  MPI_Bcast(&stamp, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  const std::string path = (std::filesystem::temp_directory_path() / ("kosmo_run_summary_" + std::to_string(stamp) + ".json")).string();
  std::ostringstream log;
  report_run_summary(figures, MPI_COMM_WORLD, log, path);
  if (rank != 0) {
    EXPECT_TRUE(log.str().empty());  // only rank 0 prints
    return;
  }
  EXPECT_NE(log.str().find("Peak resident memory"), std::string::npos) << log.str();
  std::ifstream in(path);
  ASSERT_TRUE(in.is_open()) << path;
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove(path);
  const JsonValue summary = parse_json(text.str());
  EXPECT_EQ(summary.at("ranks").number, nrank);
  EXPECT_EQ(summary.at("coarse_steps").number, 10);
  EXPECT_DOUBLE_EQ(summary.at("wall_seconds").number, 3.0);
  EXPECT_DOUBLE_EQ(summary.at("timers").at("refine").number, 0.5);
  EXPECT_DOUBLE_EQ(summary.at("timers").at("other").number, 0.5);  // 3 - 2 - 0.5
  const JsonValue& rss = summary.at("peak_rss_bytes_per_rank");
  ASSERT_EQ(rss.items.size(), static_cast<std::size_t>(nrank));
  double peak = 0.0;
  for (const JsonValue& r : rss.items) {
    EXPECT_GT(r.number, 1e6);  // a process holds more than a megabyte
    peak = std::max(peak, r.number);
  }
  EXPECT_DOUBLE_EQ(summary.at("peak_rss_bytes").number, peak);
  EXPECT_GT(summary.at("cpu_seconds").number, 0.0);
  for (const char* kind : {"ghost_refresh", "mesh_changes"}) {
    const JsonValue& k = summary.at("exchanges").at(kind);
    ASSERT_EQ(k.at("messages_sent").items.size(), static_cast<std::size_t>(nrank));
    for (int r = 0; r < nrank; ++r) {
      EXPECT_EQ(k.at("messages_sent").items[static_cast<std::size_t>(r)].number, 100 + r);
      EXPECT_EQ(k.at("bytes_sent").items[static_cast<std::size_t>(r)].number, 1000 * (r + 1));
      EXPECT_DOUBLE_EQ(k.at("wait_seconds").items[static_cast<std::size_t>(r)].number, 0.25 * r);
      EXPECT_EQ(k.at("exchanges").items[static_cast<std::size_t>(r)].number, 7);
    }
  }
}
