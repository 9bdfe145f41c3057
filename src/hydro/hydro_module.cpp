#include "hydro/hydro_module.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "cosmology/cosmological_model.hpp"
#include "hydro/boundary_conditions.hpp"
#include "hydro/equation_of_state.hpp"
#include "hydro/hydro_parameters.hpp"
#include "hydro/hydro_variables.hpp"
#include "hydro/thread_threshold.hpp"
#include "particles/exact_charge_sum.hpp"
#include "parallel/reflux_exchange.hpp"

namespace kosmo::hydro {
namespace {

using Clock = std::chrono::steady_clock;

SchemeSettings scheme_settings(const core::ParameterSet& p) {
  SchemeSettings s;
  s.gamma = p.get_real("HYDRO_PARAMS", "gamma");
  s.smallr = p.get_real("HYDRO_PARAMS", "smallr");
  s.smallc = p.get_real("HYDRO_PARAMS", "smallc");
  s.slope_type = slope_type_from_int(static_cast<int>(p.get_int("HYDRO_PARAMS", "slope_type")));
  s.riemann = riemann_solver_from_name(p.get_string("HYDRO_PARAMS", "riemann"));
  s.npassive = passive_scalar_count(p);
  s.metallicity = p.get_bool("COOLING_PARAMS", "metal");
  s.niter_riemann = static_cast<int>(p.get_int("HYDRO_PARAMS", "niter_riemann"));
  s.pressure_fix = pressure_fix_enabled(p);
  s.beta_fix = p.get_real("HYDRO_PARAMS", "beta_fix");
  s.energy_floor = s.pressure_fix;
  return s;
}

}  // namespace

template <int D>
typename HydroSolver<D>::Settings solver_settings(const core::ParameterSet& p) {
  KOSMO_REQUIRE(p.get_int("REFINE_PARAMS", "interpol_var") <= 1,
                p.source() << ": &REFINE_PARAMS: interpol_var=" << p.get_int("REFINE_PARAMS", "interpol_var")
                           << " is not implemented yet: kosmo interpolates conservative variables (interpol_var=0) or "
                              "rho, rho v and the internal energy (interpol_var=1)");
  typename HydroSolver<D>::Settings s;
  s.scheme = scheme_settings(p);
  s.courant_factor = p.get_real("HYDRO_PARAMS", "courant_factor");
  s.interpolation = static_cast<core::InterpolationType>(p.get_int("REFINE_PARAMS", "interpol_type"));
  s.interpol_var = static_cast<int>(p.get_int("REFINE_PARAMS", "interpol_var"));
  s.boundaries = box_boundaries<D>(p);
  return s;
}

template <int D>
HydroModule<D>::HydroModule(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh, core::Timers& timers)
    : tree_(tree),
      mesh_(mesh),
      timers_(timers),
      solver_(tree, solver_settings<D>(params)),
      init_regions_(init_regions(params)),
      gradients_(gradient_criteria(params)),
      jeans_(jeans_criterion(params)),
      barotrope_(barotropic_eos(params)) {}

template <int D>
void HydroModule<D>::connect(const std::vector<core::PhysicsModule<D>*>& /*modules*/) {
  // Gravity's acceleration, if a module registered it: the Godunov predictor and the kicks read it.
  std::array<int, D> acceleration{};
  for (int d = 0; d < D; ++d) acceleration[static_cast<std::size_t>(d)] = tree_.fields().find(std::string("acceleration_") + axis_letter(d));
  if (acceleration[0] < 0) return;
  jeans_.gravity = true;
  solver_.set_gravity(acceleration);
  // Not in analysis snapshots; a restart that lacks it (a RAMSES-format output) recomputes the
  // forces, as it does for the potential itself.
  pending_kick_ = tree_.add_field(core::scalar_field("gravity_half_kick_time", "code_time")
                                      .owned_by("hydro")
                                      .comoving(2)
                                      .restart_only(core::MissingInRestart::recompute));
  // The force update kicks uold: its ghosts are refreshed after the kicks too.
  for (int field : solver_.uold_fields()) tree_.add_ghost_stage(field, core::GhostStage::after_kicks);
}

template <int D>
void HydroModule<D>::set_initial_state() {
  const auto& s = solver_.settings().scheme;
  const int nvar = solver_.nvar();
  for (int l = 1; l <= tree_.levelmax(); ++l) {
    // Ghosts too: the state is analytic, so a ghost gets exactly its owner's values.
    std::vector<core::OctIndex> octs(tree_.octs_at_level(l).begin(), tree_.octs_at_level(l).end());
    octs.insert(octs.end(), tree_.ghost_octs_at_level(l).begin(), tree_.ghost_octs_at_level(l).end());
    const double dx = tree_.cell_size(l);
#pragma omp parallel
    {
      std::vector<double> u(static_cast<std::size_t>(nvar)), q(static_cast<std::size_t>(nvar), 0.0);
#pragma omp for schedule(static)
      for (std::size_t i = 0; i < octs.size(); ++i)
        for (int c = 0; c < Tree::cells_per_oct; ++c) {
          const core::CellIndex cell = Tree::cell_index(octs[i], c);
          if (initial_condition_) {
            initial_condition_(tree_.cell_centre(cell), dx, q.data());
            primitive_to_conservative<D>(q.data(), u.data(), s);
          } else {
            region_initial_state<D>(init_regions_, s.gamma, s.smallr, s.smallc, s.npassive, tree_.cell_centre(cell), dx, u.data());
          }
          for (int v = 0; v < nvar; ++v) tree_.field(solver_.uold_fields()[static_cast<std::size_t>(v)])[cell] = u[static_cast<std::size_t>(v)];
        }
    }
  }
}

// RAMSES hydro_flag: the gradient criteria (err_grad_*) on the primitive variables, then the
// Jeans-length criterion (jeans_refine) in runs with gravity.
template <int D>
void HydroModule<D>::flag_cells(int level, std::vector<std::uint8_t>& flags) {
  if (jeans_.on(level)) flag_by_jeans_length(level, flags);
  if (!gradients_.any()) return;
  const auto& s = solver_.settings().scheme;
  const auto& stencil = solver_.stencils().get(tree_, level);
  const int nvar = solver_.nvar();
  std::vector<const double*> u(static_cast<std::size_t>(nvar));
  for (int v = 0; v < nvar; ++v) u[static_cast<std::size_t>(v)] = tree_.field(solver_.uold_fields()[static_cast<std::size_t>(v)]);
#pragma omp parallel
  {
    std::vector<double> cell_u(static_cast<std::size_t>(nvar));
    auto primitive = [&](core::CellIndex cell) {
      for (int v = 0; v < nvar; ++v) cell_u[static_cast<std::size_t>(v)] = u[static_cast<std::size_t>(v)][cell];
      return refine_primitive<D>(cell_u.data(), s.gamma, s.smallr);
    };
#pragma omp for schedule(static)
    for (std::size_t i = 0; i < stencil.size(); ++i)
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(stencil.oct(i), c);
        if (flags[cell]) continue;
        const auto mid = primitive(cell);
        bool refine = false;
        for (int d = 0; d < D && !refine; ++d) {
          const core::CellIndex left = stencil.face_neighbour(i, c, d, -1);
          const core::CellIndex right = stencil.face_neighbour(i, c, d, +1);
          refine = gradient_refine<D>(left == core::no_cell ? mid : primitive(left), mid, right == core::no_cell ? mid : primitive(right),
                                      gradients_);
        }
        if (refine) flags[cell] = 1;
      }
  }
}

