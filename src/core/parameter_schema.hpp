#pragma once
// The table of every namelist block and key kosmo accepts (RAMSES names and defaults), and the
// RAMSES / cuRAMSES keys it recognises but does not implement yet. The rows are declared by the
// modules that use them (core/schema_builder.hpp; the mesh's own keys in core/mesh_parameters.cpp,
// hydro's in hydro/hydro_parameters.cpp, ...) and assembled once, checked, by the program's
// catalogue (driver/parameter_catalogue.cpp). Adding a parameter means adding one row to its
// module's table; ParameterSet, the error messages and docs/namelist.md (checked by a unit test)
// follow from it.
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kosmo::core {

// RAMSES' array lengths (amr/amr_parameters.f90), shared by the modules that declare array keys.
inline constexpr int kMaxLevel = 100;  // RAMSES MAXLEVEL: length of per-level arrays
inline constexpr int kMaxOut = 1000;   // RAMSES MAXOUT: length of output lists
inline constexpr int kMaxRegion = 100; // RAMSES MAXREGION: length of the &INIT_PARAMS region arrays
inline constexpr int kMaxBound = 100;  // RAMSES MAXBOUND: length of the &BOUNDARY_PARAMS arrays

enum class ParameterType { Integer, Real, Logical, String };

// One value of a parameter, or one element of an array parameter.
using ParameterValue = std::variant<long long, double, bool, std::string>;

struct Bound {
  double value = 0.0;
  bool inclusive = true;
};

struct ParameterSpec {
  std::string block;  // upper case, without '&': "AMR_PARAMS"
  std::string name;   // lower case: "levelmax"
  ParameterType type = ParameterType::Integer;
  int length = 0;                     // 0 for a scalar, else the fixed array length (product of extents)
  // Fortran extents, first subscript first: empty for a scalar, {n} for a 1-D array, {n1, n2} for
  // `key(1:n1, 1:n2)`. Values are stored flattened column-major: element (i, j), 1-based, at
  // (i-1) + (j-1)*n1, the order Fortran fills an array from a list of values.
  std::vector<int> extents;
  ParameterValue default_value;       // of every element, for arrays
  std::optional<Bound> lower, upper;  // numeric range; applies to every element
  std::vector<std::string> choices;   // allowed values of a string parameter; empty = any
  std::string description;            // one line, for docs/namelist.md
  std::string module;                 // the module that declares it: "hydro" (set by SchemaBuilder)

  bool is_array() const { return length > 0; }
};

struct BlockSpec {
  std::string name;  // "AMR_PARAMS"
  std::string description;
  std::string module;  // the module that declares the block; others may add rows to it
  // Unimplemented blocks only: the RAMSES feature the whole block serves ("sink particles"), or
  // empty when its keys belong to several (&COOLING_PARAMS: cooling, metals, equations of state).
  std::string feature;
};

// A RAMSES feature kosmo does not implement yet, named in the "not implemented yet" lines. When
// it has a switch (RAMSES `sink` in &RUN_PARAMS), its other keys and blocks do nothing while the
// switch is off, as in RAMSES, and are then accepted and ignored.
struct FeatureSpec {
  std::string name;          // "sink particles"
  std::string switch_block;  // "RUN_PARAMS"; empty when the feature has no switch
  std::string switch_key;    // "sink"
};

// A RAMSES key kosmo knows by name but does not implement yet.
struct UnimplementedParameter {
  std::string block;
  std::string name;
  std::string feature;  // a FeatureSpec name
  // The value that asks nothing of the feature: a switch's off value (`sink=.false.`), or RAMSES'
  // default of a setting that only matters when changed (`static_gas=.false.`). Setting the key
  // to it is never an obstacle. Without one, setting the key stops the run, unless it is a key of
  // a feature whose switch is off.
  std::optional<ParameterValue> inert;
};

// A value of an implemented key that RAMSES accepts for a feature kosmo does not implement yet
// (`scheme='plmde'`, `riemann='hlld'`): consulted only when the key's range or choices refuse the
// value, so that a module widening them takes the value over without touching this list.
struct UnimplementedValue {
  std::string block;
  std::string name;
  ParameterValue value;
  std::string feature;
};

// A RAMSES key that has no effect on kosmo's results (log frequency, load-balancing weights...):
// read, listed at start-up as ignored, never an obstacle.
struct IgnoredParameter {
  std::string block;
  std::string name;
  std::string reason;  // "log frequency", for docs/namelist.md
};

class ParameterSet;
class SchemaBuilder;
// A cross-parameter check declared by a module; throws kosmo::Error naming file, line, block and key.
using ParameterCheck = void (*)(const ParameterSet&);

// The assembled table (SchemaBuilder::build).
struct ParameterSchema {
  std::vector<BlockSpec> blocks;
  std::vector<ParameterSpec> parameters;  // grouped by block, in `blocks` order
  std::vector<ParameterCheck> checks;     // in the order ParameterSet::validate() runs them
  std::size_t first_run_check = 0;        // checks[first_run_check..] say whether the modules chosen make a run
  std::vector<BlockSpec> unimplemented_blocks;
  std::vector<UnimplementedParameter> unimplemented_parameters;
  std::vector<FeatureSpec> features;
  std::vector<IgnoredParameter> ignored_parameters;
  std::vector<UnimplementedValue> unimplemented_values;
};

// Declares every module's parameters. Not defined in core, which knows no physics module: the
// program's catalogue (driver/parameter_catalogue.cpp, linked whole into every program that links
// kosmo_driver) defines it. The reference is weak because the linker may pull this file out of
// libkosmo_core.a for an unrelated template instance (a test of kosmo_parallel alone, with no
// parameters, still links); a program that uses parameters without the catalogue stops at the
// first use with an error saying so, never with an empty or partial table.
[[gnu::weak]] void declare_parameter_catalogue(SchemaBuilder& schema);
// The schema of declare_parameter_catalogue(), built and checked on first use.
const ParameterSchema& parameter_catalogue();

// Implemented blocks, in the order the schema, resolved() and summary() list them.
const std::vector<BlockSpec>& schema_blocks();
// Every implemented key, grouped by block in schema_blocks() order.
const std::vector<ParameterSpec>& parameter_schema();
// Whole RAMSES blocks that kosmo recognises but does not implement yet.
const std::vector<BlockSpec>& unimplemented_blocks();
// Keys of implemented blocks that kosmo does not implement yet, plus well-known keys of the
// unimplemented blocks (so that a key put in the wrong block can be pointed to its RAMSES home).
const std::vector<UnimplementedParameter>& unimplemented_parameters();
// Features not implemented yet, and keys accepted and ignored.
const std::vector<FeatureSpec>& unimplemented_features();
const std::vector<IgnoredParameter>& ignored_parameters();

// Lookups; names are case-insensitive and a leading '&' on the block is ignored.
const BlockSpec* find_block(std::string_view block);
const BlockSpec* find_unimplemented_block(std::string_view block);
const ParameterSpec* find_parameter(std::string_view block, std::string_view name);
const UnimplementedParameter* find_unimplemented_parameter(std::string_view block, std::string_view name);
const FeatureSpec* find_feature(std::string_view name);
const IgnoredParameter* find_ignored_parameter(std::string_view block, std::string_view name);
// The feature of an unimplemented value of an implemented key, or nullptr.
const UnimplementedValue* find_unimplemented_value(std::string_view block, std::string_view name,
                                                   const ParameterValue& value);

// "integer", "real", "logical", "string"
std::string_view type_name(ParameterType type);
// "1 <= levelmax <= 100", "boxlen > 0", "one of 'regions', 'refined_sphere'"; empty when unconstrained.
std::string describe_allowed(const ParameterSpec& spec);
// True when the value lies in the spec's range / choices.
bool value_allowed(const ParameterSpec& spec, const ParameterValue& value);

// Namelist spelling that parses back to the same value: 7, 0.1, 1e-05, .true., 'it''s'.
// Reals use the shortest representation that round-trips bit-exactly.
std::string format_value(const ParameterValue& value);
// Comma-separated list with runs compressed by repeat counts: "0.5, 1, 998*0".
std::string format_values(const std::vector<ParameterValue>& values);

// Levenshtein distance, for "did you mean" suggestions.
int edit_distance(std::string_view a, std::string_view b);

// The per-block reference tables of docs/namelist.md, generated from the schema.
std::string schema_reference_markdown();

}  // namespace kosmo::core
