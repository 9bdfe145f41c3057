// region_condinit (hydro/init_flow_fine.f90) and the primitive -> conservative step of condinit
// (hydro/condinit.f90), one cell at a time.
#include "hydro/initial_regions.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "core/error.hpp"
#include "core/namelist_parser.hpp"
#include "hydro/hydro_settings.hpp"

namespace kosmo::hydro {
namespace {

// ParameterSet has typed getters for scalars and numeric arrays only; a resolved value is namelist
// syntax that parses back to the same values (ParameterSet::resolved), so read the array from it.
std::vector<std::string> string_array(const core::ParameterSet& params, std::string_view block, std::string_view name) {
  for (const core::ResolvedParameter& r : params.resolved()) {
    if (r.block != block || r.name != name) continue;
    const core::ParsedNamelist parsed =
        core::parse_namelist("&" + r.block + " " + r.name + " = " + r.value + " /", "(resolved " + r.name + ")");
    std::vector<std::string> out;
    for (const core::ValueToken& token : parsed.blocks.at(0).assignments.at(0).values)
      out.insert(out.end(), static_cast<std::size_t>(token.repeat), token.string_value);
    return out;
  }
  KOSMO_FAIL("init_regions: &" << block << " " << name << " is not in kosmo's schema");
}

}  // namespace

std::vector<InitRegion> init_regions(const core::ParameterSet& params) {
  const auto nregion = static_cast<std::size_t>(params.get_int("INIT_PARAMS", "nregion"));
  const std::vector<std::string> type = string_array(params, "INIT_PARAMS", "region_type");
  auto get = [&params](const char* key) { return params.get_real_array("INIT_PARAMS", key); };
  const std::vector<double> xc = get("x_center"), yc = get("y_center"), zc = get("z_center");
  const std::vector<double> lx = get("length_x"), ly = get("length_y"), lz = get("length_z");
  const std::vector<double> ex = get("exp_region");
  const std::vector<double> d = get("d_region"), u = get("u_region"), v = get("v_region"), w = get("w_region"),
                            p = get("p_region");
  KOSMO_REQUIRE(nregion <= type.size(), "init_regions: nregion = " << nregion << " exceeds MAXREGION");
  // var_region(i, n) comes flattened in Fortran order: (i - 1) + (n - 1) * MAXREGION.
  const std::vector<double> scalars = get("var_region");
  std::vector<InitRegion> regions(nregion);
  for (std::size_t i = 0; i < nregion; ++i) {
    regions[i] = {type[i], xc[i], yc[i], zc[i], lx[i], ly[i], lz[i], ex[i], d[i], u[i], v[i], w[i], p[i], {}};
    for (std::size_t n = 0; n < static_cast<std::size_t>(kMaxPassive); ++n)
      regions[i].scalars.push_back(scalars[i + n * static_cast<std::size_t>(core::kMaxRegion)]);
  }
  return regions;
}

int passive_scalar_count(const core::ParameterSet& params) {
  // &COOLING_PARAMS metal=.true.: the first scalar is the metallicity (RAMSES imetal), so there is one.
  // &FEEDBACK_PARAMS delayed_cooling=.true.: one more, after it (RAMSES idelay).
  const int metallicity = params.get_bool("COOLING_PARAMS", "metal") ? 1 : 0;
  const int reserved = metallicity + (params.get_bool("FEEDBACK_PARAMS", "delayed_cooling") ? 1 : 0);
  if (params.set_by_user("HYDRO_PARAMS", "npassive")) return std::max(reserved, static_cast<int>(params.get_int("HYDRO_PARAMS", "npassive")));
  int count = reserved;
  for (const InitRegion& region : init_regions(params))
    for (int n = 0; n < kMaxPassive; ++n)
      if (region.scalars[static_cast<std::size_t>(n)] != 0.0) count = std::max(count, n + 1);
  return count;
}

template <int D>
bool inside_square_region(const InitRegion& region, const std::array<double, D>& position) {
  const double centre[3] = {region.x_center, region.y_center, region.z_center};
  const double length[3] = {region.length_x, region.length_y, region.length_z};
  // RAMSES keeps all three normalised coordinates and leaves those beyond ndim at 0.
  double n[3] = {0.0, 0.0, 0.0};
  for (int k = 0; k < D; ++k) n[k] = 2.0 * std::fabs(position[static_cast<std::size_t>(k)] - centre[k]) / length[k];
  const double e = region.exp_region;
  const double r = e < 10.0 ? std::pow(std::pow(n[0], e) + std::pow(n[1], e) + std::pow(n[2], e), 1.0 / e)
                            : std::max({n[0], n[1], n[2]});
  return r < 1.0;
}

template <int D>
double point_region_weight(const InitRegion& region, const std::array<double, D>& cell_centre, double dx) {
  const double centre[3] = {region.x_center, region.y_center, region.z_center};
  double weight = 1.0;
  for (int k = 0; k < D; ++k)
    weight *= std::max(1.0 - std::fabs(cell_centre[static_cast<std::size_t>(k)] - centre[k]) / dx, 0.0);
  return weight;
}

template <int D>
void region_initial_state(const std::vector<InitRegion>& regions, double gamma, double smallr, double smallc,
                          int npassive, const std::array<double, D>& cell_centre, double dx, double* u_conservative) {
  // Primitive state q = [rho, v_0 .. v_{D-1}, p] and the scalars' concentrations s (0 by default).
  std::array<double, D + 2> q{};
  std::array<double, kMaxPassive> s{};
  KOSMO_REQUIRE(npassive >= 0 && npassive <= kMaxPassive, "region_initial_state: npassive = " << npassive << " outside 0.." << kMaxPassive);
  q[0] = smallr;
  q[D + 1] = smallr * smallc * smallc / gamma;
  const double volume = std::pow(dx, D);
  for (const InitRegion& region : regions) {
    const double velocity[3] = {region.u, region.v, region.w};
    if (region.type == "square") {
      if (!inside_square_region<D>(region, cell_centre)) continue;
      q[0] = region.d;
      for (int k = 0; k < D; ++k) q[static_cast<std::size_t>(1 + k)] = velocity[k];
      q[D + 1] = region.p;
      for (int n = 0; n < npassive; ++n) s[static_cast<std::size_t>(n)] = region.scalar(n);
    } else if (region.type == "point") {
      const double weight = point_region_weight<D>(region, cell_centre, dx);
      q[0] += region.d * weight / volume;
      for (int k = 0; k < D; ++k) q[static_cast<std::size_t>(1 + k)] += velocity[k] * weight;
      q[D + 1] += region.p * weight / volume;
      for (int n = 0; n < npassive; ++n) s[static_cast<std::size_t>(n)] = region.scalar(n);
    } else {
      KOSMO_FAIL("region_initial_state: unknown region_type '" << region.type
                                                               << "' (kosmo knows 'square' and 'point')");
    }
  }
  const double rho = q[0];
  double kinetic = 0.0;
  u_conservative[0] = rho;
  for (int k = 0; k < D; ++k) {
    const double vk = q[static_cast<std::size_t>(1 + k)];
    u_conservative[1 + k] = rho * vk;
    kinetic += 0.5 * rho * vk * vk;
  }
  u_conservative[D + 1] = kinetic + q[D + 1] / (gamma - 1.0);
  for (int n = 0; n < npassive; ++n) u_conservative[D + 2 + n] = rho * s[static_cast<std::size_t>(n)];
}

template bool inside_square_region<1>(const InitRegion&, const std::array<double, 1>&);
template double point_region_weight<1>(const InitRegion&, const std::array<double, 1>&, double);
template void region_initial_state<1>(const std::vector<InitRegion>&, double, double, double, int,
                                      const std::array<double, 1>&, double, double*);
template bool inside_square_region<2>(const InitRegion&, const std::array<double, 2>&);
template double point_region_weight<2>(const InitRegion&, const std::array<double, 2>&, double);
template void region_initial_state<2>(const std::vector<InitRegion>&, double, double, double, int,
                                      const std::array<double, 2>&, double, double*);
template bool inside_square_region<3>(const InitRegion&, const std::array<double, 3>&);
template double point_region_weight<3>(const InitRegion&, const std::array<double, 3>&, double);
template void region_initial_state<3>(const std::vector<InitRegion>&, double, double, double, int,
                                      const std::array<double, 3>&, double, double*);

}  // namespace kosmo::hydro