template <int D>
void HydroModule<D>::flag_by_jeans_length(int level, std::vector<std::uint8_t>& flags) const {
  const auto& s = solver_.settings().scheme;
  const double n_jeans = jeans_.at_level(level);
  const double dx = tree_.cell_size(level);
  const int nvar = solver_.nvar();
  std::vector<const double*> u(static_cast<std::size_t>(nvar));
  for (int v = 0; v < nvar; ++v) u[static_cast<std::size_t>(v)] = tree_.field(solver_.uold_fields()[static_cast<std::size_t>(v)]);
  const auto& octs = tree_.octs_at_level(level);
#pragma omp parallel
  {
    std::vector<double> cell_u(static_cast<std::size_t>(nvar));
#pragma omp for schedule(static)
    for (std::size_t i = 0; i < octs.size(); ++i)
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(octs[i], c);
        if (flags[cell]) continue;
        for (int v = 0; v < nvar; ++v) cell_u[static_cast<std::size_t>(v)] = u[static_cast<std::size_t>(v)][cell];
        const double rho = std::max(cell_u[0], s.smallr);
        // With a barotrope the state's p / rho is the barotrope's after every step (impose_barotrope);
        // taking it from the density also covers cells just made by refinement.
        const double c2 = barotrope_ ? std::max(barotrope_->temperature(rho) / barotrope_->scale_t2, s.smallc * s.smallc)
                                     : jeans_sound_speed_squared<D>(cell_u.data(), s.gamma, s.smallr, s.smallc);
        if (jeans_refine_cell(dx, rho, c2, n_jeans, jeans_.poisson_factor)) flags[cell] = 1;
      }
  }
}

