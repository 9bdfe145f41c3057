// Element and section assignments of array parameters, column-major as Fortran stores them.
#include "core/array_assignment.hpp"

#include "core/error.hpp"

namespace kosmo::core {

std::string element_name(const ParameterSpec& spec, long long element) {
  if (!spec.is_array()) return spec.name;
  std::string out = spec.name + "(";
  for (std::size_t d = 0; d < spec.extents.size(); ++d) {
    if (d) out += ',';
    out += std::to_string(element % spec.extents[d] + 1);
    element /= spec.extents[d];
  }
  return out + ")";
}

namespace {

std::string subscripts_text(const RawAssignment& assignment) {
  std::string out = assignment.key + "(";
  for (std::size_t d = 0; d < assignment.subscripts.size(); ++d) {
    const Subscript& s = assignment.subscripts[d];
    if (d) out += ',';
    if (s.lower) out += std::to_string(*s.lower);
    if (!s.is_section) continue;
    out += ":";
    if (s.upper) out += std::to_string(*s.upper);
    if (s.stride != 1) {
      out += ':';
      out += std::to_string(s.stride);
    }
  }
  return out + ")";
}

}  // namespace

AssignmentTargets assignment_targets(const ParameterSpec& spec, const RawAssignment& assignment,
                                     const std::string& at) {
  AssignmentTargets targets;
  const long long length = spec.is_array() ? spec.length : 1;
  if (assignment.subscripts.empty()) {
    for (long long e = 0; e < length; ++e) targets.elements.push_back(e);
    return targets;
  }
  targets.written = subscripts_text(assignment);
  KOSMO_REQUIRE(spec.is_array(), at << "'" << spec.name << "' is a scalar and cannot be indexed as '"
                                    << targets.written << "'");
  const std::size_t rank = spec.extents.size();
  KOSMO_REQUIRE(assignment.subscripts.size() == rank,
                at << "'" << targets.written << "' has " << assignment.subscripts.size() << " subscript"
                   << (assignment.subscripts.size() == 1 ? "" : "s") << " but '" << spec.name << "' has " << rank
                   << " dimension" << (rank == 1 ? "" : "s"));
  // Per dimension, the 1-based indices named, in order.
  std::vector<std::vector<long long>> indices(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    const Subscript& s = assignment.subscripts[d];
    const long long extent = spec.extents[d];
    targets.section = targets.section || s.is_section;
    const long long lower = s.lower.value_or(1);
    const long long upper = s.is_section ? s.upper.value_or(extent) : lower;
    for (long long i = lower; s.stride > 0 ? i <= upper : i >= upper; i += s.stride) {
      if (i < 1 || i > extent) {
        if (rank == 1)
          KOSMO_FAIL(at << "index " << i << " of '" << targets.written << "' is out of bounds: " << spec.name
                        << " has elements 1.." << extent);
        KOSMO_FAIL(at << "subscript " << i << " of '" << targets.written << "' is out of bounds: " << spec.name
                      << " has 1.." << extent << " in dimension " << d + 1);
      }
      indices[d].push_back(i - 1);
    }
  }
  long long first = 0;
  for (std::size_t d = rank; d-- > 0;) first = first * spec.extents[d] + (indices[d].empty() ? 0 : indices[d][0]);
  if (!targets.section) {
    for (long long e = first; e < length; ++e) targets.elements.push_back(e);
    return targets;
  }
  // Array element order: the first subscript varies fastest.
  std::vector<std::size_t> position(rank, 0);
  for (const auto& list : indices)
    if (list.empty()) return targets;
  while (true) {
    long long element = 0;
    for (std::size_t d = rank; d-- > 0;) element = element * spec.extents[d] + indices[d][position[d]];
    targets.elements.push_back(element);
    std::size_t d = 0;
    while (d < rank && ++position[d] == indices[d].size()) position[d++] = 0;
    if (d == rank) return targets;
  }
}

}  // namespace kosmo::core
