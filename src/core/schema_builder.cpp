// Assembling the modules' declarations into one checked table per block.
#include "core/schema_builder.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "core/error.hpp"

namespace kosmo::core {
namespace parameter_rows {
namespace {

ParameterSpec make(std::string block, std::string name, ParameterType type, int length, ParameterValue default_value,
                   Range range, std::string description) {
  ParameterSpec spec;
  spec.block = std::move(block);
  spec.name = std::move(name);
  spec.type = type;
  spec.length = length;
  if (length > 0) spec.extents = {length};
  spec.default_value = std::move(default_value);
  spec.lower = range.lower;
  spec.upper = range.upper;
  spec.description = std::move(description);
  return spec;
}

ParameterSpec with_extents(ParameterSpec spec, int extent1, int extent2) {
  spec.extents = {extent1, extent2};
  return spec;
}

}  // namespace

ParameterSpec integer_key(std::string block, std::string name, long long def, Range range, std::string text) {
  return make(std::move(block), std::move(name), ParameterType::Integer, 0, def, range, std::move(text));
}
ParameterSpec integer_array_key(std::string block, std::string name, int length, long long def, Range range,
                                std::string text) {
  return make(std::move(block), std::move(name), ParameterType::Integer, length, def, range, std::move(text));
}
ParameterSpec real_key(std::string block, std::string name, double def, Range range, std::string text) {
  return make(std::move(block), std::move(name), ParameterType::Real, 0, def, range, std::move(text));
}
ParameterSpec real_array_key(std::string block, std::string name, int length, double def, Range range,
                             std::string text) {
  return make(std::move(block), std::move(name), ParameterType::Real, length, def, range, std::move(text));
}
ParameterSpec integer_array2_key(std::string block, std::string name, int extent1, int extent2, long long def,
                                 Range range, std::string text) {
  return with_extents(integer_array_key(std::move(block), std::move(name), extent1 * extent2, def, range,
                                        std::move(text)),
                      extent1, extent2);
}
ParameterSpec real_array2_key(std::string block, std::string name, int extent1, int extent2, double def, Range range,
                              std::string text) {
  return with_extents(
      real_array_key(std::move(block), std::move(name), extent1 * extent2, def, range, std::move(text)), extent1,
      extent2);
}
ParameterSpec string_array2_key(std::string block, std::string name, int extent1, int extent2, std::string def,
                                std::vector<std::string> choices, std::string text) {
  return with_extents(string_array_key(std::move(block), std::move(name), extent1 * extent2, std::move(def),
                                       std::move(choices), std::move(text)),
                      extent1, extent2);
}
ParameterSpec logical_key(std::string block, std::string name, bool def, std::string text) {
  return make(std::move(block), std::move(name), ParameterType::Logical, 0, def, any_value(), std::move(text));
}
ParameterSpec string_key(std::string block, std::string name, std::string def, std::vector<std::string> choices,
                         std::string text) {
  ParameterSpec spec =
      make(std::move(block), std::move(name), ParameterType::String, 0, std::move(def), any_value(), std::move(text));
  spec.choices = std::move(choices);
  return spec;
}
ParameterSpec string_array_key(std::string block, std::string name, int length, std::string def,
                               std::vector<std::string> choices, std::string text) {
  ParameterSpec spec = make(std::move(block), std::move(name), ParameterType::String, length, std::move(def),
                            any_value(), std::move(text));
  spec.choices = std::move(choices);
  return spec;
}

}  // namespace parameter_rows

namespace {

bool is_spelled(const std::string& name, bool upper) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [upper](unsigned char c) {
    return c == '_' || std::isdigit(c) || (upper ? std::isupper(c) : std::islower(c));
  });
}

bool default_matches_type(const ParameterSpec& spec) {
  switch (spec.type) {
    case ParameterType::Integer:
      return std::holds_alternative<long long>(spec.default_value);
    case ParameterType::Real:
      return std::holds_alternative<double>(spec.default_value);
    case ParameterType::Logical:
      return std::holds_alternative<bool>(spec.default_value);
    case ParameterType::String:
      return std::holds_alternative<std::string>(spec.default_value);
  }
  return false;
}