template <int D>
void HydroModule<D>::update_forces(int /*level*/, std::optional<double> time) {
  // RAMSES factG = 3 omega_m aexp / (8 pi): the Poisson factor of the latest solve's time. Before
  // the run's first timed solve (initial refinement, a restart's first regrid) the factor stays at
  // its previous value (4 pi, then the latest).
  if (cosmology_ && time) jeans_.poisson_factor = cosmology_->poisson_factor(*time);
}

template <int D>
double HydroModule<D>::time_step_limit(int level) const {
  if (tree_.octs_at_level(level).empty()) return std::numeric_limits<double>::max();
  return solver_.courant_time_step(level);
}

// The previous step's second half kick used the force of its start: the force update replaces it
// by one with the force of its end (for a constant analytic field the two cancel exactly).
template <int D>
void HydroModule<D>::before_force_update(int level) {
  if (pending_kick_ >= 0) solver_.gravity_kick(level, -1.0, pending_kick_);
}

template <int D>
void HydroModule<D>::after_force_update(int level) {
  if (pending_kick_ >= 0) solver_.gravity_kick(level, 1.0, pending_kick_);
}

template <int D>
void HydroModule<D>::begin_level_step(int level) {
  const auto start = Clock::now();
  solver_.set_unew(level);
  timers_.add("hydro - copy and restrict", start);
}

template <int D>
std::size_t HydroModule<D>::advance(int level, double dt) {
  const auto before = solver_.timing();
  solver_.godunov(level, dt);
  const auto after = solver_.timing();
  timers_.add_seconds("hydro - stencil lookup", after.stencil - before.stencil);
  timers_.add_seconds("hydro - gather, fluxes, update", after.fluxes - before.fluxes);
  return tree_.octs_at_level(level).size() * Tree::cells_per_oct;
}

