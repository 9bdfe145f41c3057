// The parameter table. One row per key; RAMSES names, defaults and array lengths (amr_parameters.f90,
// read_params.f90) unless the description says "kosmo". cuRAMSES keys: seeds/000 Appendix F.
#include "core/parameter_schema.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <numeric>
#include <sstream>

namespace kosmo::core {
namespace {

struct Range {
  std::optional<Bound> lower, upper;
};
Range any_value() { return {}; }
Range at_least(double v) { return {Bound{v, true}, std::nullopt}; }
Range above(double v) { return {Bound{v, false}, std::nullopt}; }
Range between(double lo, double hi) { return {Bound{lo, true}, Bound{hi, true}}; }

ParameterSpec make(std::string block, std::string name, ParameterType type, int length, ParameterValue default_value,
                   Range range, std::string description) {
  ParameterSpec spec;
  spec.block = std::move(block);
  spec.name = std::move(name);
  spec.type = type;
  spec.length = length;
  spec.default_value = std::move(default_value);
  spec.lower = range.lower;
  spec.upper = range.upper;
  spec.description = std::move(description);
  return spec;
}

ParameterSpec integer_key(std::string block, std::string name, long long def, Range range, std::string text) {
  return make(std::move(block), std::move(name), ParameterType::Integer, 0, def, range, std::move(text));
}
ParameterSpec integer_array_key(std::string block, std::string name, int length, long long def, Range range,
                                std::string text) {
  return make(std::move(block), std::move(name), ParameterType::Integer, length, def, range, std::move(text));
}
ParameterSpec real_key(std::string block, std::string name, double def, Range range, std::string text) {
  return make(std::move(block), std::move(name), ParameterType::Real, 0, def, range, std::move(text));
}
ParameterSpec real_array_key(std::string block, std::string name, int length, double def, Range range,
                             std::string text) {
  return make(std::move(block), std::move(name), ParameterType::Real, length, def, range, std::move(text));
}
ParameterSpec logical_key(std::string block, std::string name, bool def, std::string text) {
  return make(std::move(block), std::move(name), ParameterType::Logical, 0, def, any_value(), std::move(text));
}
ParameterSpec string_key(std::string block, std::string name, std::string def, std::vector<std::string> choices,
                         std::string text) {
  ParameterSpec spec =
      make(std::move(block), std::move(name), ParameterType::String, 0, std::move(def), any_value(), std::move(text));
  spec.choices = std::move(choices);
  return spec;
}

// clang-format off: the table is laid out by hand, one key per row.
std::vector<ParameterSpec> build_schema() {
  return {
      // &RUN_PARAMS
      integer_key("RUN_PARAMS", "ndim", 3, between(1, 3),
                  "number of space dimensions; kosmo picks its 1-, 2- or 3-D build at run time (--ndim overrides)"),
      string_key("RUN_PARAMS", "problem", "refined_sphere", {"refined_sphere"},
                 "kosmo: built-in problem to set up and run"),
      logical_key("RUN_PARAMS", "verbose", false, "print detailed progress messages"),
      integer_key("RUN_PARAMS", "nstepmax", 1000000, at_least(0), "maximum number of coarse time steps"),

      // &AMR_PARAMS
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

      // &REFINE_PARAMS: the geometric criterion of RAMSES (refine inside a region per level)
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
      integer_key("REFINE_PARAMS", "interpol_type", 1, between(0, 4),
                  "prolongation: 0 injection, 1 linear MinMod, 2 linear MonCen, 3 linear unlimited central, "
                  "4 central for velocities and MonCen for the rest"),
      integer_key("REFINE_PARAMS", "interpol_var", 0, between(0, 2),
                  "variables interpolated: 0 conservative, 1 primitive, 2 primitive with velocities"),

      // &OUTPUT_PARAMS
      integer_key("OUTPUT_PARAMS", "noutput", 1, between(0, kMaxOut),
                  "number of outputs listed in tout (or aout in cosmological runs)"),
      real_array_key("OUTPUT_PARAMS", "tout", kMaxOut, 0.0, any_value(),
                     "output times in code units; non-decreasing over the first noutput entries"),
      real_array_key("OUTPUT_PARAMS", "aout", kMaxOut, 1.1, any_value(),
                     "output expansion factors (cosmological runs); non-decreasing over the first noutput entries"),
      integer_key("OUTPUT_PARAMS", "foutput", 1000000, at_least(1), "also write an output every foutput coarse steps"),
      real_key("OUTPUT_PARAMS", "delta_tout", 0.0, at_least(0),
               "interval between outputs in code time units (0 = use tout only)"),
      real_key("OUTPUT_PARAMS", "tend", 0.0, at_least(0), "end time in code units (0 = last entry of tout)"),
      real_key("OUTPUT_PARAMS", "delta_aout", 0.0, any_value(),
               "interval between outputs in expansion factor (0 = use aout only)"),
      real_key("OUTPUT_PARAMS", "aend", 0.0, any_value(), "final expansion factor (0 = last entry of aout)"),

      // &UNITS_PARAMS: the cgs value of one code unit
      real_key("UNITS_PARAMS", "units_density", 1.0, above(0), "code density unit in g/cm^3"),
      real_key("UNITS_PARAMS", "units_time", 1.0, above(0), "code time unit in s"),
      real_key("UNITS_PARAMS", "units_length", 1.0, above(0), "code length unit in cm"),
  };
}

std::vector<UnimplementedParameter> keys_of(const std::string& block, std::initializer_list<const char*> names) {
  std::vector<UnimplementedParameter> out;
  for (const char* name : names) out.push_back({block, name});
  return out;
}

std::vector<UnimplementedParameter> build_unimplemented() {
  std::vector<UnimplementedParameter> all;
  auto add = [&all](std::vector<UnimplementedParameter> more) { all.insert(all.end(), more.begin(), more.end()); };
  add(keys_of("RUN_PARAMS", {"hydro",
                             "poisson",
                             "pic",
                             "cosmo",
                             "sink",
                             "rt",
                             "nrestart",
                             "nremap",
                             "nsubcycle",
                             "ordering",
                             "exchange_method",
                             "memory_balance",
                             "use_fftw",
                             "dump_pk",
                             "jobcontrolfile",
                             "walltime_hrs",
                             "minutes_dump",
                             "gpu_hydro",
                             "gpu_poisson",
                             "gpu_fft",
                             "gpu_sink",
                             "gpu_auto_tune",
                             "n_cuda_streams",
                             "static",
                             "debug"}));
  add(keys_of("AMR_PARAMS",
              {"npartmax", "nsinkmax", "mem_weight_grid", "mem_weight_part", "mem_weight_sink", "time_balance_alpha"}));
  add(keys_of("REFINE_PARAMS", {"err_grad_d", "err_grad_u", "err_grad_p", "floor_d", "floor_u", "floor_p", "m_refine",
                                "mass_sph", "jeans_refine", "q_refine_holdback"}));
  add(keys_of("OUTPUT_PARAMS", {"outformat", "informat", "varcpu_chunk_nfile", "output_mode"}));
  // Well-known keys of the unimplemented blocks, so a misplaced key can be sent to its block.
  add(keys_of("INIT_PARAMS", {"filetype", "initfile", "nregion", "region_type", "x_center", "y_center", "z_center",
                              "length_x", "length_y", "length_z", "exp_region", "d_region", "u_region", "v_region",
                              "w_region", "p_region", "aexp_ini", "multiple"}));
  add(keys_of("HYDRO_PARAMS", {"gamma", "courant_factor", "riemann", "riemann2d", "slope_type", "scheme", "smallr",
                               "smallc", "niter_riemann", "pressure_fix", "beta_fix", "difmag"}));
  add(keys_of("BOUNDARY_PARAMS", {"nboundary", "bound_type", "ibound_min", "ibound_max", "jbound_min", "jbound_max",
                                  "kbound_min", "kbound_max", "d_bound", "u_bound", "v_bound", "w_bound", "p_bound"}));
  add(keys_of("POISSON_PARAMS", {"gravity_type", "gravity_params", "epsilon", "cg_levelmin", "cic_levelmax"}));
  add(keys_of("PHYSICS_PARAMS", {"cooling", "metal", "haardt_madau", "z_ave", "z_reion", "t_star", "n_star", "eps_star",
                                 "g_star", "del_star", "t2_star", "eta_sn", "yield", "f_w", "f_ek", "rbubble",
                                 "isothermal", "cooling_method", "grackle_table"}));
  add(keys_of("SINK_PARAMS",
              {"create_sinks", "mass_sink_seed", "accretion_scheme", "merging_timescale", "ir_cloud", "sink_soft"}));
  add(keys_of("CLUMPFIND_PARAMS", {"relevance_threshold", "density_threshold", "saddle_threshold", "mass_threshold"}));
  add(keys_of("RT_PARAMS", {"rt_flux_scheme", "rt_c_fraction", "rt_otsa", "rt_smooth", "rt_courant_factor"}));
  add(keys_of("MOVIE_PARAMS", {"movie", "imovout", "imov", "tendmov", "aendmov", "nw_frame", "nh_frame"}));
  add(keys_of("LIGHTCONE_PARAMS", {"thetay_cone", "thetaz_cone", "zmax_cone"}));
  add(keys_of("TRACER_PARAMS", {"tracer_feed", "tracer_feed_fmt", "tracer_mass"}));
  return all;
}
// clang-format on

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

const std::vector<BlockSpec>& schema_blocks() {
  static const std::vector<BlockSpec> blocks = {
      {"RUN_PARAMS", "What to run and for how long."},
      {"AMR_PARAMS", "The mesh: coarse grid, refinement levels, box size."},
      {"REFINE_PARAMS", "Refinement criteria and prolongation to new cells."},
      {"OUTPUT_PARAMS", "When outputs are written and when the run ends."},
      {"UNITS_PARAMS", "Code units, as the cgs value of one code unit."},
  };
  return blocks;
}

const std::vector<ParameterSpec>& parameter_schema() {
  static const std::vector<ParameterSpec> schema = build_schema();
  return schema;
}

const std::vector<BlockSpec>& unimplemented_blocks() {
  static const std::vector<BlockSpec> blocks = {
      {"INIT_PARAMS", "initial conditions (regions, grafic files)"},
      {"HYDRO_PARAMS", "hydrodynamics solver"},
      {"BOUNDARY_PARAMS", "non-periodic boundaries"},
      {"POISSON_PARAMS", "self-gravity"},
      {"PHYSICS_PARAMS", "cooling, star formation, feedback (RAMSES classic)"},
      {"COOLING_PARAMS", "cooling (newer RAMSES)"},
      {"SF_PARAMS", "star formation (newer RAMSES)"},
      {"FEEDBACK_PARAMS", "stellar feedback (newer RAMSES)"},
      {"SINK_PARAMS", "sink particles"},
      {"CLUMPFIND_PARAMS", "clump finder"},
      {"RT_PARAMS", "radiative transfer"},
      {"MOVIE_PARAMS", "movie frames"},
      {"LIGHTCONE_PARAMS", "light cones"},
      {"TRACER_PARAMS", "tracer particles"},
  };
  return blocks;
}

const std::vector<UnimplementedParameter>& unimplemented_parameters() {
  static const std::vector<UnimplementedParameter> keys = build_unimplemented();
  return keys;
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

std::string schema_reference_markdown() {
  std::ostringstream md;
  for (const BlockSpec& block : schema_blocks()) {
    md << "### &" << block.name << "\n\n" << block.description << "\n\n";
    md << "| parameter | type | default | allowed | meaning |\n|---|---|---|---|---|\n";
    for (const ParameterSpec& spec : parameter_schema()) {
      if (spec.block != block.name) continue;
      md << "| `" << spec.name << "` | " << type_name(spec.type);
      if (spec.is_array()) md << " array(" << spec.length << ")";
      const std::string allowed = describe_allowed(spec);
      md << " | " << markdown_default(spec) << " | " << (allowed.empty() ? "any" : allowed) << " | " << spec.description
         << " |\n";
    }
    md << "\n";
    std::string pending;
    for (const UnimplementedParameter& key : unimplemented_parameters())
      if (key.block == block.name) pending += (pending.empty() ? "" : ", ") + ("`" + key.name + "`");
    if (!pending.empty()) md << "Recognised, not yet implemented: " << pending << ".\n\n";
  }
  md << "### Blocks recognised, not yet implemented\n\n";
  md << "Any of these blocks in a namelist stops the run with an error naming the block.\n\n";
  md << "| block | purpose | known RAMSES keys |\n|---|---|---|\n";
  for (const BlockSpec& block : unimplemented_blocks()) {
    std::string keys;
    for (const UnimplementedParameter& key : unimplemented_parameters())
      if (key.block == block.name) keys += (keys.empty() ? "" : ", ") + ("`" + key.name + "`");
    md << "| `&" << block.name << "` | " << block.description << " | " << (keys.empty() ? "-" : keys) << " |\n";
  }
  return md.str();
}

}  // namespace kosmo::core