const BlockSpec* find_in(const std::vector<BlockSpec>& blocks, const std::string& name) {
  for (const BlockSpec& block : blocks)
    if (block.name == name) return &block;
  return nullptr;
}

bool find_feature_in(const std::vector<FeatureSpec>& features, const std::string& name) {
  return std::any_of(features.begin(), features.end(), [&](const FeatureSpec& f) { return f.name == name; });
}

// One row on its own: spelling, a default of its type inside its own range, a description.
void check_row(const ParameterSpec& spec) {
  const std::string row = "parameter schema: &" + spec.block + " '" + spec.name + "' (declared by " + spec.module + ")";
  KOSMO_REQUIRE(is_spelled(spec.name, false), row << ": a key is spelled in lower case");
  KOSMO_REQUIRE(spec.length >= 0, row << ": negative array length " << spec.length);
  long long product = spec.extents.empty() ? 0 : 1;
  for (const int extent : spec.extents) {
    KOSMO_REQUIRE(extent > 0, row << ": an extent must be positive, not " << extent);
    product *= extent;
  }
  KOSMO_REQUIRE(product == spec.length, row << ": length " << spec.length << " is not the product of its extents");
  KOSMO_REQUIRE(default_matches_type(spec), row << ": the default is not a " << type_name(spec.type));
  KOSMO_REQUIRE(value_allowed(spec, spec.default_value), row << ": the default " << format_value(spec.default_value)
                                                             << " is outside its own range (" << describe_allowed(spec)
                                                             << ")");
  KOSMO_REQUIRE(!spec.description.empty(), row << ": no description (docs/namelist.md prints one per key)");
}

}  // namespace

void SchemaBuilder::declare_module(std::string module, Declaration declare) {
  KOSMO_REQUIRE(module_.empty(), "parameter schema: module " << module << " declared from within module " << module_);
  KOSMO_REQUIRE(!module.empty(), "parameter schema: a module needs a name");
  module_ = std::move(module);
  try {
    declare(*this);
  } catch (...) {
    module_.clear();
    throw;
  }
  module_.clear();
}

void SchemaBuilder::declare_block(std::string name, std::string description) {
  KOSMO_REQUIRE(!module_.empty(), "parameter schema: &" << name << " declared outside declare_module()");
  KOSMO_REQUIRE(is_spelled(name, true),
                "parameter schema: block &" << name << " (declared by " << module_ << ") is spelled in upper case");
  if (const BlockSpec* other = find_in(blocks_, name))
    KOSMO_FAIL("parameter schema: &" << name << " is declared by both " << other->module << " and " << module_);
  blocks_.push_back({std::move(name), std::move(description), module_, ""});
}

void SchemaBuilder::add(std::vector<ParameterSpec> rows) {
  KOSMO_REQUIRE(!module_.empty(), "parameter schema: rows added outside declare_module()");
  for (ParameterSpec& row : rows) {
    row.module = module_;
    rows_.push_back(std::move(row));
  }
}

