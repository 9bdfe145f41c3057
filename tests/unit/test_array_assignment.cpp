// Which elements an element or section assignment of a 1-D or 2-D array parameter sets: the
// column-major layout every module reads back with get_real_array (ParameterSpec::extents).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/array_assignment.hpp"
#include "core/error.hpp"
#include "core/schema_builder.hpp"

namespace kosmo::core {
namespace {

using namespace parameter_rows;

// `text` is one assignment of a block, e.g. "group_csn(2,1)=1,2".
RawAssignment assignment(const std::string& text) {
  return parse_namelist("&TEST_PARAMS " + text + " /", "test.nml").blocks.at(0).assignments.at(0);
}

std::vector<long long> targets(const ParameterSpec& spec, const std::string& text) {
  return assignment_targets(spec, assignment(text), "test.nml:1: &TEST_PARAMS: ").elements;
}

std::string error_of(const ParameterSpec& spec, const std::string& text) {
  try {
    targets(spec, text);
  } catch (const kosmo::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no kosmo::Error for " << text;
  return "";
}

// A 4 x 3 array: element (i, j) is stored at (i-1) + 4*(j-1).
const ParameterSpec kMatrix = real_array2_key("TEST_PARAMS", "m", 4, 3, 0.0, any_value(), "a 4 x 3 array");
const ParameterSpec kList = real_array_key("TEST_PARAMS", "v", 6, 0.0, any_value(), "a list of 6");

TEST(ArrayAssignment, TwoDimensionalSpecHasExtentsAndTheirProduct) {
  EXPECT_EQ(kMatrix.extents, (std::vector<int>{4, 3}));
  EXPECT_EQ(kMatrix.length, 12);
  EXPECT_EQ(kList.extents, (std::vector<int>{6}));
}

TEST(ArrayAssignment, WholeArrayFillsInStorageOrder) {
  EXPECT_EQ(targets(kMatrix, "m=1").size(), 12u);
  EXPECT_EQ(targets(kMatrix, "m=1")[5], 5);
}

TEST(ArrayAssignment, ElementIsColumnMajorAndContinuesInStorageOrder) {
  EXPECT_EQ(targets(kMatrix, "m(2,1)=7").front(), 1);
  EXPECT_EQ(targets(kMatrix, "m(1,2)=7").front(), 4);
  EXPECT_EQ(targets(kMatrix, "m(4,3)=7"), (std::vector<long long>{11}));
  EXPECT_EQ(targets(kMatrix, "m(3,2)=1,2").size(), 6u);  // (3,2) .. (4,3)
  EXPECT_EQ(element_name(kMatrix, 6), "m(3,2)");
  EXPECT_EQ(element_name(kList, 4), "v(5)");
}

TEST(ArrayAssignment, SectionsTakeOnlyTheirElementsFirstSubscriptFastest) {
  EXPECT_EQ(targets(kList, "v(2:4)=1"), (std::vector<long long>{1, 2, 3}));
  EXPECT_EQ(targets(kList, "v(:3)=1"), (std::vector<long long>{0, 1, 2}));
  EXPECT_EQ(targets(kList, "v(5:)=1"), (std::vector<long long>{4, 5}));
  EXPECT_EQ(targets(kList, "v(1:6:2)=1"), (std::vector<long long>{0, 2, 4}));
  EXPECT_EQ(targets(kList, "v(6:1:-3)=1"), (std::vector<long long>{5, 2}));
  EXPECT_EQ(targets(kMatrix, "m(2,:)=1"), (std::vector<long long>{1, 5, 9}));
  EXPECT_EQ(targets(kMatrix, "m(1:2,2:3)=1"), (std::vector<long long>{4, 5, 8, 9}));
}

TEST(ArrayAssignment, BoundsAndRankAreChecked) {
  const std::string outside = error_of(kMatrix, "m(5,1)=1");
  EXPECT_NE(outside.find("test.nml:1: &TEST_PARAMS: subscript 5 of 'm(5,1)' is out of bounds"), std::string::npos)
      << outside;
  EXPECT_NE(outside.find("dimension 1"), std::string::npos) << outside;
  EXPECT_NE(error_of(kMatrix, "m(1,2:4)=1").find("subscript 4 of 'm(1,2:4)'"), std::string::npos);
  EXPECT_NE(error_of(kMatrix, "m(3)=1").find("'m(3)' has 1 subscript but 'm' has 2 dimensions"), std::string::npos);
  EXPECT_NE(error_of(kList, "v(0)=1").find("index 0 of 'v(0)' is out of bounds: v has elements 1..6"),
            std::string::npos);
}

}  // namespace
}  // namespace kosmo::core
