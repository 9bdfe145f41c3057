// Lookups in the assembled parameter table, value formatting and the generated reference of
// docs/namelist.md. The rows themselves are declared by the modules (core/schema_builder.hpp).
#include "core/parameter_schema.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <numeric>
#include <sstream>

#include "core/error.hpp"
#include "core/schema_builder.hpp"

namespace kosmo::core {
namespace {

std::string canonical(std::string_view s, bool to_upper) {
  if (!s.empty() && s[0] == '&') s.remove_prefix(1);
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [to_upper](unsigned char c) {
    return static_cast<char>(to_upper ? std::toupper(c) : std::tolower(c));
  });
  return out;
}

std::string format_bound(const ParameterSpec& spec, double v) {
  if (spec.type == ParameterType::Integer) return format_value(static_cast<long long>(v));
  return format_value(v);
}

std::string markdown_default(const ParameterSpec& spec) {
  std::string value = format_value(spec.default_value);
  // Readers expect a real to look like one; "1.0" also parses back to the same value.
  if (spec.type == ParameterType::Real && value.find_first_of(".en") == std::string::npos) value += ".0";
  return "`" + value + "`" + (spec.is_array() ? " (each)" : "");
}

}  // namespace

const ParameterSchema& parameter_catalogue() {
  static const ParameterSchema schema = [] {
    KOSMO_REQUIRE(declare_parameter_catalogue != nullptr,
                  "no parameter catalogue in this program: link kosmo_driver, whose object "
                  "driver/parameter_catalogue.cpp declares every module's namelist keys");
    SchemaBuilder builder;
    declare_parameter_catalogue(builder);
    return builder.build();
  }();
  return schema;
}

const std::vector<BlockSpec>& schema_blocks() { return parameter_catalogue().blocks; }
const std::vector<ParameterSpec>& parameter_schema() { return parameter_catalogue().parameters; }
const std::vector<BlockSpec>& unimplemented_blocks() { return parameter_catalogue().unimplemented_blocks; }
const std::vector<UnimplementedParameter>& unimplemented_parameters() {
  return parameter_catalogue().unimplemented_parameters;
}

const std::vector<FeatureSpec>& unimplemented_features() { return parameter_catalogue().features; }
const std::vector<IgnoredParameter>& ignored_parameters() { return parameter_catalogue().ignored_parameters; }

const FeatureSpec* find_feature(std::string_view name) {
  for (const FeatureSpec& feature : unimplemented_features())
    if (feature.name == name) return &feature;
  return nullptr;
}

const IgnoredParameter* find_ignored_parameter(std::string_view block, std::string_view name) {
  const std::string b = canonical(block, true);
  const std::string n = canonical(name, false);
  for (const IgnoredParameter& key : ignored_parameters())
    if (key.block == b && key.name == n) return &key;
  return nullptr;
}

const UnimplementedValue* find_unimplemented_value(std::string_view block, std::string_view name,
                                                   const ParameterValue& value) {
  const std::string b = canonical(block, true);
  const std::string n = canonical(name, false);
  for (const UnimplementedValue& entry : parameter_catalogue().unimplemented_values) {
    if (entry.block != b || entry.name != n) continue;
    const double* real = std::get_if<double>(&value);
    const long long* integer = std::get_if<long long>(&entry.value);
    if (entry.value == value || (real && integer && *real == static_cast<double>(*integer))) return &entry;
  }
  return nullptr;
}

const BlockSpec* find_block(std::string_view block) {
  const std::string b = canonical(block, true);
  for (const BlockSpec& spec : schema_blocks())
    if (spec.name == b) return &spec;
  return nullptr;
}

const BlockSpec* find_unimplemented_block(std::string_view block) {
  const std::string b = canonical(block, true);
  for (const BlockSpec& spec : unimplemented_blocks())
    if (spec.name == b) return &spec;
  return nullptr;
}

const ParameterSpec* find_parameter(std::string_view block, std::string_view name) {
  const std::string b = canonical(block, true);
  const std::string n = canonical(name, false);
  for (const ParameterSpec& spec : parameter_schema())
    if (spec.block == b && spec.name == n) return &spec;
  return nullptr;
}

const UnimplementedParameter* find_unimplemented_parameter(std::string_view block, std::string_view name) {
  const std::string b = canonical(block, true);
  const std::string n = canonical(name, false);
  for (const UnimplementedParameter& key : unimplemented_parameters())
    if (key.block == b && key.name == n) return &key;
  return nullptr;
}

std::string_view type_name(ParameterType type) {
  switch (type) {
    case ParameterType::Integer: return "integer";
    case ParameterType::Real: return "real";
    case ParameterType::Logical: return "logical";
    case ParameterType::String: return "string";
  }
  return "?";
}

std::string describe_allowed(const ParameterSpec& spec) {
  if (!spec.choices.empty()) {
    std::string out = "one of ";
    for (std::size_t i = 0; i < spec.choices.size(); ++i) out += (i ? ", " : "") + format_value(spec.choices[i]);
    return out;
  }
  const std::string& n = spec.name;
  if (spec.lower && spec.upper)
    return format_bound(spec, spec.lower->value) + (spec.lower->inclusive ? " <= " : " < ") + n +
           (spec.upper->inclusive ? " <= " : " < ") + format_bound(spec, spec.upper->value);
  if (spec.lower) return n + (spec.lower->inclusive ? " >= " : " > ") + format_bound(spec, spec.lower->value);
  if (spec.upper) return n + (spec.upper->inclusive ? " <= " : " < ") + format_bound(spec, spec.upper->value);
  return "";
}

