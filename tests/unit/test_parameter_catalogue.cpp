// The parameter schema assembled from the modules' declarations: who declares what, the order of the
// assembled table, and the conflicts SchemaBuilder::build() must refuse.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "core/error.hpp"
#include "core/parameters.hpp"
#include "core/schema_builder.hpp"

namespace kosmo::core {
namespace {

using namespace parameter_rows;

// Fake modules declaring into a block of their own, so the tests do not depend on the real tables.
void declare_alpha(SchemaBuilder& schema) {
  schema.declare_block("TEST_PARAMS", "a block for the tests");
  schema.add({integer_key("TEST_PARAMS", "size", 4, at_least(1), "alpha's size"),
              real_key("TEST_PARAMS", "weight", 0.5, between(0, 1), "alpha's weight")});
}
void declare_beta_size(SchemaBuilder& schema) {
  schema.add({integer_key("TEST_PARAMS", "size", 8, at_least(1), "beta's size")});
}
void declare_beta_other(SchemaBuilder& schema) {
  schema.declare_block("OTHER_PARAMS", "another block");
  schema.add({logical_key("OTHER_PARAMS", "enabled", false, "beta's switch"),
              logical_key("TEST_PARAMS", "verbose", true, "beta's key in alpha's block")});
}

std::string build_error(const SchemaBuilder& builder) {
  try {
    builder.build();
  } catch (const Error& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(ParameterCatalogue, TwoModulesDeclaringTheSameKeyIsAnError) {
  SchemaBuilder builder;
  builder.declare_module("alpha", &declare_alpha);
  builder.declare_module("beta", &declare_beta_size);
  EXPECT_EQ(build_error(builder), "parameter schema: &TEST_PARAMS 'size' is declared by both alpha and beta");
}

TEST(ParameterCatalogue, ABlockDeclaredByTwoModulesIsAnError) {
  SchemaBuilder builder;
  builder.declare_module("alpha", &declare_alpha);
  try {
    builder.declare_module("gamma", &declare_alpha);
    FAIL() << "the second declaration of &TEST_PARAMS was accepted";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "parameter schema: &TEST_PARAMS is declared by both alpha and gamma");
  }
}

TEST(ParameterCatalogue, RowsOfAnUndeclaredBlockAreAnError) {
  SchemaBuilder builder;
  builder.declare_module("beta", &declare_beta_size);
  EXPECT_EQ(build_error(builder), "parameter schema: beta adds 'size' to &TEST_PARAMS, which no module declares");
}

TEST(ParameterCatalogue, ADefaultOutsideItsRangeIsAnError) {
  SchemaBuilder builder;
  builder.declare_module("alpha", [](SchemaBuilder& schema) {
    schema.declare_block("TEST_PARAMS", "a block for the tests");
    schema.add({real_key("TEST_PARAMS", "weight", 2.0, between(0, 1), "out of range")});
  });
  EXPECT_EQ(build_error(builder),
            "parameter schema: &TEST_PARAMS 'weight' (declared by alpha): the default 2 is outside its own range "
            "(0 <= weight <= 1)");
}

TEST(ParameterCatalogue, AKeyBothImplementedAndUnimplementedIsAnError) {
  SchemaBuilder builder;
  builder.declare_module("alpha", &declare_alpha);
  builder.declare_module("pending", [](SchemaBuilder& schema) {
    schema.declare_feature("weighing");
    schema.add_unimplemented("TEST_PARAMS", "weighing", {"weight"});
  });
  EXPECT_EQ(build_error(builder),
            "parameter schema: &TEST_PARAMS 'weight' is declared by alpha and listed as not implemented");
}

TEST(ParameterCatalogue, BlocksFollowTheListedOrderAndRowsTheModuleOrder) {
  SchemaBuilder builder;
  builder.list_blocks_in_order({"OTHER_PARAMS"});
  builder.declare_module("alpha", &declare_alpha);
  builder.declare_module("beta", &declare_beta_other);
  const ParameterSchema schema = builder.build();
  ASSERT_EQ(schema.blocks.size(), 2u);
  EXPECT_EQ(schema.blocks[0].name, "OTHER_PARAMS");  // listed first
  EXPECT_EQ(schema.blocks[0].module, "beta");
  EXPECT_EQ(schema.blocks[1].name, "TEST_PARAMS");  // not listed: follows in declaration order
  std::vector<std::string> rows;
  for (const ParameterSpec& spec : schema.parameters) rows.push_back(spec.module + ":" + spec.block + "." + spec.name);
  EXPECT_EQ(rows, (std::vector<std::string>{"beta:OTHER_PARAMS.enabled", "alpha:TEST_PARAMS.size",
                                            "alpha:TEST_PARAMS.weight", "beta:TEST_PARAMS.verbose"}));
}

TEST(ParameterCatalogue, ListingABlockNoModuleDeclaresIsAnError) {
  SchemaBuilder builder;
  builder.list_blocks_in_order({"TEST_PARAMS", "MISSING_PARAMS"});
  builder.declare_module("alpha", &declare_alpha);
  EXPECT_EQ(build_error(builder), "parameter schema: the block order lists &MISSING_PARAMS, which no module declares");
}

void first_check(const ParameterSet&) {}
void second_check(const ParameterSet&) {}
void run_check(const ParameterSet&) {}

TEST(ParameterCatalogue, RunChecksComeAfterEveryModulesKeyChecks) {
  SchemaBuilder builder;
  builder.declare_module("alpha", [](SchemaBuilder& schema) {
    schema.add_check(&first_check);
    schema.add_run_check(&run_check);
  });
  builder.declare_module("beta", [](SchemaBuilder& schema) { schema.add_check(&second_check); });
  EXPECT_EQ(builder.build().checks, (std::vector<ParameterCheck>{&first_check, &second_check, &run_check}));
}

// The real catalogue: each key is declared by the module that reads it, and core/ declares only
// what the mesh itself needs.
TEST(ParameterCatalogue, EachKeyIsDeclaredByItsModule) {
  std::map<std::string, std::string> module_of;
  for (const ParameterSpec& spec : parameter_schema()) module_of[spec.block + "." + spec.name] = spec.module;
  const std::map<std::string, std::string> expected = {
      {"AMR_PARAMS.levelmax", "core"},         {"AMR_PARAMS.boxlen", "core"},
      {"REFINE_PARAMS.interpol_type", "core"}, {"UNITS_PARAMS.units_length", "core"},
      {"RUN_PARAMS.hydro", "driver"},          {"RUN_PARAMS.nsubcycle", "driver"},
      {"RUN_PARAMS.use_fftw", "gravity"},      {"POISSON_PARAMS.epsilon", "gravity"},
      {"HYDRO_PARAMS.gamma", "hydro"},         {"INIT_PARAMS.nregion", "hydro"},
      {"REFINE_PARAMS.err_grad_d", "hydro"},   {"BOUNDARY_PARAMS.bound_type", "hydro"},
      {"INIT_PARAMS.filetype", "particles"},   {"AMR_PARAMS.npartmax", "particles"},
      {"INIT_PARAMS.omega_m", "cosmology"},    {"INIT_PARAMS.aexp_ini", "cosmology"},
      {"RUN_PARAMS.ordering", "parallel"},     {"AMR_PARAMS.mem_weight_grid", "parallel"},
      {"OUTPUT_PARAMS.outformat", "io"},       {"OUTPUT_PARAMS.aout", "io"},
      {"RUN_PARAMS.tracer", "tracers"},        {"TRACER_PARAMS.tracer_mass", "tracers"},
      {"SF_PARAMS.eps_star", "star_formation"}, {"FEEDBACK_PARAMS.t_sne", "star_formation"},
      {"FEEDBACK_PARAMS.rbubble", "feedback"}, {"FEEDBACK_PARAMS.sn_binning", "feedback"},
      {"COOLING_PARAMS.cooling", "cooling"},   {"COOLING_PARAMS.mu_gas", "hydro"},
      {"RUN_PARAMS.sink", "sinks"},            {"SINK_PARAMS.accretion_scheme", "sinks"},
  };
  for (const auto& [key, module] : expected) EXPECT_EQ(module_of.at(key), module) << key;
  std::set<std::string> core_blocks;
  for (const ParameterSpec& spec : parameter_schema())
    if (spec.module == "core") core_blocks.insert(spec.block);
  EXPECT_EQ(core_blocks, (std::set<std::string>{"AMR_PARAMS", "REFINE_PARAMS", "UNITS_PARAMS"}));
  std::set<std::string> modules;
  for (const ParameterSpec& spec : parameter_schema()) modules.insert(spec.module);
  EXPECT_EQ(modules,
            (std::set<std::string>{"cooling", "core", "cosmology", "driver", "feedback", "gravity", "hydro", "io", "parallel", "particles", "sinks", "star_formation", "tracers"}));
}

TEST(ParameterCatalogue, DeclaringTheCatalogueTwiceIsRefused) {
  SchemaBuilder builder;
  declare_parameter_catalogue(builder);
  EXPECT_THROW(declare_parameter_catalogue(builder), Error);
}

}  // namespace
}  // namespace kosmo::core
