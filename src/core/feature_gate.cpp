// Feature switches and inert values of the RAMSES keys kosmo does not implement (feature_gate.hpp).
#include "core/feature_gate.hpp"

#include <algorithm>
#include <charconv>

namespace kosmo::core {
namespace {

// The numeric value of an Integer or Real token (Fortran d/q exponents read as e).
bool token_number(const ValueToken& token, double& value) {
  if (token.kind != TokenKind::Integer && token.kind != TokenKind::Real) return false;
  std::string text = token.text;
  if (!text.empty() && text[0] == '+') text.erase(0, 1);
  for (char& c : text)
    if (c == 'd' || c == 'D' || c == 'q' || c == 'Q') c = 'e';
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

bool token_equals(const ValueToken& token, const ParameterValue& inert) {
  if (const auto* b = std::get_if<bool>(&inert)) return token.kind == TokenKind::Logical && logical_token_value(token) == *b;
  if (const auto* s = std::get_if<std::string>(&inert)) return token.kind == TokenKind::String && token.string_value == *s;
  double value = 0.0;
  if (!token_number(token, value)) return false;
  if (const auto* i = std::get_if<long long>(&inert)) return value == static_cast<double>(*i);
  return value == std::get<double>(inert);
}

// The last assignment of `key` in `block` of the file, or nullptr.
const RawAssignment* find_assignment(const ParsedNamelist& parsed, const std::string& block, const std::string& key) {
  const RawAssignment* found = nullptr;
  for (const RawBlock& b : parsed.blocks)
    if (b.name == block)
      for (const RawAssignment& a : b.assignments)
        if (a.key == key) found = &a;
  return found;
}

std::string switch_off_text(const FeatureSpec& feature) { return feature.switch_key + " off"; }

}  // namespace

FeatureGate::FeatureGate(const ParsedNamelist& parsed) : parsed_(parsed) {}

bool FeatureGate::is_inert(const UnimplementedParameter& key, const RawAssignment& assignment) const {
  if (!key.inert) return false;
  return std::all_of(assignment.values.begin(), assignment.values.end(), [&](const ValueToken& token) {
    return token.kind == TokenKind::Null || token_equals(token, *key.inert);
  });
}

bool FeatureGate::feature_on(const FeatureSpec& feature) const {
  if (feature.switch_key.empty()) return true;
  const RawAssignment* assignment = find_assignment(parsed_, feature.switch_block, feature.switch_key);
  if (!assignment) return false;  // RAMSES' default of every switch is off
  const UnimplementedParameter* key = find_unimplemented_parameter(feature.switch_block, feature.switch_key);
  return key && !is_inert(*key, *assignment);
}

void FeatureGate::obstacle(int line, const std::string& block, const std::string& what, const std::string& feature) {
  obstacles_.push_back({line, parsed_.source + ":" + std::to_string(line) + ": &" + block + ": " + what +
                                  (what.empty() ? "" : ": ") + "not implemented yet: " + feature});
}

// A key of a feature: the switch itself stops the run when on; another key of a switched feature
// rides on its switch (reported there once when on, ignored when off); a key of a feature without
// a switch stops the run unless set to its inert value.
void FeatureGate::judge(const RawBlock& block, const RawAssignment& assignment, const UnimplementedParameter& key) {
  const FeatureSpec* feature = find_feature(key.feature);
  const bool is_switch =
      feature && feature->switch_block == block.name && feature->switch_key == assignment.key;
  if (feature && !feature->switch_key.empty() && !is_switch) {
    if (!feature_on(*feature)) ignored_.push_back("&" + block.name + " " + assignment.key + " (" + switch_off_text(*feature) + ")");
    return;
  }
  if (is_inert(key, assignment)) {
    ignored_.push_back("&" + block.name + " " + assignment.key + " (off)");
    return;
  }
  obstacle(assignment.line, block.name, assignment.key, key.feature);
}

bool FeatureGate::take_key(const RawBlock& block, const RawAssignment& assignment) {
  if (find_ignored_parameter(block.name, assignment.key)) {
    ignored_.push_back("&" + block.name + " " + assignment.key);
    return true;
  }
  const UnimplementedParameter* key = find_unimplemented_parameter(block.name, assignment.key);
  if (!key) return false;
  judge(block, assignment, *key);
  return true;
}

std::vector<const RawAssignment*> FeatureGate::take_unimplemented_block(const RawBlock& block, const BlockSpec& spec) {
  std::vector<const RawAssignment*> unknown;
  const FeatureSpec* feature = spec.feature.empty() ? nullptr : find_feature(spec.feature);
  if (feature && !feature->switch_key.empty()) {
    // RAMSES reads the block only when the feature is on: off, nothing in it matters; on, the
    // switch's own line says so once.
    if (!feature_on(*feature)) {
      ignored_.push_back("&" + block.name + " (" + switch_off_text(*feature) + ")");
      return unknown;
    }
    for (const RawAssignment& assignment : block.assignments)
      if (feature->switch_block == block.name && assignment.key == feature->switch_key)
        obstacle(assignment.line, block.name, assignment.key, feature->name);
    return unknown;
  }
  if (block.assignments.empty() && feature) obstacle(block.line, block.name, "", feature->name);
  for (const RawAssignment& assignment : block.assignments)
    if (!take_key(block, assignment)) unknown.push_back(&assignment);
  return unknown;
}

}  // namespace kosmo::core
