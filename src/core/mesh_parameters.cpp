// RAMSES names, defaults and array lengths (amr/amr_parameters.f90, amr/read_params.f90) unless the
// description says "kosmo".
#include "core/mesh_parameters.hpp"

#include "core/error.hpp"
#include "core/parameters.hpp"
#include "core/schema_builder.hpp"

namespace kosmo::core {
namespace {

void check_levels(const ParameterSet& p) {
  const long long levelmin = p.get_int("AMR_PARAMS", "levelmin");
  const long long levelmax = p.get_int("AMR_PARAMS", "levelmax");
  KOSMO_REQUIRE(levelmax >= levelmin,
                p.location_of("AMR_PARAMS", p.set_by_user("AMR_PARAMS", "levelmax") ? "levelmax" : "levelmin")
                    << "levelmax = " << levelmax << " is smaller than levelmin = " << levelmin
                    << " (levelmax must be >= levelmin)");
}

}  // namespace

// The table is laid out by hand, one key per row.
// clang-format off
void declare_mesh_parameters(SchemaBuilder& schema) {
  using namespace parameter_rows;
  schema.declare_block("AMR_PARAMS", "The mesh: coarse grid, refinement levels, box size.");
  schema.add({
      integer_key("AMR_PARAMS", "levelmin", 1, between(1, kMaxLevel),
                  "coarsest level: the mesh is refined everywhere down to it"),
      integer_key("AMR_PARAMS", "levelmax", 1, between(1, kMaxLevel),
                  "finest level refinement may reach; must be >= levelmin"),
      integer_key("AMR_PARAMS", "ngridmax", 0, at_least(0),
                  "accepted for compatibility, no effect: kosmo's oct pools grow on demand"),
      integer_key("AMR_PARAMS", "ngridtot", 0, at_least(0),
                  "accepted for compatibility, no effect: kosmo's oct pools grow on demand"),
      integer_array_key("AMR_PARAMS", "nexpand", kMaxLevel, 1, at_least(0),
                        "per level: number of buffer-cell expansions around cells flagged for refinement"),
      real_key("AMR_PARAMS", "boxlen", 1.0, above(0), "box size in code length units"),
      integer_key("AMR_PARAMS", "nx", 1, at_least(1), "coarse grid: number of root cells along x"),
      integer_key("AMR_PARAMS", "ny", 1, at_least(1), "coarse grid: number of root cells along y"),
      integer_key("AMR_PARAMS", "nz", 1, at_least(1), "coarse grid: number of root cells along z"),
  });

  schema.declare_block("REFINE_PARAMS", "Refinement criteria and prolongation to new cells.");
  schema.add({
      // The geometric criterion of RAMSES (refine inside a region per level; core/refine_region.hpp)
      real_array_key("REFINE_PARAMS", "x_refine", kMaxLevel, 0.0, any_value(),
                     "per level: x centre of the geometric refinement region (code units)"),
      real_array_key("REFINE_PARAMS", "y_refine", kMaxLevel, 0.0, any_value(),
                     "per level: y centre of the geometric refinement region (code units)"),
      real_array_key("REFINE_PARAMS", "z_refine", kMaxLevel, 0.0, any_value(),
                     "per level: z centre of the geometric refinement region (code units)"),
      real_array_key("REFINE_PARAMS", "r_refine", kMaxLevel, -1.0, any_value(),
                     "per level: radius of the refinement region; negative = no geometric criterion at that level"),
      real_array_key("REFINE_PARAMS", "a_refine", kMaxLevel, 1.0, any_value(),
                     "per level: axis ratio of the region along y"),
      real_array_key("REFINE_PARAMS", "b_refine", kMaxLevel, 1.0, any_value(),
                     "per level: axis ratio of the region along z"),
      real_array_key("REFINE_PARAMS", "exp_refine", kMaxLevel, 2.0, above(0),
                     "per level: exponent of the region norm (2 = ellipsoid, large = box)"),
      // The prolongation operator of core/prolongation.hpp
      integer_key("REFINE_PARAMS", "interpol_type", 1, between(0, 4),
                  "prolongation: 0 injection, 1 linear MinMod, 2 linear MonCen, 3 linear unlimited central, "
                  "4 central for velocities and MonCen for the rest"),
  });

  // The code's units belong to no single physics module: every module that needs cgs values (the
  // snapshot metadata today, cooling tomorrow) reads them here.
  schema.declare_block("UNITS_PARAMS", "Code units, as the cgs value of one code unit.");
  schema.add({
      real_key("UNITS_PARAMS", "units_density", 1.0, above(0), "code density unit in g/cm^3"),
      real_key("UNITS_PARAMS", "units_time", 1.0, above(0), "code time unit in s"),
      real_key("UNITS_PARAMS", "units_length", 1.0, above(0), "code length unit in cm"),
  });

  schema.add_check(&check_levels);
}
// clang-format on

}  // namespace kosmo::core