template <int D>
void HydroModule<D>::source_terms(int level, double dt) {
  const auto before = solver_.timing();
  parallel::exchange_reflux(mesh_, tree_, level, solver_.flux_width(), solver_.pending_reflux(), solver_.pending_reflux_values());
  solver_.apply_reflux();
  timers_.add_seconds("hydro - reflux", solver_.timing().reflux - before.reflux);
  const auto start = Clock::now();
  solver_.set_uold(level, dt);
  // RAMSES: the second half kick of the step (synchro_hydro_fine(+dt/2)) before the restriction,
  // which overwrites refined cells with their sons' kicked gas. The whole step's kick with this
  // step's force: its first half for good (add_gravity_source_terms) and its second half
  // provisionally, so that the state between steps is synchronised.
  if (pending_kick_ >= 0) {
    // On ghosts too (the level's dt is the same on every rank): a regrid prolongates this field into
    // new octs from their neighbours, ghosts included, and ghosts of unchanged octs are not
    // refreshed after a regrid (parallel/distributed_mesh_changes.cpp).
    double* pending = tree_.field(pending_kick_);
    for (const auto* octs : {&tree_.octs_at_level(level), &tree_.ghost_octs_at_level(level)}) {
#pragma omp parallel for schedule(static) if (worth_threads(octs->size()))
      for (std::size_t i = 0; i < octs->size(); ++i) std::fill_n(pending + Tree::cell_index((*octs)[i], 0), Tree::cells_per_oct, 0.5 * dt);
    }
    solver_.gravity_kick(level, 2.0, pending_kick_);
  }
  solver_.restrict_onto(level);
  if (solver_.settings().scheme.energy_floor) solver_.apply_energy_floor(level, HydroSolver<D>::FloorCause::update);
  timers_.add("hydro - copy and restrict", start);
  // RAMSES calls cooling_fine after the restriction (amr_step), on the leaf cells of the level.
  if (barotrope_) impose_barotrope(level);
}

// New octs of a regrid carry conservatively prolongated gas, whose internal energy can be negative
// (hydro_energy_floor.cpp says why): the floor acts before any step reads them.
template <int D>
void HydroModule<D>::before_regrid() {
  if (solver_.settings().interpol_var == 1) solver_.store_internal_energy_for_regrid();
  internal_energy_stored_ = true;
}

template <int D>
void HydroModule<D>::after_regrid() {
  // Only after a regrid of the running mesh: the initial passes and compactions call after_regrid
  // alone (the initial state is set analytically, a compaction interpolates nothing).
  if (solver_.settings().interpol_var == 1 && internal_energy_stored_) solver_.rebuild_energy_after_regrid();
  internal_energy_stored_ = false;
  if (solver_.settings().scheme.energy_floor) solver_.apply_energy_floor_all_levels(HydroSolver<D>::FloorCause::refinement);
}

template <int D>
void HydroModule<D>::impose_barotrope(int level) {
  const double smallr = solver_.settings().scheme.smallr;
  const double gamma = solver_.settings().scheme.gamma;
  const auto& fields = solver_.uold_fields();
  const double* rho = tree_.field(fields[0]);
  double* energy = tree_.field(fields[static_cast<std::size_t>(D + 1)]);
  std::array<const double*, D> momentum{};
  for (int d = 0; d < D; ++d) momentum[static_cast<std::size_t>(d)] = tree_.field(fields[static_cast<std::size_t>(1 + d)]);
  const auto& octs = tree_.octs_at_level(level);
  const BarotropicEos eos = *barotrope_;
#pragma omp parallel for schedule(static) if (worth_threads(octs.size()))
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(octs[i], c);
      if (!tree_.is_leaf(cell)) continue;
      const double density = std::max(rho[cell], smallr);
      double kinetic = 0.0;
      for (int d = 0; d < D; ++d) kinetic += 0.5 * momentum[static_cast<std::size_t>(d)][cell] * momentum[static_cast<std::size_t>(d)][cell] / density;
      energy[cell] = eos.internal_energy(density, gamma) + kinetic;
    }
}

template <int D>
double HydroModule<D>::total_mass() const {
  // Summed exactly, as the particles' mass (particles/exact_charge_sum.hpp): gravity subtracts the
  // mean density from every cell, and a floating-point sum grouped by rank made the rank counts
  // differ by round-off that the orbits then amplify.
  const double* rho = tree_.field(solver_.uold_fields()[0]);
  auto for_each_leaf_mass = [&](auto&& use) {
    for (int l = 1; l <= tree_.levelmax(); ++l) {
      double volume = 1.0;
      for (int d = 0; d < D; ++d) volume *= tree_.cell_size(l);
      for (core::OctIndex o : tree_.octs_at_level(l))
        for (int c = 0; c < Tree::cells_per_oct; ++c) {
          const core::CellIndex cell = Tree::cell_index(o, c);
          if (tree_.is_leaf(cell)) use(rho[cell] * volume);
        }
    }
  };
  double largest = 0.0;
  for_each_leaf_mass([&](double mass) { largest = std::max(largest, mass); });
  largest = mesh_.max(largest);
  const particles::ExactChargeSum exact(largest);
  particles::ExactChargeSum::Integer sum = 0;
  for_each_leaf_mass([&](double mass) { sum += exact.quantise(mass); });
  // Integers below 2^53 in each limb: the sums over ranks are exact in any order.
  return exact.value(mesh_.sum(particles::ExactChargeSum::low_limb(sum)), mesh_.sum(particles::ExactChargeSum::high_limb(sum)));
}