void SchemaBuilder::add_after(std::string_view key, std::vector<ParameterSpec> rows) {
  KOSMO_REQUIRE(!module_.empty(), "parameter schema: rows added outside declare_module()");
  if (rows.empty()) return;
  const std::string& block = rows.front().block;
  for (const ParameterSpec& row : rows)
    KOSMO_REQUIRE(row.block == block, "parameter schema: " << module_ << " places &" << row.block << " '" << row.name
                                                           << "' after a key of &" << block);
  const auto anchor = std::find_if(rows_.begin(), rows_.end(),
                                   [&](const ParameterSpec& row) { return row.block == block && row.name == key; });
  KOSMO_REQUIRE(anchor != rows_.end(), "parameter schema: " << module_ << " places '" << rows.front().name
                                                            << "' after &" << block << " '" << key
                                                            << "', which no earlier module declares");
  for (ParameterSpec& row : rows) row.module = module_;
  rows_.insert(anchor + 1, std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
}

void SchemaBuilder::add_check(ParameterCheck check) {
  KOSMO_REQUIRE(!module_.empty(), "parameter schema: a check added outside declare_module()");
  checks_.push_back(check);
}

void SchemaBuilder::add_run_check(ParameterCheck check) {
  KOSMO_REQUIRE(!module_.empty(), "parameter schema: a check added outside declare_module()");
  run_checks_.push_back(check);
}

void SchemaBuilder::declare_feature(std::string name, std::string switch_block, std::string switch_key) {
  KOSMO_REQUIRE(!module_.empty(), "parameter schema: feature '" << name << "' declared outside declare_module()");
  for (const FeatureSpec& feature : features_)
    KOSMO_REQUIRE(feature.name != name, "parameter schema: feature '" << name << "' is declared twice");
  features_.push_back({std::move(name), std::move(switch_block), std::move(switch_key)});
}

void SchemaBuilder::declare_unimplemented_block(std::string name, std::string description, std::string feature) {
  KOSMO_REQUIRE(!module_.empty(), "parameter schema: &" << name << " declared outside declare_module()");
  KOSMO_REQUIRE(!find_in(unimplemented_blocks_, name),
                "parameter schema: unimplemented block &" << name << " is listed twice");
  unimplemented_blocks_.push_back({std::move(name), std::move(description), module_, std::move(feature)});
}

void SchemaBuilder::add_unimplemented(const std::string& block, const std::string& feature,
                                      std::initializer_list<const char*> names) {
  KOSMO_REQUIRE(!module_.empty(), "parameter schema: unimplemented keys added outside declare_module()");
  for (const char* name : names) unimplemented_.push_back({block, name, feature, std::nullopt});
}

void SchemaBuilder::add_unimplemented_inert_at(const std::string& block, const std::string& feature,
                                               const char* name, ParameterValue inert) {
  KOSMO_REQUIRE(!module_.empty(), "parameter schema: unimplemented keys added outside declare_module()");
  unimplemented_.push_back({block, name, feature, std::move(inert)});
}

void SchemaBuilder::add_unimplemented_value(const std::string& block, const char* name, ParameterValue value,
                                            const std::string& feature) {
  KOSMO_REQUIRE(!module_.empty(), "parameter schema: unimplemented values added outside declare_module()");
  unimplemented_values_.push_back({block, name, std::move(value), feature});
}

void SchemaBuilder::add_ignored(const std::string& block, const std::string& reason,
                                std::initializer_list<const char*> names) {
  KOSMO_REQUIRE(!module_.empty(), "parameter schema: ignored keys added outside declare_module()");
  for (const char* name : names) ignored_.push_back({block, name, reason});
}

void SchemaBuilder::list_blocks_in_order(std::vector<std::string> names) { block_order_ = std::move(names); }

ParameterSchema SchemaBuilder::build() const {
  ParameterSchema schema;
  for (const std::string& name : block_order_) {
    const BlockSpec* block = find_in(blocks_, name);
    KOSMO_REQUIRE(block, "parameter schema: the block order lists &" << name << ", which no module declares");
    KOSMO_REQUIRE(!find_in(schema.blocks, name), "parameter schema: the block order lists &" << name << " twice");
    schema.blocks.push_back(*block);
  }
  for (const BlockSpec& block : blocks_)
    if (!find_in(schema.blocks, block.name)) schema.blocks.push_back(block);

  for (const ParameterSpec& row : rows_) {
    KOSMO_REQUIRE(find_in(blocks_, row.block), "parameter schema: " << row.module << " adds '" << row.name << "' to &"
                                                                    << row.block << ", which no module declares");
    check_row(row);
  }
  // One table per block, in block order; within a block the rows keep the order they were added.
  for (const BlockSpec& block : schema.blocks)
    for (const ParameterSpec& row : rows_) {
      if (row.block != block.name) continue;
      for (const ParameterSpec& earlier : schema.parameters)
        if (earlier.block == row.block && earlier.name == row.name)
          KOSMO_FAIL("parameter schema: &" << row.block << " '" << row.name << "' is declared by both "
                                           << earlier.module << " and " << row.module);
      schema.parameters.push_back(row);
    }

  schema.checks = checks_;
  schema.first_run_check = checks_.size();
  schema.checks.insert(schema.checks.end(), run_checks_.begin(), run_checks_.end());

  for (const BlockSpec& block : unimplemented_blocks_)
    if (const BlockSpec* implemented = find_in(blocks_, block.name))
      KOSMO_FAIL("parameter schema: &" << block.name << " is declared by " << implemented->module
                                       << " and listed as not implemented by " << block.module);
  schema.unimplemented_blocks = unimplemented_blocks_;
  for (const UnimplementedParameter& key : unimplemented_) {
    KOSMO_REQUIRE(
        find_in(blocks_, key.block) || find_in(unimplemented_blocks_, key.block),
        "parameter schema: unimplemented key '" << key.name << "' of &" << key.block << ", a block no module declares");
    for (const ParameterSpec& row : rows_)
      KOSMO_REQUIRE(row.block != key.block || row.name != key.name,
                    "parameter schema: &" << key.block << " '" << key.name << "' is declared by " << row.module
                                          << " and listed as not implemented");
    for (const UnimplementedParameter& earlier : schema.unimplemented_parameters)
      KOSMO_REQUIRE(earlier.name != key.name || earlier.block != key.block,
                    "parameter schema: unimplemented key &" << key.block << " '" << key.name << "' is listed twice");
    KOSMO_REQUIRE(find_feature_in(features_, key.feature), "parameter schema: unimplemented key &"
                                                               << key.block << " '" << key.name
                                                               << "' serves feature '" << key.feature
                                                               << "', which is not declared");
    schema.unimplemented_parameters.push_back(key);
  }
  for (const BlockSpec& block : unimplemented_blocks_)
    KOSMO_REQUIRE(block.feature.empty() || find_feature_in(features_, block.feature),
                  "parameter schema: unimplemented block &" << block.name << " serves feature '" << block.feature
                                                            << "', which is not declared");
  for (const FeatureSpec& feature : features_) {
    if (feature.switch_key.empty()) continue;
    const bool known = std::any_of(unimplemented_.begin(), unimplemented_.end(), [&](const UnimplementedParameter& k) {
      return k.block == feature.switch_block && k.name == feature.switch_key && k.inert;
    });
    KOSMO_REQUIRE(known, "parameter schema: the switch &" << feature.switch_block << " '" << feature.switch_key
                                                          << "' of feature '" << feature.name
                                                          << "' is not an unimplemented key with an off value");
  }
  for (const IgnoredParameter& key : ignored_) {
    KOSMO_REQUIRE(find_in(blocks_, key.block) || find_in(unimplemented_blocks_, key.block),
                  "parameter schema: ignored key '" << key.name << "' of &" << key.block
                                                    << ", a block no module declares");
    for (const ParameterSpec& row : rows_)
      KOSMO_REQUIRE(row.block != key.block || row.name != key.name,
                    "parameter schema: &" << key.block << " '" << key.name << "' is declared by " << row.module
                                          << " and listed as ignored");
    for (const UnimplementedParameter& other : unimplemented_)
      KOSMO_REQUIRE(other.block != key.block || other.name != key.name,
                    "parameter schema: &" << key.block << " '" << key.name
                                          << "' is listed both as ignored and as not implemented");
  }
  for (const UnimplementedValue& entry : unimplemented_values_) {
    KOSMO_REQUIRE(find_feature_in(features_, entry.feature), "parameter schema: unimplemented value of &"
                                                                 << entry.block << " '" << entry.name
                                                                 << "' serves feature '" << entry.feature
                                                                 << "', which is not declared");
    const bool declared = std::any_of(rows_.begin(), rows_.end(), [&](const ParameterSpec& row) {
      return row.block == entry.block && row.name == entry.name;
    });
    KOSMO_REQUIRE(declared, "parameter schema: unimplemented value of &" << entry.block << " '" << entry.name
                                                                         << "', a key no module declares");
  }
  schema.unimplemented_values = unimplemented_values_;
  schema.features = features_;
  schema.ignored_parameters = ignored_;
  return schema;
}

}  // namespace kosmo::core
