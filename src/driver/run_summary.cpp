// End-of-run summary (see run_summary.hpp): gathered to rank 0, printed and written as JSON.
#include "driver/run_summary.hpp"

#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>

namespace kosmo::driver {
namespace {

// Per exchange kind, the figures gathered from every rank, in this order.
constexpr std::array<const char*, 6> exchange_fields = {"messages_sent",     "bytes_sent",   "messages_received",
                                                        "bytes_received",    "wait_seconds", "exchanges"};

std::array<double, exchange_fields.size()> values_of(const parallel::ExchangeStats& s) {
  return {static_cast<double>(s.messages_sent), static_cast<double>(s.bytes_sent), static_cast<double>(s.messages_received),
          static_cast<double>(s.bytes_received), s.wait_seconds, static_cast<double>(s.exchanges)};
}

std::string json_number(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.9g", value);
  return buffer;
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// `values` holds nrank rows of `width` numbers; column `column` as a JSON array over ranks.
std::string rank_array(const std::vector<double>& values, int nrank, std::size_t width, std::size_t column) {
  std::string out = "[";
  for (int r = 0; r < nrank; ++r) {
    if (r > 0) out += ",";
    out += json_number(values[static_cast<std::size_t>(r) * width + column]);
  }
  return out + "]";
}

struct Gathered {
  int nrank = 1;
  std::size_t width = 0;       // numbers per rank
  std::vector<double> values;  // rank-major; per rank: peak RSS, CPU seconds, then the exchange figures
};

Gathered gather(const RunFigures& figures, MPI_Comm comm) {
  Gathered g;
  MPI_Comm_size(comm, &g.nrank);
  std::vector<double> mine = {peak_resident_bytes(), process_cpu_seconds()};
  for (const ExchangeKindTotals& kind : figures.exchanges)
    for (double v : values_of(kind.stats)) mine.push_back(v);
  g.width = mine.size();
  g.values.resize(g.width * static_cast<std::size_t>(g.nrank));
  MPI_Gather(mine.data(), static_cast<int>(g.width), MPI_DOUBLE, g.values.data(), static_cast<int>(g.width), MPI_DOUBLE, 0, comm);
  return g;
}

std::string summary_json(const RunFigures& figures, const Gathered& g) {
  double peak = 0.0, cpu = 0.0;
  for (int r = 0; r < g.nrank; ++r) {
    peak = std::max(peak, g.values[static_cast<std::size_t>(r) * g.width]);
    cpu += g.values[static_cast<std::size_t>(r) * g.width + 1];
  }
  std::string out = "{\"ranks\":" + std::to_string(g.nrank) + ",\"threads\":" + std::to_string(omp_get_max_threads()) +
                    ",\"coarse_steps\":" + std::to_string(figures.coarse_steps) + ",\"wall_seconds\":" + json_number(figures.wall_seconds) +
                    ",\"cpu_seconds\":" + json_number(cpu) + ",\"peak_rss_bytes\":" + json_number(peak) +
                    ",\"peak_rss_bytes_per_rank\":" + rank_array(g.values, g.nrank, g.width, 0) +
                    ",\"cpu_seconds_per_rank\":" + rank_array(g.values, g.nrank, g.width, 1) + ",\"timers\":{";
  double accounted = 0.0;
  if (figures.timers != nullptr)
    for (const auto& [name, seconds] : figures.timers->entries()) {
      out += json_string(name) + ":" + json_number(seconds) + ",";
      accounted += seconds;
    }
  out += "\"other\":" + json_number(figures.wall_seconds - accounted) + "},\"exchanges\":{";
  for (std::size_t k = 0; k < figures.exchanges.size(); ++k) {
    if (k > 0) out += ",";
    out += json_string(figures.exchanges[k].name) + ":{";
    for (std::size_t f = 0; f < exchange_fields.size(); ++f) {
      if (f > 0) out += ",";
      out += json_string(exchange_fields[f]) + ":" + rank_array(g.values, g.nrank, g.width, 2 + k * exchange_fields.size() + f);
    }
    out += "}";
  }
  return out + "}}\n";
}

void print_summary(const RunFigures& figures, const Gathered& g, std::ostream& log) {
  double peak = 0.0, cpu = 0.0;
  for (int r = 0; r < g.nrank; ++r) {
    peak = std::max(peak, g.values[static_cast<std::size_t>(r) * g.width]);
    cpu += g.values[static_cast<std::size_t>(r) * g.width + 1];
  }
  char line[200];
  std::snprintf(line, sizeof line, " Peak resident memory %.1f MB (max over %d rank%s), CPU time %.3f s (all ranks)\n", peak / 1048576.0,
                g.nrank, g.nrank == 1 ? "" : "s", cpu);
  log << line;
  if (g.nrank == 1 || figures.exchanges.empty()) return;
  const double steps = static_cast<double>(std::max(figures.coarse_steps, 1LL));
  log << " EXCHANGE (per rank per coarse step, mean)  messages      bytes   wait s (max over ranks, whole run)\n";
  for (std::size_t k = 0; k < figures.exchanges.size(); ++k) {
    const std::size_t base = 2 + k * exchange_fields.size();
    double messages = 0.0, bytes = 0.0, wait = 0.0;
    for (int r = 0; r < g.nrank; ++r) {
      const double* row = g.values.data() + static_cast<std::size_t>(r) * g.width + base;
      messages += row[0];
      bytes += row[1];
      wait = std::max(wait, row[4]);
    }
    std::snprintf(line, sizeof line, " %-40s %9.1f %10.3e %10.3f\n", figures.exchanges[k].name.c_str(), messages / g.nrank / steps,
                  bytes / g.nrank / steps, wait);
    log << line;
  }
}

}  // namespace

double peak_resident_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0.0;
  return static_cast<double>(usage.ru_maxrss) * 1024.0;  // kilobytes on Linux
}

double process_cpu_seconds() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0.0;
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void report_run_summary(const RunFigures& figures, MPI_Comm comm, std::ostream& log, const std::string& json_path) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const Gathered g = gather(figures, comm);
  if (rank != 0) return;
  print_summary(figures, g, log);
  log << std::flush;
  if (json_path.empty()) return;
  std::ofstream(json_path) << summary_json(figures, g);
}

}  // namespace kosmo::driver