template <int D>
void HydroModule<D>::add_density(int level, double* density) const {
  const double* rho = tree_.field(solver_.uold_fields()[0]);
  const auto& octs = tree_.octs_at_level(level);
#pragma omp parallel for schedule(static) if (worth_threads(octs.size()))
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(octs[i], c);
      density[cell] += rho[cell];
    }
}

template <int D>
void HydroModule<D>::add_source_density(int level, double* density) {
  add_density(level, density);
}

template <int D>
void HydroModule<D>::add_refinement_density(int level, double* density) {
  add_density(level, density);
}

// Calls visit(cell, volume) for every owned leaf cell, level by level in oct order (serial: the sums
// the visitors make do not depend on threads).
template <int D>
template <class Visit>
void HydroModule<D>::for_each_leaf(Visit&& visit) const {
  for (int level = 1; level <= tree_.levelmax(); ++level) {
    double volume = 1.0;
    for (int d = 0; d < D; ++d) volume *= tree_.cell_size(level);
    for (core::OctIndex o : tree_.octs_at_level(level))
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(o, c);
        if (tree_.is_leaf(cell)) visit(cell, volume);
      }
  }
}

template <int D>
void HydroModule<D>::add_mass_moments(std::array<double, D + 1>& sums) const {
  const double* rho = tree_.field(solver_.uold_fields()[0]);
  for_each_leaf([&](core::CellIndex cell, double volume) {
    const double m = rho[cell] * volume;
    const auto x = tree_.cell_centre(cell);
    sums[0] += m;
    for (int d = 0; d < D; ++d) sums[static_cast<std::size_t>(d) + 1] += m * x[static_cast<std::size_t>(d)];
  });
}

template <int D>
double HydroModule<D>::local_potential_energy(int potential, double self_factor, const ExternalPotential& external) const {
  const double* rho = tree_.field(solver_.uold_fields()[0]);
  const double* phi = tree_.field(potential);
  double energy = 0.0;
  for_each_leaf([&](core::CellIndex cell, double volume) {
    double e = 0.0;
    if (self_factor != 0.0) e += self_factor * rho[cell] * phi[cell];
    if (external) e += rho[cell] * external(tree_.cell_centre(cell));
    energy += e * volume;
  });
  return energy;
}

template <int D>
void HydroModule<D>::add_conserved_totals(std::vector<double>& sums) const {
  const std::vector<double> gas = solver_.totals();
  if (sums.size() < gas.size()) sums.resize(gas.size(), 0.0);
  for (std::size_t v = 0; v < gas.size(); ++v) sums[v] += gas[v];
}

template <int D>
std::vector<core::DerivedOutput> HydroModule<D>::derived_outputs() const {
  return {core::DerivedOutput{solver_.output_fields(), [this](core::OctIndex o, double* out) { solver_.output_values(o, out); }}};
}

template class HydroModule<1>;
template class HydroModule<2>;
template class HydroModule<3>;
template HydroSolver<1>::Settings solver_settings<1>(const core::ParameterSet&);
template HydroSolver<2>::Settings solver_settings<2>(const core::ParameterSet&);
template HydroSolver<3>::Settings solver_settings<3>(const core::ParameterSet&);

}  // namespace kosmo::hydro
