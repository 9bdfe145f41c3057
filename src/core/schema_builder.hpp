#pragma once
// How a module declares its namelist parameters. Each module has a declare_parameters(SchemaBuilder&)
// that declares the blocks it owns, adds its rows to any block (its own or a shared one such as
// &RUN_PARAMS) and registers its cross-parameter checks; the program's catalogue
// (driver/parameter_catalogue.cpp) calls every module's function through declare_module(), and
// build() assembles one table per block, checked once: a key declared by two modules, a row in a
// block nobody declared, a default outside its own range or a key both implemented and listed as
// not implemented stops the program naming the modules involved.
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "core/parameter_schema.hpp"

namespace kosmo::core {

// The allowed range of a numeric parameter.
struct Range {
  std::optional<Bound> lower, upper;
};

// Row helpers, so that a module's table reads one key per row.
namespace parameter_rows {

inline Range any_value() { return {}; }
inline Range at_least(double v) { return {Bound{v, true}, std::nullopt}; }
inline Range above(double v) { return {Bound{v, false}, std::nullopt}; }
inline Range between(double lo, double hi) { return {Bound{lo, true}, Bound{hi, true}}; }
inline Range above_up_to(double lo, double hi) { return {Bound{lo, false}, Bound{hi, true}}; }

ParameterSpec integer_key(std::string block, std::string name, long long def, Range range, std::string text);
ParameterSpec integer_array_key(std::string block, std::string name, int length, long long def, Range range,
                                std::string text);
ParameterSpec real_key(std::string block, std::string name, double def, Range range, std::string text);
ParameterSpec real_array_key(std::string block, std::string name, int length, double def, Range range,
                             std::string text);
// Two-dimensional arrays `name(1:extent1, 1:extent2)`, stored column-major (ParameterSpec::extents).
ParameterSpec integer_array2_key(std::string block, std::string name, int extent1, int extent2, long long def,
                                 Range range, std::string text);
ParameterSpec real_array2_key(std::string block, std::string name, int extent1, int extent2, double def, Range range,
                              std::string text);
ParameterSpec string_array2_key(std::string block, std::string name, int extent1, int extent2, std::string def,
                                std::vector<std::string> choices, std::string text);
ParameterSpec logical_key(std::string block, std::string name, bool def, std::string text);
ParameterSpec string_key(std::string block, std::string name, std::string def, std::vector<std::string> choices,
                         std::string text);
ParameterSpec string_array_key(std::string block, std::string name, int length, std::string def,
                               std::vector<std::string> choices, std::string text);

}  // namespace parameter_rows

class SchemaBuilder {
 public:
  using Declaration = void (*)(SchemaBuilder&);

  // Runs one module's declarations; everything they add is recorded as owned by `module`.
  void declare_module(std::string module, Declaration declare);

  // A block the current module owns; its description heads the block in docs/namelist.md.
  void declare_block(std::string name, std::string description);
  // Rows of a block declared by this or any other module, in the order they are listed, after the
  // rows earlier modules added to that block.
  void add(std::vector<ParameterSpec> rows);
  // The same, placed right after `key`, a row of the same block added by an earlier module: for a key
  // that reads best next to another module's (use_fftw next to the poisson switch), and so that the
  // namelist reference, the start-up summary and the "parameters of &BLOCK" lists keep their order.
  void add_after(std::string_view key, std::vector<ParameterSpec> rows);
  // A cross-parameter check run by ParameterSet::validate() after every key is read, in the order
  // the modules were declared; it throws kosmo::Error naming the file, line, block and key.
  void add_check(ParameterCheck check);
  // A check that the modules chosen make a run at all; these run after every add_check() check, so
  // that a mistake in one key is reported before what it makes impossible.
  void add_run_check(ParameterCheck check);

  // A RAMSES feature kosmo does not implement yet, with its switch when it has one.
  void declare_feature(std::string name, std::string switch_block = "", std::string switch_key = "");
  // A whole RAMSES block kosmo recognises but does not implement yet, serving `feature` (empty:
  // its keys say which feature each serves), and known keys of such blocks or of implemented ones,
  // each with the feature it serves (a misplaced key can then be sent to its RAMSES block).
  void declare_unimplemented_block(std::string name, std::string description, std::string feature);
  void add_unimplemented(const std::string& block, const std::string& feature,
                         std::initializer_list<const char*> names);
  // A key that asks nothing of its feature at `inert` (a switch's off value, a default).
  void add_unimplemented_inert_at(const std::string& block, const std::string& feature, const char* name,
                                  ParameterValue inert);
  // A value RAMSES accepts for an implemented key that serves a feature kosmo does not implement.
  void add_unimplemented_value(const std::string& block, const char* name, ParameterValue value,
                               const std::string& feature);
  // RAMSES keys with no effect on kosmo's results, accepted and listed as ignored at start-up.
  void add_ignored(const std::string& block, const std::string& reason, std::initializer_list<const char*> names);

  // The order blocks are listed in (docs, summary(), to_namelist()); blocks left out follow in the
  // order they were declared.
  void list_blocks_in_order(std::vector<std::string> names);

  // Assembles and checks the table; throws kosmo::Error on the first conflict.
  ParameterSchema build() const;

 private:
  std::string module_;  // owner of what is declared now; empty outside declare_module()
  std::vector<BlockSpec> blocks_;
  std::vector<ParameterSpec> rows_;
  std::vector<ParameterCheck> checks_;
  std::vector<ParameterCheck> run_checks_;
  std::vector<BlockSpec> unimplemented_blocks_;
  std::vector<UnimplementedParameter> unimplemented_;
  std::vector<FeatureSpec> features_;
  std::vector<IgnoredParameter> ignored_;
  std::vector<UnimplementedValue> unimplemented_values_;
  std::vector<std::string> block_order_;
};

}  // namespace kosmo::core
