#pragma once
// Mesh geometry and refinement settings from the namelist, shared by every problem.
#include "core/oct_tree.hpp"
#include "core/parameters.hpp"
#include "core/refine_region.hpp"
#include "core/refinement.hpp"

namespace kosmo::driver {

template <int D, class Key>
typename core::OctTree<D, Key>::Geometry mesh_geometry(const core::ParameterSet& params) {
  typename core::OctTree<D, Key>::Geometry g;
  g.levelmax = static_cast<int>(params.get_int("AMR_PARAMS", "levelmax"));
  const char* axes[3] = {"nx", "ny", "nz"};
  for (int d = 0; d < D; ++d) {
    g.coarse_cells[d] = params.get_int("AMR_PARAMS", axes[d]);
    g.periodic[d] = true;  // &BOUNDARY_PARAMS arrives with hydro
  }
  g.boxlen = params.get_real("AMR_PARAMS", "boxlen");
  return g;
}

// RAMSES read_params shifts every per-level array so that its first element applies to levelmin
// (nexpand, nsubcycle, m_refine and the *_refine region arrays); levels below levelmin take
// `below`. The result is indexed by level - 1.
template <class T>
std::vector<T> per_level(const std::vector<T>& values, int levelmin, T below) {
  std::vector<T> shifted(values.size(), below);
  for (std::size_t l = static_cast<std::size_t>(levelmin); l <= values.size(); ++l) shifted[l - 1] = values[l - static_cast<std::size_t>(levelmin)];
  return shifted;
}

inline int levelmin_of(const core::ParameterSet& params) { return static_cast<int>(params.get_int("AMR_PARAMS", "levelmin")); }

inline core::RefinementSettings refinement_settings(const core::ParameterSet& params) {
  core::RefinementSettings s;
  s.levelmin = levelmin_of(params);
  for (long long n : per_level(params.get_int_array("AMR_PARAMS", "nexpand"), s.levelmin, 1LL)) s.nexpand.push_back(static_cast<int>(n));
  s.interpolation = static_cast<core::InterpolationType>(params.get_int("REFINE_PARAMS", "interpol_type"));
  return s;
}

// The geometric region of each level (index l - 1, shifted as RAMSES does).
inline std::vector<core::RefineRegion> refine_regions(const core::ParameterSet& params) {
  const int levelmin = levelmin_of(params);
  auto array = [&](const char* name, double below) { return per_level(params.get_real_array("REFINE_PARAMS", name), levelmin, below); };
  const auto x = array("x_refine", 0.0);
  const auto y = array("y_refine", 0.0);
  const auto z = array("z_refine", 0.0);
  const auto r = array("r_refine", -1.0);
  const auto a = array("a_refine", 1.0);
  const auto b = array("b_refine", 1.0);
  const auto e = array("exp_refine", 2.0);
  std::vector<core::RefineRegion> regions(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) regions[i] = {x[i], y[i], z[i], r[i], a[i], b[i], e[i]};
  return regions;
}

}  // namespace kosmo::driver
