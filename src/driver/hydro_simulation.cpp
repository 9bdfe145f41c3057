#include "driver/hydro_simulation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "driver/problem_setup.hpp"
#include "hydro/boundary_conditions.hpp"
#include "hydro/equation_of_state.hpp"
#include "hydro/refinement_criteria.hpp"

namespace kosmo::driver {
namespace {

using Clock = std::chrono::steady_clock;

hydro::SchemeSettings scheme_settings(const core::ParameterSet& p) {
  hydro::SchemeSettings s;
  s.gamma = p.get_real("HYDRO_PARAMS", "gamma");
  s.smallr = p.get_real("HYDRO_PARAMS", "smallr");
  s.smallc = p.get_real("HYDRO_PARAMS", "smallc");
  s.slope_type = hydro::slope_type_from_int(static_cast<int>(p.get_int("HYDRO_PARAMS", "slope_type")));
  s.riemann = hydro::riemann_solver_from_name(p.get_string("HYDRO_PARAMS", "riemann"));
  s.npassive = static_cast<int>(p.get_int("HYDRO_PARAMS", "npassive"));
  s.niter_riemann = static_cast<int>(p.get_int("HYDRO_PARAMS", "niter_riemann"));
  return s;
}

template <int D>
typename hydro::HydroSolver<D>::Settings solver_settings(const core::ParameterSet& p) {
  KOSMO_REQUIRE(p.get_int("REFINE_PARAMS", "interpol_var") == 0,
                p.source() << ": &REFINE_PARAMS: interpol_var=" << p.get_int("REFINE_PARAMS", "interpol_var")
                           << " is not implemented yet: kosmo interpolates conservative variables (interpol_var=0)");
  typename hydro::HydroSolver<D>::Settings s;
  s.scheme = scheme_settings(p);
  s.courant_factor = p.get_real("HYDRO_PARAMS", "courant_factor");
  s.interpolation = static_cast<core::InterpolationType>(p.get_int("REFINE_PARAMS", "interpol_type"));
  s.boundaries = hydro::box_boundaries<D>(p);
  return s;
}

template <int D>
typename core::OctTree<D, core::MortonKey>::Geometry hydro_geometry(const core::ParameterSet& p) {
  auto g = mesh_geometry<D, core::MortonKey>(p);
  const auto boundaries = hydro::box_boundaries<D>(p);
  for (int d = 0; d < D; ++d) g.periodic[d] = boundaries.periodic(d);
  return g;
}

}  // namespace

template <int D>
HydroSimulation<D>::HydroSimulation(const core::ParameterSet& params)
    : params_(params),
      tree_(hydro_geometry<D>(params)),
      hydro_(tree_, solver_settings<D>(params)),
      refinement_(refinement_settings(params)),
      regions_(refine_regions(params)),
      init_regions_(hydro::init_regions(params)) {
  const int levelmin = levelmin_of(params);
  for (long long n : per_level(params.get_int_array("RUN_PARAMS", "nsubcycle"), levelmin, 1LL)) nsubcycle_.push_back(static_cast<int>(n));
  m_refine_ = per_level(params.get_real_array("REFINE_PARAMS", "m_refine"), levelmin, -1.0);
  gradients_ = hydro::gradient_criteria(params);
  mass_sph_ = params.get_real("REFINE_PARAMS", "mass_sph");
}

template <int D>
void HydroSimulation<D>::set_initial_state(Tree& tree) {
  const auto& s = hydro_.settings().scheme;
  const int nvar = hydro_.nvar();
  for (int l = 1; l <= tree.levelmax(); ++l) {
    const auto& octs = tree.octs_at_level(l);
    const double dx = tree.cell_size(l);
#pragma omp parallel
    {
      std::vector<double> u(static_cast<std::size_t>(nvar)), q(static_cast<std::size_t>(nvar), 0.0);
#pragma omp for schedule(static)
      for (std::size_t i = 0; i < octs.size(); ++i)
        for (int c = 0; c < Tree::cells_per_oct; ++c) {
          const core::CellIndex cell = Tree::cell_index(octs[i], c);
          if (initial_condition_) {
            initial_condition_(tree.cell_centre(cell), dx, q.data());
            hydro::primitive_to_conservative<D>(q.data(), u.data(), s);
          } else {
            hydro::region_initial_state<D>(init_regions_, s.gamma, s.smallr, s.smallc, s.npassive, tree.cell_centre(cell), dx, u.data());
          }
          for (int v = 0; v < nvar; ++v) tree.field(hydro_.uold_fields()[static_cast<std::size_t>(v)])[cell] = u[static_cast<std::size_t>(v)];
        }
    }
  }
}

// RAMSES hydro_flag + geometry_refine: gradient and mass criteria, masked by the level's region.
template <int D>
void HydroSimulation<D>::flag_cells(const Tree& tree, int level, std::vector<std::uint8_t>& flags) {
  const auto& s = hydro_.settings().scheme;
  const double m_refine = m_refine_[static_cast<std::size_t>(level - 1)];
  if (!gradients_.any() && m_refine <= -1.0) return;
  const core::RefineRegion& region = regions_[static_cast<std::size_t>(level - 1)];
  const auto& stencil = hydro_.stencils().get(tree, level);
  const double dx = tree.cell_size(level);
  const int nvar = hydro_.nvar();
  std::vector<const double*> u(static_cast<std::size_t>(nvar));
  for (int v = 0; v < nvar; ++v) u[static_cast<std::size_t>(v)] = tree.field(hydro_.uold_fields()[static_cast<std::size_t>(v)]);
#pragma omp parallel
  {
    std::vector<double> cell_u(static_cast<std::size_t>(nvar));
    auto primitive = [&](core::CellIndex cell) {
      for (int v = 0; v < nvar; ++v) cell_u[static_cast<std::size_t>(v)] = u[static_cast<std::size_t>(v)][cell];
      return hydro::refine_primitive<D>(cell_u.data(), s.gamma, s.smallr);
    };
#pragma omp for schedule(static)
    for (std::size_t i = 0; i < stencil.size(); ++i)
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(stencil.oct(i), c);
        bool refine = hydro::mass_refine(u[0][cell], dx, m_refine, mass_sph_);
        if (gradients_.any() && !refine) {
          const auto mid = primitive(cell);
          for (int d = 0; d < D && !refine; ++d) {
            const core::CellIndex left = stencil.face_neighbour(i, c, d, -1);
            const core::CellIndex right = stencil.face_neighbour(i, c, d, +1);
            refine = hydro::gradient_refine<D>(left == core::no_cell ? mid : primitive(left), mid,
                                               right == core::no_cell ? mid : primitive(right), gradients_);
          }
        }
        // The region of the level only permits refinement inside it (RAMSES geometry_refine).
        if (refine && region.restricts() && !region.contains<D>(tree.cell_centre(cell))) refine = false;
        if (refine) flags[cell] = 1;
      }
  }
}

