// &BOUNDARY_PARAMS boxes of coarse cells (RAMSES hydro/read_hydro_params.f90) translated into faces
// of the box, the errors for what kosmo does not support, and the ghost-cell states of
// RAMSES make_boundary_hydro (hydro/hydro_boundary.f90).
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/parameters.hpp"
#include "hydro/boundary_conditions.hpp"

namespace kosmo::hydro {
namespace {

core::ParameterSet load(const std::string& boundary_block) {
  return core::ParameterSet::from_text("&RUN_PARAMS hydro=.true. /\n&HYDRO_PARAMS smallr=1d-8 /\n" + boundary_block,
                                       "params.nml");
}

template <int D>
std::string boundary_error(const std::string& boundary_block) {
  try {
    box_boundaries<D>(load(boundary_block));
  } catch (const kosmo::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no kosmo::Error for:\n" << boundary_block;
  return "";
}

void expect_contains(const std::string& message, const std::vector<std::string>& fragments) {
  for (const std::string& fragment : fragments)
    EXPECT_NE(message.find(fragment), std::string::npos) << "'" << fragment << "' missing from: " << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << "message must be one line: " << message;
}

// RAMSES namelist/tube1d.nml.
const char* const kTube = R"(
&BOUNDARY_PARAMS
nboundary=2
ibound_min=-1,+1
ibound_max=-1,+1
bound_type= 1, 1
/
)";

TEST(BoxBoundaries, NoBoundariesIsPeriodic) {
  const BoxBoundaries<3> box = box_boundaries<3>(load(""));
  for (int d = 0; d < 3; ++d) EXPECT_TRUE(box.periodic(d));
  for (const BoundaryFace& face : box.faces) EXPECT_EQ(face.type, BoundaryType::periodic);
}

TEST(BoxBoundaries, RamsesTubeIsReflectingAlongX) {
  const BoxBoundaries<1> box = box_boundaries<1>(load(kTube));
  EXPECT_FALSE(box.periodic(0));
  EXPECT_EQ(box.face(0, 0).type, BoundaryType::reflecting);
  EXPECT_EQ(box.face(0, 1).type, BoundaryType::reflecting);
  EXPECT_EQ(box.face(0, 0).source, 1);
  EXPECT_EQ(box.face(0, 1).source, 2);
  // The same namelist in 3-D: the tube's walls along x, y and z periodic.
  const BoxBoundaries<3> box3 = box_boundaries<3>(load(kTube));
  EXPECT_EQ(box3.face(0, 1).type, BoundaryType::reflecting);
  EXPECT_TRUE(box3.periodic(1));
  EXPECT_TRUE(box3.periodic(2));
}

TEST(BoxBoundaries, OrderOfTheEntriesDoesNotMatterAndStatesAreKept) {
  const BoxBoundaries<1> box = box_boundaries<1>(load(R"(&BOUNDARY_PARAMS
nboundary=2
ibound_min=+1,-1
ibound_max=+1,-1
bound_type=2,3
d_bound=0.5,2.0
u_bound=0.0,1.5
p_bound=0.1,3.0
/)"));
  EXPECT_EQ(box.face(0, 1).type, BoundaryType::outflow);
  EXPECT_EQ(box.face(0, 1).source, 1);
  EXPECT_EQ(box.face(0, 0).type, BoundaryType::inflow);
  EXPECT_EQ(box.face(0, 0).source, 2);
  EXPECT_EQ(box.face(0, 0).state, (std::array<double, 5>{2.0, 1.5, 0.0, 0.0, 3.0}));
  EXPECT_EQ(box.face(0, 0).smallr, 1e-8);
}

TEST(BoxBoundaries, FourFacesWithCornersAsRamses2DNamelistsWriteThem) {
  // x boundaries span the face (j offsets 0,0); y boundaries span the face and both corners (-1,+1).
  const char* const block = R"(&BOUNDARY_PARAMS
nboundary=4
ibound_min=-1,+1,-1,-1
ibound_max=-1,+1,+1,+1
jbound_min= 0, 0,-1,+1
jbound_max= 0, 0,-1,+1
bound_type= 2, 2, 3, 1
d_bound=0,0,1.5,0
v_bound=0,0,0.7,0
p_bound=0,0,2.5,0
/)";
  const BoxBoundaries<2> box = box_boundaries<2>(load(block));
  EXPECT_EQ(box.face(0, 0).type, BoundaryType::outflow);
  EXPECT_EQ(box.face(0, 1).type, BoundaryType::outflow);
  EXPECT_EQ(box.face(1, 0).type, BoundaryType::inflow);
  EXPECT_EQ(box.face(1, 0).state, (std::array<double, 5>{1.5, 0.0, 0.7, 0.0, 2.5}));
  EXPECT_EQ(box.face(1, 1).type, BoundaryType::reflecting);
  EXPECT_EQ(box.face(1, 1).source, 4);
  // In 3-D the same namelist leaves z periodic; in 1-D the y boundaries are ignored, as RAMSES does.
  EXPECT_TRUE(box_boundaries<3>(load(block)).periodic(2));
  const BoxBoundaries<1> box1 = box_boundaries<1>(load(block));
  EXPECT_EQ(box1.face(0, 0).type, BoundaryType::outflow);
}

TEST(BoxBoundaries, OneSidedAxisIsAnError) {
  expect_contains(
      boundary_error<1>("&BOUNDARY_PARAMS nboundary=1 ibound_min=-1 ibound_max=-1 bound_type=1 /"),
      {"params.nml: &BOUNDARY_PARAMS:", "x has a boundary on its low side (boundary 1)", "none on its high side"});
  expect_contains(boundary_error<2>("&BOUNDARY_PARAMS nboundary=3 ibound_min=-1,1,0 ibound_max=-1,1,0\n"
                                    " jbound_min=0,0,1 jbound_max=0,0,1 bound_type=2,2,2 /"),
                  {"&BOUNDARY_PARAMS", "y has a boundary on its high side (boundary 3)", "none on its low side"});
}

TEST(BoxBoundaries, PartialFaceIsAnError) {
  // RAMSES would impose the boundary on coarse rows 0..ny-3 only; kosmo takes whole faces.
  expect_contains(
      boundary_error<2>("&BOUNDARY_PARAMS nboundary=2 ibound_min=-1,1 ibound_max=-1,1\n"
                        " jbound_min=0,0 jbound_max=-2,0 bound_type=1,1 /"),
      {"&BOUNDARY_PARAMS", "boundary 1 (", "jbound_max(1)=-2", "covers only part of the low x face", "whole face"});
}

TEST(BoxBoundaries, BoxThatIsNoFaceIsAnError) {
  expect_contains(boundary_error<3>("&BOUNDARY_PARAMS nboundary=2 ibound_min=-1,0 ibound_max=-1,3 bound_type=1,1 /"),
                  {"&BOUNDARY_PARAMS", "boundary 2 (ibound_min(2)=0, ibound_max(2)=3", "not a layer outside a face"});
}

TEST(BoxBoundaries, TwoBoundariesOnOneFaceIsAnError) {
  expect_contains(boundary_error<1>("&BOUNDARY_PARAMS nboundary=3 ibound_min=-1,1,-1 ibound_max=-1,1,-1\n"
                                    " bound_type=1,1,2 /"),
                  {"&BOUNDARY_PARAMS", "boundaries 1 and 3 both cover the low x face"});
}

TEST(BoxBoundaries, CornerLayerAlongAPeriodicAxisIsAnError) {
  expect_contains(boundary_error<2>("&BOUNDARY_PARAMS nboundary=2 ibound_min=-1,1 ibound_max=-1,1\n"
                                    " jbound_min=-1,0 jbound_max=1,0 bound_type=2,2 /"),
                  {"&BOUNDARY_PARAMS", "boundary 1 (", "corner layer along y", "y is periodic"});
  expect_contains(boundary_error<2>("&BOUNDARY_PARAMS nboundary=2 ibound_min=-1,1 ibound_max=-1,1\n"
                                    " jbound_min=-2,0 jbound_max=1,0 bound_type=2,2 /"),
                  {"&BOUNDARY_PARAMS", "boundary 1 (", "more than one layer beyond the box along y"});
}

TEST(BoxBoundaries, UnsetTypeIsCaughtWhenTheNamelistIsRead) {
  try {
    load("&BOUNDARY_PARAMS nboundary=2 ibound_min=-1,1 ibound_max=-1,1 bound_type=1 /");
    ADD_FAILURE() << "no error";
  } catch (const kosmo::Error& e) {
    expect_contains(e.what(), {"params.nml:3:", "&BOUNDARY_PARAMS", "bound_type(2) is not set"});
  }
}

TEST(BoundaryGhostState, ReflectingNegatesTheNormalMomentumOnly) {
  BoundaryFace face;
  face.type = BoundaryType::reflecting;
  const std::array<double, 6> interior = {1.0, 0.3, -0.2, 2.0, 0.7, 0.1};  // 2-D + two passive scalars
  std::array<double, 6> ghost{};
  boundary_ghost_state<2>(face, 1, 0, 1.4, 2, interior.data(), ghost.data());
  EXPECT_EQ(ghost, (std::array<double, 6>{1.0, 0.3, 0.2, 2.0, 0.7, 0.1}));
  boundary_ghost_state<2>(face, 0, 1, 1.4, 2, interior.data(), ghost.data());
  EXPECT_EQ(ghost, (std::array<double, 6>{1.0, -0.3, -0.2, 2.0, 0.7, 0.1}));
}

TEST(BoundaryGhostState, OutflowCopies) {
  BoundaryFace face;
  face.type = BoundaryType::outflow;
  const std::array<double, 5> interior = {1.0, 0.3, -0.2, 0.5, 2.0};
  std::array<double, 5> ghost{};
  boundary_ghost_state<3>(face, 2, 1, 1.4, 0, interior.data(), ghost.data());
  EXPECT_EQ(ghost, interior);
}

TEST(BoundaryGhostState, NoInflowClipsTheInwardNormalMomentumAndItsKineticEnergy) {
  BoundaryFace face;
  face.type = BoundaryType::outflow;
  face.no_inflow = true;
  face.smallr = 1e-10;
  // 3-D, rho = 2, momentum (0.4, -0.6, 0.8), E = 3, one scalar.
  const std::array<double, 6> interior = {2.0, 0.4, -0.6, 0.8, 3.0, 0.5};
  std::array<double, 6> ghost{};
  // Low x face: positive x momentum flows into the box, so it is set to 0 and E loses 0.4^2 / (2 rho).
  boundary_ghost_state<3>(face, 0, 0, 1.4, 1, interior.data(), ghost.data());
  EXPECT_EQ(ghost[1], 0.0);
  EXPECT_EQ(ghost[2], -0.6);
  EXPECT_EQ(ghost[3], 0.8);
  EXPECT_DOUBLE_EQ(ghost[4], 3.0 - 0.5 * 0.16 / 2.0);
  EXPECT_EQ(ghost[0], 2.0);
  EXPECT_EQ(ghost[5], 0.5);
  // High x face: positive x momentum leaves the box: the ghost is a plain copy.
  boundary_ghost_state<3>(face, 0, 1, 1.4, 1, interior.data(), ghost.data());
  EXPECT_EQ(ghost, interior);
  // Low y face: negative y momentum leaves: copy. High y face: it would enter: clipped.
  boundary_ghost_state<3>(face, 1, 0, 1.4, 1, interior.data(), ghost.data());
  EXPECT_EQ(ghost, interior);
  boundary_ghost_state<3>(face, 1, 1, 1.4, 1, interior.data(), ghost.data());
  EXPECT_EQ(ghost[2], 0.0);
  EXPECT_DOUBLE_EQ(ghost[4], 3.0 - 0.5 * 0.36 / 2.0);
}

TEST(BoxBoundaries, NoInflowAppliesToOutflowFacesOnly) {
  const BoxBoundaries<1> box =
      box_boundaries<1>(load("&BOUNDARY_PARAMS nboundary=2 ibound_min=-1,1 ibound_max=-1,1 bound_type=2,1 no_inflow=.true. /"));
  EXPECT_TRUE(box.face(0, 0).no_inflow);
  EXPECT_FALSE(box.face(0, 1).no_inflow);  // reflecting: the switch has no meaning there (RAMSES: outflow code only)
  const BoxBoundaries<1> plain = box_boundaries<1>(load("&BOUNDARY_PARAMS nboundary=2 ibound_min=-1,1 ibound_max=-1,1 bound_type=2,2 /"));
  EXPECT_FALSE(plain.face(0, 0).no_inflow);
}

TEST(BoundaryGhostState, InflowImposesTheConservativeStateOfRamses) {
  BoundaryFace face;
  face.type = BoundaryType::inflow;
  face.state = {2.0, 1.5, -0.5, 3.0, 0.6};
  face.smallr = 1e-10;
  const std::array<double, 6> interior = {9, 9, 9, 9, 9, 9};
  std::array<double, 6> ghost{};
  boundary_ghost_state<3>(face, 0, 0, 5.0 / 3.0, 1, interior.data(), ghost.data());
  EXPECT_EQ(ghost[0], 2.0);
  EXPECT_EQ(ghost[1], 3.0);
  EXPECT_EQ(ghost[2], -1.0);
  EXPECT_EQ(ghost[3], 6.0);
  EXPECT_DOUBLE_EQ(ghost[4], 0.5 * 2.0 * (2.25 + 0.25 + 9.0) + 0.6 / (2.0 / 3.0));
  EXPECT_EQ(ghost[5], 0.0);
  // 1-D: only u_bound enters; an unset density is floored at smallr, its momentum stays d_bound * u.
  face.state = {0.0, 4.0, 7.0, 7.0, 0.4};
  std::array<double, 3> ghost1{};
  boundary_ghost_state<1>(face, 0, 1, 1.4, 0, interior.data(), ghost1.data());
  EXPECT_EQ(ghost1[0], 1e-10);
  EXPECT_EQ(ghost1[1], 0.0);
  EXPECT_DOUBLE_EQ(ghost1[2], 0.4 / 0.4);
}

TEST(BoundaryGhostState, PeriodicFaceHasNoGhostState) {
  const BoundaryFace face;
  const std::array<double, 3> interior = {1, 0, 1};
  std::array<double, 3> ghost{};
  EXPECT_THROW(boundary_ghost_state<1>(face, 0, 0, 1.4, 0, interior.data(), ghost.data()), kosmo::Error);
}

TEST(BoundaryReferenceCell, ReflectingMirrorsOutflowCopiesTheAdjacentCell) {
  const std::int64_t n = 8;
  EXPECT_EQ(boundary_reference_cell(BoundaryType::reflecting, -1, n), 0);
  EXPECT_EQ(boundary_reference_cell(BoundaryType::reflecting, -2, n), 1);
  EXPECT_EQ(boundary_reference_cell(BoundaryType::reflecting, 8, n), 7);
  EXPECT_EQ(boundary_reference_cell(BoundaryType::reflecting, 9, n), 6);
  EXPECT_EQ(boundary_reference_cell(BoundaryType::outflow, -1, n), 0);
  EXPECT_EQ(boundary_reference_cell(BoundaryType::outflow, -2, n), 0);
  EXPECT_EQ(boundary_reference_cell(BoundaryType::outflow, 8, n), 7);
  EXPECT_EQ(boundary_reference_cell(BoundaryType::outflow, 9, n), 7);
  EXPECT_EQ(boundary_reference_cell(BoundaryType::inflow, -2, n), 1);
}

TEST(BoundaryType, Names) {
  EXPECT_STREQ(boundary_type_name(BoundaryType::reflecting), "reflecting");
  EXPECT_STREQ(boundary_type_name(BoundaryType::inflow), "inflow");
}

}  // namespace
}  // namespace kosmo::hydro
