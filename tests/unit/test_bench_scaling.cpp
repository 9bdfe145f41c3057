// `kosmo bench scaling` without launching anything: its command line, its cases' namelists (they
// must parse with the run's own parameter schema), the JSON reader it reads run summaries with, and
// the line it prints per run (speedup, per-step exchange figures).
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "core/parameters.hpp"
#include "driver/bench_scaling.hpp"
#include "driver/command_line.hpp"
#include "driver/json_value.hpp"

using namespace kosmo;
using namespace kosmo::driver;

TEST(BenchScaling, CommandLine) {
  const CommandLine line = parse_command_line({"bench", "scaling", "--case", "sedov_amr", "--steps", "3"});
  EXPECT_EQ(line.command, "bench");
  EXPECT_EQ(line.bench, "scaling");
  EXPECT_EQ(line.bench_case, "sedov_amr");
  EXPECT_EQ(line.steps, 3);
  EXPECT_THROW(parse_command_line({"bench", "hydro", "--case", "sedov_amr"}), Error);  // --case is for scaling
  EXPECT_THROW(parse_command_line({"bench", "scaling", "--case"}), Error);
  EXPECT_THROW(parse_command_line({"bench", "scale"}), Error);
  EXPECT_NE(usage().find("kosmo bench scaling"), std::string::npos);
}

TEST(BenchScaling, CasesAndLayouts) {
  const auto cases = scaling_cases(7);
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0].name, "sedov_amr");
  EXPECT_EQ(cases[1].name, "dm_box_64_short");
  EXPECT_EQ(cases[2].name, "showcase_short");
  for (const ScalingCase& c : cases) {
    const auto params = core::ParameterSet::from_text(c.namelist, c.name + ".nml");  // throws on a bad key
    if (c.name == "sedov_amr") {
      EXPECT_EQ(params.get_int("AMR_PARAMS", "levelmin"), 5);
      EXPECT_EQ(params.get_int("AMR_PARAMS", "levelmax"), 8);
      EXPECT_DOUBLE_EQ(params.get_real("REFINE_PARAMS", "err_grad_p"), 0.1);
      EXPECT_EQ(params.get_int("RUN_PARAMS", "nremap"), 5);
    } else {
      EXPECT_EQ(params.get_int("RUN_PARAMS", "nstepmax"), 7) << c.name;
    }
    if (c.name == "dm_box_64_short") {
      EXPECT_EQ(params.get_int("AMR_PARAMS", "levelmin"), 6);
      EXPECT_EQ(params.get_int("AMR_PARAMS", "levelmax"), 10);
      EXPECT_FALSE(params.get_bool("RUN_PARAMS", "hydro"));
    }
  }
  const auto layouts = scaling_layouts();
  ASSERT_EQ(layouts.size(), 3u);
  EXPECT_EQ(layouts[0].ranks * layouts[0].threads, 1);  // the baseline comes first
  EXPECT_EQ(layouts[1].ranks, 2);
  EXPECT_EQ(layouts[2].threads, 2);
}

TEST(BenchScaling, JsonReader) {
  const JsonValue v = parse_json(R"( {"a": [1, 2.5e3, -3], "b": {"s": "x\"y", "t": true, "f": false, "n": null}, "c": {}} )");
  ASSERT_EQ(v.kind, JsonValue::Kind::object);
  ASSERT_EQ(v.at("a").items.size(), 3u);
  EXPECT_DOUBLE_EQ(v.at("a").items[1].number, 2500.0);
  EXPECT_DOUBLE_EQ(v.at("a").items[2].number, -3.0);
  EXPECT_EQ(v.at("b").at("s").text, "x\"y");
  EXPECT_TRUE(v.at("b").at("t").boolean);
  EXPECT_EQ(v.at("b").at("f").kind, JsonValue::Kind::boolean);
  EXPECT_FALSE(v.at("b").at("f").boolean);
  EXPECT_EQ(v.at("b").at("n").kind, JsonValue::Kind::null);
  EXPECT_TRUE(v.at("c").members.empty());
  EXPECT_EQ(v.at("b").members[0].first, "s");  // file order kept
  EXPECT_FALSE(v.has("d"));
  EXPECT_THROW(v.at("d"), Error);
  EXPECT_THROW(parse_json("{\"a\": }"), Error);
  EXPECT_THROW(parse_json("[1, 2"), Error);
  EXPECT_THROW(parse_json("{} x"), Error);
}

TEST(BenchScaling, ResultLineFromRunSummary) {
  // A summary as driver/run_summary writes it, for 2 ranks and 4 coarse steps.
  const JsonValue summary = parse_json(
      R"({"ranks":2,"threads":1,"coarse_steps":4,"wall_seconds":9.5,"cpu_seconds":18.25,"peak_rss_bytes":1.5e8,)"
      R"("timers":{"hydro - gather, fluxes, update":6,"other":1.5},)"
      R"("exchanges":{"ghost_refresh":{"messages_sent":[40,44],"bytes_sent":[4000,8000],"messages_received":[44,40],)"
      R"("bytes_received":[8000,4000],"wait_seconds":[0.25,0.5],"exchanges":[10,10]}}})");
  const std::string line = scaling_result_json("sedov_amr", {2, 1}, 10.0, 15.0, summary);
  const JsonValue v = parse_json(line);  // the line is valid JSON
  EXPECT_EQ(v.at("case").text, "sedov_amr");
  EXPECT_EQ(v.at("ranks").number, 2);
  EXPECT_EQ(v.at("threads").number, 1);
  EXPECT_DOUBLE_EQ(v.at("seconds").number, 10.0);
  EXPECT_DOUBLE_EQ(v.at("cpu_seconds").number, 18.25);
  EXPECT_DOUBLE_EQ(v.at("speedup").number, 1.5);
  EXPECT_DOUBLE_EQ(v.at("peak_rss_bytes").number, 1.5e8);
  EXPECT_DOUBLE_EQ(v.at("timers").at("hydro - gather, fluxes, update").number, 6.0);
  const JsonValue& ghost = v.at("exchanges_per_rank_per_step").at("ghost_refresh");
  ASSERT_EQ(ghost.at("messages").items.size(), 2u);
  EXPECT_DOUBLE_EQ(ghost.at("messages").items[0].number, 10.0);  // 40 messages over 4 steps
  EXPECT_DOUBLE_EQ(ghost.at("messages").items[1].number, 11.0);
  EXPECT_DOUBLE_EQ(ghost.at("bytes").items[1].number, 2000.0);
  EXPECT_DOUBLE_EQ(ghost.at("wait_seconds_total").items[1].number, 0.5);
  // Without a baseline: null, except for the 1x1 run itself.
  EXPECT_EQ(parse_json(scaling_result_json("c", {1, 2}, 10.0, 0.0, summary)).at("speedup").kind, JsonValue::Kind::null);
  EXPECT_DOUBLE_EQ(parse_json(scaling_result_json("c", {1, 1}, 10.0, 0.0, summary)).at("speedup").number, 1.0);
}
