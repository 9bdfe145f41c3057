#pragma once
// Wall-clock time per component of a run, printed as a table at the end (RAMSES' timer output).
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace kosmo::core {

class Timers {
 public:
  // Adds the time since `start` to `name`.
  void add(const std::string& name, std::chrono::steady_clock::time_point start) {
    add_seconds(name, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  // For a section that contains timed sections: adds the time since `start` minus what was recorded
  // since `recorded_at_start` (the value of recorded() at `start`), so that no second is counted
  // twice and the table's "other" is what no timer covers.
  void add_exclusive(const std::string& name, std::chrono::steady_clock::time_point start, double recorded_at_start) {
    const double inner = recorded_ - recorded_at_start;
    add_seconds(name, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() - inner);
  }
  // Seconds recorded so far, all timers together.
  double recorded() const { return recorded_; }
  void add_seconds(const std::string& name, double seconds) {
    recorded_ += seconds;
    for (auto& [n, s] : entries_)
      if (n == name) {
        s += seconds;
        return;
      }
    entries_.emplace_back(name, seconds);
  }
  double seconds(const std::string& name) const {
    for (const auto& [n, s] : entries_)
      if (n == name) return s;
    return 0.0;
  }
  const std::vector<std::pair<std::string, double>>& entries() const { return entries_; }

  std::string table(double total_seconds) const {
    std::string out = " TIMER                              seconds       %\n";
    char line[128];
    double accounted = 0.0;
    for (const auto& [name, s] : entries_) {
      std::snprintf(line, sizeof line, " %-30s %11.3f %7.1f\n", name.c_str(), s, total_seconds > 0 ? 100.0 * s / total_seconds : 0.0);
      out += line;
      accounted += s;
    }
    std::snprintf(line, sizeof line, " %-30s %11.3f %7.1f\n", "other", total_seconds - accounted,
                  total_seconds > 0 ? 100.0 * (total_seconds - accounted) / total_seconds : 0.0);
    out += line;
    std::snprintf(line, sizeof line, " %-30s %11.3f\n", "TOTAL", total_seconds);
    return out + line;
  }

 private:
  std::vector<std::pair<std::string, double>> entries_;
  double recorded_ = 0.0;
};

}  // namespace kosmo::core
