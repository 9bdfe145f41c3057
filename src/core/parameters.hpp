#pragma once
// The run's parameters: every schema key with its value, read from a RAMSES namelist and checked
// before any work starts (ARCHITECTURE §5). Values that are not in the file keep RAMSES' defaults.
#include <string>
#include <string_view>
#include <vector>

#include "core/feature_gate.hpp"
#include "core/namelist_parser.hpp"
#include "core/parameter_schema.hpp"

namespace kosmo::core {

struct ResolvedParameter {
  std::string block;  // "AMR_PARAMS"
  std::string name;   // "levelmax"
  std::string value;  // namelist spelling that parses back exactly: 7, 0.1, .true., 'x', 100*1
  bool from_file;     // the namelist file set it (an override via set_from_text does not count)
};

class ParameterSet {
 public:
  // Every key at its RAMSES default; source() is "(defaults)". Same as defaults().
  ParameterSet();
  static ParameterSet defaults();
  // Reads, checks every assignment against the schema, then the cross-parameter checks. Throws one
  // kosmo::Error listing every problem found, one line each "file:line: &BLOCK: ...", in line
  // order: syntax errors, unknown blocks and keys (with a suggestion), wrong values, features not
  // implemented yet ("not implemented yet: FEATURE"), failed checks.
  static ParameterSet from_file(const std::string& path);
  static ParameterSet from_text(const std::string& text, const std::string& source_name);

  // Typed getters; block like "AMR_PARAMS" or "&amr_params" (case-insensitive). Asking for a key
  // outside the schema, or with the wrong type or shape, is a programming error (kosmo::Error).
  long long get_int(std::string_view block, std::string_view name) const;
  double get_real(std::string_view block, std::string_view name) const;
  bool get_bool(std::string_view block, std::string_view name) const;
  std::string get_string(std::string_view block, std::string_view name) const;
  std::vector<long long> get_int_array(std::string_view block, std::string_view name) const;  // full length
  std::vector<double> get_real_array(std::string_view block, std::string_view name) const;
  std::vector<std::string> get_string_array(std::string_view block, std::string_view name) const;  // full length

  // True when the namelist file set the key (any element of an array) and no override replaced it.
  bool from_file(std::string_view block, std::string_view name) const;
  // Source file name, or "(defaults)".
  const std::string& source() const;
  // The RAMSES keys of the file accepted and ignored: keys with no effect on kosmo's results
  // ("&RUN_PARAMS ncontrol"), keys and blocks of a feature switched off ("&SINK_PARAMS (sink off)")
  // and keys at their inert value ("&RUN_PARAMS sink (off)"), in file order ...
  const std::vector<std::string>& ignored_keys() const;
  // ... and the one line that lists them at start-up; empty when there is none.
  std::string ignored_summary() const;
  // Every schema key, in schema order.
  std::vector<ResolvedParameter> resolved() const;
  // Table printed at start-up: block, key, value; '*' marks values from the file, '+' overrides.
  std::string summary() const;
  // The whole set as a namelist file; from_text() of it reproduces every value bit-exactly.
  std::string to_namelist() const;

  // Programmatic override, e.g. ("RUN_PARAMS", "ndim=2") for --ndim, or several assignments at
  // once ("AMR_PARAMS", "levelmin=3, levelmax=7"). Checked like file input, then validate(); on
  // error the set is unchanged and the message names "(override)" as the source. Overridden keys
  // report from_file = false: the value in force no longer comes from the file.
  void set_from_text(std::string_view block, std::string_view assignment);

  // The cross-parameter checks the modules declared (levelmax >= levelmin, noutput fits tout/aout,
  // tout and aout non-decreasing, ...), in catalogue order. from_file/from_text/set_from_text call
  // it; a no-op when all is well.
  void validate() const;

  // For those checks: "file:line: &BLOCK: " of the assignment that set the key (the file alone, or
  // "(override):line", when no file line did), the start of an error message about it ...
  std::string location_of(std::string_view block, std::string_view name) const;
  // ... and whether the file or an override set it, so the message can name the key the user wrote.
  bool set_by_user(std::string_view block, std::string_view name) const;

 private:
  enum class Origin { Default, File, Override };
  struct Entry {
    const ParameterSpec* spec = nullptr;
    std::vector<ParameterValue> values;  // one element for a scalar
    Origin origin = Origin::Default;
    int line = 0;  // line of the last assignment that set a value (0 for a default)
  };

  const Entry& entry(std::string_view block, std::string_view name, ParameterType type, bool array,
                     std::string_view getter) const;
  std::size_t index_of(std::string_view block, std::string_view name) const;  // entries_.size() if absent
  void load(const ParsedNamelist& parsed, Origin origin);
  struct ApplyOutcome {
    std::size_t not_implemented = 0;  // "not implemented yet" lines among the problems
  };
  ApplyOutcome apply(const ParsedNamelist& parsed, Origin origin, std::vector<NamelistProblem>& problems);
  void assign(Entry& entry, const RawBlock& block, const RawAssignment& assignment, const std::string& source,
              Origin origin);
  std::string location(const Entry& entry) const;

  std::string source_ = "(defaults)";
  std::vector<std::string> ignored_;
  std::vector<Entry> entries_;  // one per schema row, same order
};

}  // namespace kosmo::core
