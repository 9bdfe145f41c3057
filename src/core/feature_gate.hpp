#pragma once
// Whether the RAMSES keys of features kosmo does not implement, and the keys it ignores, stop a
// run: a feature switched off (`sink=.false.`, or not set) and its block ask nothing of kosmo, a
// key at its inert value neither; anything else is one "not implemented yet: FEATURE" line.
#include <string>
#include <vector>

#include "core/namelist_parser.hpp"
#include "core/parameter_schema.hpp"

namespace kosmo::core {

// One problem of a namelist: its line (for ordering) and the whole one-line message.
struct NamelistProblem {
  int line = 0;
  std::string message;  // "file:line: &BLOCK: ..."
};

class FeatureGate {
 public:
  explicit FeatureGate(const ParsedNamelist& parsed);

  // A key of an implemented block that the schema lists as not implemented or ignored; false when
  // it is neither (then it is unknown, the caller's business).
  bool take_key(const RawBlock& block, const RawAssignment& assignment);
  // A block the schema lists as not implemented; its unknown keys are returned for the caller to
  // report (only for blocks whose keys are judged one by one, see docs/namelist.md).
  std::vector<const RawAssignment*> take_unimplemented_block(const RawBlock& block, const BlockSpec& spec);

  const std::vector<NamelistProblem>& obstacles() const { return obstacles_; }
  // "&RUN_PARAMS ncontrol", "&SINK_PARAMS (sink off)", ... in file order.
  const std::vector<std::string>& ignored() const { return ignored_; }

 private:
  bool feature_on(const FeatureSpec& feature) const;
  bool is_inert(const UnimplementedParameter& key, const RawAssignment& assignment) const;
  void judge(const RawBlock& block, const RawAssignment& assignment, const UnimplementedParameter& key);
  void obstacle(int line, const std::string& block, const std::string& what, const std::string& feature);

  const ParsedNamelist& parsed_;
  std::vector<NamelistProblem> obstacles_;
  std::vector<std::string> ignored_;
};

}  // namespace kosmo::core