template <int D>
void HydroSimulation<D>::regrid(int min_level) {
  if (tree_.levelmax() <= min_level) return;
  const auto start = Clock::now();
  core::regrid<D, Key>(tree_, refinement_,
                       [this](const Tree& t, int level, std::vector<std::uint8_t>& flags) { flag_cells(t, level, flags); },
                       min_level, &hydro_.stencils());
  timers_.add("refine", start);
}

template <int D>
void HydroSimulation<D>::initialise() {
  const auto start = Clock::now();
  core::build_initial_mesh<D, Key>(
      tree_, refinement_, [this](const Tree& t, int level, std::vector<std::uint8_t>& flags) { flag_cells(t, level, flags); },
      [this](Tree& t) { set_initial_state(t); });
  tree_.compact();
  timers_.add("initial conditions", start);
}

template <int D>
double HydroSimulation<D>::courant_time_step() const {
  double dt = std::numeric_limits<double>::max();
  double factor = 1.0;  // coarse step / level step
  const int levelmin = refinement_.levelmin;
  for (int l = 1; l <= tree_.levelmax(); ++l) {
    if (l > levelmin) factor *= nsubcycle_[static_cast<std::size_t>(l - 2)];
    if (l < levelmin || tree_.octs_at_level(l).empty()) continue;
    dt = std::min(dt, factor * hydro_.courant_time_step(l));
  }
  return dt;
}

template <int D>
void HydroSimulation<D>::advance(double dt) {
  // RAMSES compacts the pool (defragmentation) between coarse steps; here every 10 steps.
  if (step_ > 0 && step_ % 10 == 0) {
    const auto start = Clock::now();
    tree_.compact();
    timers_.add("refine", start);
  }
  amr_step(refinement_.levelmin, dt, 1);
  time_ += dt;
  ++step_;
}

// RAMSES amr_step: refine below this level (at the coarse level and at every later substep),
// advance the finer levels first, then this level's Godunov update, then restrict.
// The finer level takes nsubcycle substeps of dt / nsubcycle, each shortened to its own Courant
// limit measured at the start of that substep (and then as many more as it needs to reach the
// end of this level's step): the flow a fine level sees can change much within one coarse step
// (a shock forming from rest), so a coarse step computed once cannot bound it. Refluxing
// accumulates every fine substep, so conservation does not depend on their number.
template <int D>
void HydroSimulation<D>::amr_step(int level, double dt, int icount) {
  if (level == refinement_.levelmin || icount > 1) regrid(level);
  auto start = Clock::now();
  hydro_.set_unew(level);
  timers_.add("hydro - copy and restrict", start);
  if (level < tree_.levelmax() && !tree_.octs_at_level(level + 1).empty()) {
    const double nominal = dt / nsubcycle_[static_cast<std::size_t>(level - 1)];
    double remaining = dt;
    for (int substep = 1; remaining > 0.0; ++substep) {
      KOSMO_REQUIRE(substep <= 10000, "hydro: level " << level + 1 << " needed more than 10000 substeps within one step of level "
                                                       << level << " (time step collapsed; check the initial state)");
      start = Clock::now();
      double fine_dt = std::min({nominal, hydro_.courant_time_step(level + 1), remaining});
      timers_.add("courant time step", start);
      if (remaining - fine_dt <= 1e-12 * dt) fine_dt = remaining;
      amr_step(level + 1, fine_dt, substep);
      remaining -= fine_dt;
    }
  }
  start = Clock::now();
  const auto before = hydro_.timing();
  hydro_.godunov(level, dt);
  const auto after = hydro_.timing();
  timers_.add_seconds("hydro - stencil lookup", after.stencil - before.stencil);
  timers_.add_seconds("hydro - gather, fluxes, update", after.fluxes - before.fluxes);
  timers_.add_seconds("hydro - reflux", after.reflux - before.reflux);
  cell_updates_ += static_cast<long long>(tree_.octs_at_level(level).size()) * Tree::cells_per_oct;
  start = Clock::now();
  hydro_.set_uold(level);
  hydro_.restrict_onto(level);
  timers_.add("hydro - copy and restrict", start);
}

template <int D>
std::vector<DerivedOutput> HydroSimulation<D>::outputs() const {
  return {DerivedOutput{hydro_.output_fields(), [this](core::OctIndex o, double* out) { hydro_.output_values(o, out); }}};
}

template class HydroSimulation<1>;
template class HydroSimulation<2>;
template class HydroSimulation<3>;

}  // namespace kosmo::driver
