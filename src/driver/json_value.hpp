#pragma once
// A small JSON reader for the files kosmo writes itself (run_summary.json): objects, arrays,
// numbers, strings, true/false/null. Enough for `kosmo bench scaling` to read its runs' summaries
// without a third-party library; not a validating parser for arbitrary input (no \u escapes).
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kosmo::driver {

struct JsonValue {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  bool boolean = false;
  double number = 0.0;
  std::string text;
  std::vector<JsonValue> items;
  // Object members in file order (the timers' order is the order they were first used).
  std::vector<std::pair<std::string, JsonValue>> members;

  // The member `name` of an object; throws kosmo::Error when absent or not an object.
  const JsonValue& at(std::string_view name) const;
  bool has(std::string_view name) const;
};

// Throws kosmo::Error naming the offset of the first character it cannot read.
JsonValue parse_json(std::string_view text);

}  // namespace kosmo::driver
