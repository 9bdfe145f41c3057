#pragma once
// Which elements of an array parameter a namelist assignment sets (Fortran 2008 §9.5.3, §10.11.3
// as gfortran applies them): the whole array, an element `key(i,j)` and what follows it in
// storage order, or a section `key(2:4)`, `key(1:9:2, :)`, all column-major over the extents.
#include <string>
#include <vector>

#include "core/namelist_parser.hpp"
#include "core/parameter_schema.hpp"

namespace kosmo::core {

// The elements (flattened column-major, 0-based) an assignment's values go to, in the order they
// take them.
struct AssignmentTargets {
  std::vector<long long> elements;
  bool section = false;  // a section (`tout(2:4)`): its elements only; else from a start to the end
  std::string written;   // `tout(2:4)`, as the user wrote it; empty without subscripts
};

// Throws kosmo::Error starting with `at` for a subscript out of bounds, the wrong number of
// subscripts or a subscripted scalar.
AssignmentTargets assignment_targets(const ParameterSpec& spec, const RawAssignment& assignment,
                                     const std::string& at);

// `name(i)` / `name(i,j)` of a flattened (column-major, 0-based) element; `name` for a scalar.
std::string element_name(const ParameterSpec& spec, long long element);

}  // namespace kosmo::core
