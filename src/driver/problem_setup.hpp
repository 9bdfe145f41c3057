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

inline core::RefinementSettings refinement_settings(const core::ParameterSet& params) {
  core::RefinementSettings s;
  s.levelmin = static_cast<int>(params.get_int("AMR_PARAMS", "levelmin"));
  for (long long n : params.get_int_array("AMR_PARAMS", "nexpand")) s.nexpand.push_back(static_cast<int>(n));
  s.interpolation = static_cast<core::InterpolationType>(params.get_int("REFINE_PARAMS", "interpol_type"));
  return s;
}

// The geometric region of each level (index l - 1, as RAMSES' arrays).
inline std::vector<core::RefineRegion> refine_regions(const core::ParameterSet& params) {
  const auto x = params.get_real_array("REFINE_PARAMS", "x_refine");
  const auto y = params.get_real_array("REFINE_PARAMS", "y_refine");
  const auto z = params.get_real_array("REFINE_PARAMS", "z_refine");
  const auto r = params.get_real_array("REFINE_PARAMS", "r_refine");
  const auto a = params.get_real_array("REFINE_PARAMS", "a_refine");
  const auto b = params.get_real_array("REFINE_PARAMS", "b_refine");
  const auto e = params.get_real_array("REFINE_PARAMS", "exp_refine");
  std::vector<core::RefineRegion> regions(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) regions[i] = {x[i], y[i], z[i], r[i], a[i], b[i], e[i]};
  return regions;
}

}  // namespace kosmo::driver