bool value_allowed(const ParameterSpec& spec, const ParameterValue& value) {
  if (const auto* s = std::get_if<std::string>(&value))
    return spec.choices.empty() || std::find(spec.choices.begin(), spec.choices.end(), *s) != spec.choices.end();
  double v = 0.0;
  if (const auto* i = std::get_if<long long>(&value))
    v = static_cast<double>(*i);
  else if (const auto* d = std::get_if<double>(&value))
    v = *d;
  else
    return true;  // logicals have no range
  if (std::isnan(v)) return false;
  if (spec.lower && (spec.lower->inclusive ? v < spec.lower->value : v <= spec.lower->value)) return false;
  if (spec.upper && (spec.upper->inclusive ? v > spec.upper->value : v >= spec.upper->value)) return false;
  return true;
}

std::string format_value(const ParameterValue& value) {
  if (const auto* i = std::get_if<long long>(&value)) return std::to_string(*i);
  if (const auto* b = std::get_if<bool>(&value)) return *b ? ".true." : ".false.";
  if (const auto* s = std::get_if<std::string>(&value)) {
    std::string out = "'";
    for (char c : *s) out += (c == '\'') ? std::string("''") : std::string(1, c);
    return out + "'";
  }
  // Shortest decimal form that reads back to the same double (std::to_chars guarantees it).
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, std::get<double>(value));
  return std::string(buffer, result.ptr);
}

std::string format_values(const std::vector<ParameterValue>& values) {
  std::string out;
  std::size_t i = 0;
  while (i < values.size()) {
    const std::string text = format_value(values[i]);
    std::size_t run = 1;
    while (i + run < values.size() && format_value(values[i + run]) == text) ++run;
    if (!out.empty()) out += ", ";
    out += run > 1 ? std::to_string(run) + "*" + text : text;
    i += run;
  }
  return out;
}

int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const int substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
    }
  }
  return row[b.size()];
}

namespace {

// "`sink` (sink particles; no obstacle at .false.)" for the per-block list.
std::string pending_key_markdown(const UnimplementedParameter& key) {
  std::string out = "`" + key.name + "` (" + key.feature;
  if (key.inert) out += "; no obstacle at `" + format_value(*key.inert) + "`";
  return out + ")";
}

// What switches a feature on, for the table of unimplemented blocks.
std::string switch_markdown(const std::string& feature_name) {
  const FeatureSpec* feature = find_feature(feature_name);
  if (!feature || feature->switch_key.empty()) return "always";
  return "`" + feature->switch_key + "` of `&" + feature->switch_block + "` on";
}

void block_lists_markdown(std::ostringstream& md, const std::string& block) {
  std::string ignored;
  for (const IgnoredParameter& key : ignored_parameters())
    if (key.block == block) ignored += (ignored.empty() ? "" : "; ") + ("`" + key.name + "` (" + key.reason + ")");
  if (!ignored.empty()) md << "Accepted and ignored, no effect on kosmo's results: " << ignored << ".\n\n";
  std::string pending;
  for (const UnimplementedParameter& key : unimplemented_parameters())
    if (key.block == block) pending += (pending.empty() ? "" : ", ") + pending_key_markdown(key);
  if (!pending.empty()) md << "Recognised, not yet implemented: " << pending << ".\n\n";
  std::string values;
  for (const UnimplementedValue& value : parameter_catalogue().unimplemented_values)
    if (value.block == block)
      values += (values.empty() ? "" : ", ") + ("`" + value.name + "=" + format_value(value.value) + "` (" +
                                                value.feature + ")");
  if (!values.empty()) md << "RAMSES values not implemented yet: " << values << ".\n\n";
}

}  // namespace

std::string schema_reference_markdown() {
  std::ostringstream md;
  for (const BlockSpec& block : schema_blocks()) {
    md << "### &" << block.name << "\n\n" << block.description << "\n\n";
    md << "| parameter | type | default | allowed | meaning | module |\n|---|---|---|---|---|---|\n";
    for (const ParameterSpec& spec : parameter_schema()) {
      if (spec.block != block.name) continue;
      md << "| `" << spec.name << "` | " << type_name(spec.type);
      if (spec.is_array()) {
        md << " array(";
        for (std::size_t d = 0; d < spec.extents.size(); ++d) md << (d ? "," : "") << spec.extents[d];
        md << ")";
      }
      const std::string allowed = describe_allowed(spec);
      md << " | " << markdown_default(spec) << " | " << (allowed.empty() ? "any" : allowed) << " | " << spec.description
         << " | " << spec.module << " |\n";
    }
    md << "\n";
    block_lists_markdown(md, block.name);
  }
  md << "### Blocks recognised, not yet implemented\n\n";
  md << "A block whose feature has a switch is read only while the switch is on, as in RAMSES: with the "
        "switch off (its default) the block is accepted and ignored, with it on the switch's line says "
        "\"not implemented yet\". The keys of a block without a switch are judged one by one.\n\n";
  md << "| block | purpose | feature | stops the run when | known RAMSES keys |\n|---|---|---|---|---|\n";
  for (const BlockSpec& block : unimplemented_blocks()) {
    std::string keys;
    for (const UnimplementedParameter& key : unimplemented_parameters())
      if (key.block == block.name)
        keys += (keys.empty() ? "" : ", ") +
                (block.feature.empty() ? pending_key_markdown(key) : "`" + key.name + "`");
    md << "| `&" << block.name << "` | " << block.description << " | "
       << (block.feature.empty() ? "per key" : block.feature) << " | "
       << (block.feature.empty() ? "per key" : switch_markdown(block.feature)) << " | " << (keys.empty() ? "-" : keys)
       << " |\n";
  }
  return md.str();
}

}  // namespace kosmo::core
