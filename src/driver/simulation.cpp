#include "driver/simulation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "cooling/cooling_module.hpp"
#include "core/error.hpp"
#include "driver/problem_setup.hpp"
#include "io/snapshot_writer.hpp"
#include "hydro/boundary_conditions.hpp"
#include "hydro/refinement_criteria.hpp"
#include "hydro/initial_regions.hpp"
#include "parallel/cost_function.hpp"
#include "sinks/agn_feedback_module.hpp"
#include "sinks/sink_module.hpp"
#include "star_formation/star_formation_module.hpp"
#include "star_formation/star_formation_parameters.hpp"
#include "tracers/tracer_module.hpp"
#include "feedback/feedback_module.hpp"

namespace kosmo::driver {
namespace {

using Clock = std::chrono::steady_clock;

// The timer line of the distributed mesh's update after a regrid (either mesh_update path); the
// load balance's redistribution is timed under "load balance".
constexpr const char* mesh_update_timer = "refine - exchange mesh changes";

template <int D>
typename core::OctTree<D, core::MortonKey>::Geometry box_geometry(const core::ParameterSet& p) {
  auto g = mesh_geometry<D, core::MortonKey>(p);
  const auto boundaries = hydro::box_boundaries<D>(p);
  for (int d = 0; d < D; ++d) g.periodic[d] = boundaries.periodic(d);
  return g;
}

}  // namespace

template <int D>
Simulation<D>::Simulation(const core::ParameterSet& params, MPI_Comm comm)
    : params_(params),
      mesh_(comm, params.get_string("RUN_PARAMS", "exchange_method"), params.get_string("RUN_PARAMS", "ordering")),
      tree_(box_geometry<D>(params)),
      refinement_(refinement_settings(params)),
      regions_(refine_regions(params)) {
  const int levelmin = levelmin_of(params);
  for (long long n : per_level(params.get_int_array("RUN_PARAMS", "nsubcycle"), levelmin, 1LL)) nsubcycle_.push_back(static_cast<int>(n));
  m_refine_ = per_level(params.get_real_array("REFINE_PARAMS", "m_refine"), levelmin, -1.0);
  mass_sph_ = params.get_real("REFINE_PARAMS", "mass_sph");
  if (mass_sph_ == 0.0 && params.get_bool("RUN_PARAMS", "cosmo")) {
    // Cosmological runs: m_refine counts in units of the mean (total) mass of a levelmin cell, so
    // m_refine=8 refines cells holding eight particles' worth of matter (quasi-Lagrangian, as the
    // m_refine of RAMSES cosmological namelists is used).
    double cells = 1.0;
    for (int d = 0; d < D; ++d) cells *= static_cast<double>(tree_.extent(levelmin)[static_cast<std::size_t>(d)]) * 2.0;
    const double boxlen = params.get_real("AMR_PARAMS", "boxlen");
    mass_sph_ = std::pow(boxlen, D) / cells;
  }
  nremap_ = params.get_int("RUN_PARAMS", "nremap");
  incremental_mesh_updates_ = params.get_string("RUN_PARAMS", "mesh_update") == "incremental";
  // memory_balance = .false.: RAMSES' classic cost, one per cell. seeds/000 eq. 5 counts RAMSES'
  // hydro variables (nvar = D + 2 + npassive) whatever modules the run has, as the paper does.
  const int nvar = D + 2 + hydro::passive_scalar_count(params);
  oct_cost_ = params.get_bool("RUN_PARAMS", "memory_balance")
                  ? parallel::memory_weights(D, nvar, params.get_real("AMR_PARAMS", "mem_weight_grid")).w_grid
                  : static_cast<double>(Tree::cells_per_oct);
  // A particle's cost: its memory (seeds/000 eq. 4), or RAMSES' 80 + n_part per grid, in which a
  // particle weighs 1/80 of an oct.
  particle_cost_ = params.get_bool("RUN_PARAMS", "memory_balance") ? params.get_real("AMR_PARAMS", "mem_weight_part")
                                                                    : static_cast<double>(Tree::cells_per_oct) / 80.0;
  time_balance_alpha_ = params.get_real("AMR_PARAMS", "time_balance_alpha");
  level_seconds_.assign(static_cast<std::size_t>(tree_.levelmax()) + 1, 0.0);
  level_cells_.assign(static_cast<std::size_t>(tree_.levelmax()) + 1, 0.0);
  level_time_steps_.assign(static_cast<std::size_t>(tree_.levelmax()), 0.0);
  if (mesh_.distributed()) mesh_.classify_coarse_grid(tree_);
  // The modules of &RUN_PARAMS, in the order their fields are registered and their stages run.
  if (params.get_bool("RUN_PARAMS", "hydro")) add_module(std::make_unique<hydro::HydroModule<D>>(params, tree_, mesh_, timers_));
  if (params.get_bool("RUN_PARAMS", "hydro") && params.get_bool("COOLING_PARAMS", "cooling")) add_module(std::make_unique<cooling::CoolingModule<D>>(params, tree_, mesh_, timers_));
  if (params.get_bool("RUN_PARAMS", "poisson")) add_module(std::make_unique<gravity::LevelGravity<D>>(params, tree_, mesh_, timers_));
  if (params.get_bool("RUN_PARAMS", "pic")) {
    add_module(std::make_unique<LevelParticles<D>>(params, tree_, mesh_, timers_));
    find_module<LevelParticles<D>>()->set_refinement_mass_unit(mass_sph_);
    // Tracers ride in the particles' set and move after them in each level step (docs/tracers.md).
    if (params.get_bool("RUN_PARAMS", "tracer"))
      add_module(std::make_unique<tracers::TracerModule<D>>(params, tree_, mesh_, timers_, particles()->set()));
    // Stars ride in the particles' set too; the feedback module that takes their supernovae comes after.
    if (star_formation::star_formation_on(params))
      add_module(std::make_unique<star_formation::StarFormationModule<D>>(params, tree_, mesh_, timers_, particles()->set()));
  }
  if (params.get_bool("RUN_PARAMS", "sink")) add_module(std::make_unique<sinks::SinkModule<D>>(params, tree_, mesh_, timers_));
  if (params.get_bool("RUN_PARAMS", "sink") && params.get_bool("SINK_PARAMS", "agn")) add_module(std::make_unique<sinks::AgnFeedbackModule<D>>(params, tree_, mesh_, timers_));
  // After star formation, whose supernova events it injects in the same level step.
  if (params.get_bool("RUN_PARAMS", "hydro")) add_module(std::make_unique<feedback::FeedbackModule<D>>(params, tree_, mesh_, timers_));
}

template <int D>
void Simulation<D>::add_module(std::unique_ptr<Module> module) {
  KOSMO_REQUIRE(!connected_, "simulation: module '" << module->name() << "' added after the run started");
  modules_.push_back(std::move(module));
}

template <int D>
hydro::HydroSolver<D>& Simulation<D>::hydro() {
  auto* module = find_module<hydro::HydroModule<D>>();
  KOSMO_REQUIRE(module, params_.source() << ": &RUN_PARAMS: this run has no gas (hydro=.false.)");
  return module->solver();
}

template <int D>
const hydro::HydroSolver<D>& Simulation<D>::hydro() const {
  return const_cast<Simulation<D>*>(this)->hydro();
}

template <int D>
void Simulation<D>::set_initial_condition(InitialCondition condition) {
  auto* module = find_module<hydro::HydroModule<D>>();
  KOSMO_REQUIRE(module, params_.source() << ": &RUN_PARAMS: an initial gas state needs hydro=.true.");
  module->set_initial_condition(std::move(condition));
}

template <int D>
void Simulation<D>::set_cosmology(std::shared_ptr<const cosmology::CosmologicalModel> model) {
  cosmology_ = std::move(model);
  for_each_module([this](Module& m) { m.set_cosmology(cosmology_.get()); });
}

template <int D>
void Simulation<D>::set_initial_particles(particles::ParticleSet<D> particles) {
  auto* module = find_module<LevelParticles<D>>();
  KOSMO_REQUIRE(module, params_.source() << ": &RUN_PARAMS: initial particles need pic=.true.");
  module->set_initial(particles);
}

template <int D>
void Simulation<D>::refresh_ghosts(int level, core::GhostStage stage) {
  const std::vector<int>& fields = ghost_fields_[stage_index(stage)];
  if (fields.empty() || !mesh_.distributed()) return;
  const auto start = Clock::now();
  mesh_.exchange_fields(tree_, level, fields);
  timers_.add("ghost exchange", start);
}

// The mass criterion (RAMSES m_refine, with the Poisson source's mass: gas plus particles). The
// density scratch is kept between calls and cleared on the level's owned cells only, which are the
// only ones the modules add to.
template <int D>
void Simulation<D>::flag_by_mass(int level, std::vector<std::uint8_t>& wanted) {
  const double m_refine = m_refine_[static_cast<std::size_t>(level - 1)];
  if (!(m_refine > -1.0)) return;
  refinement_density_.resize(std::max(refinement_density_.size(), tree_.oct_capacity() * Tree::cells_per_oct));
  double* density = refinement_density_.data();
  const auto& octs = tree_.octs_at_level(level);
  for (core::OctIndex o : octs) std::fill_n(density + Tree::cell_index(o, 0), Tree::cells_per_oct, 0.0);
  for_each_module([&](Module& m) { m.add_refinement_density(level, density); });  // collective
  const double dx = tree_.cell_size(level);
  for (core::OctIndex o : octs)
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(o, c);
      if (hydro::mass_refine(density[cell], dx, m_refine, mass_sph_)) wanted[cell] = 1;
    }
}

// RAMSES flag_fine: every module's criteria and the mass criterion, masked by the level's region
// (RAMSES geometry_refine: the region only permits refinement inside it).
template <int D>
void Simulation<D>::flag_cells(const Tree& tree, int level, std::vector<std::uint8_t>& flags) {
  // The criteria's own flags, apart from those regrid already holds (fathers of finer refinement
  // and their buffer), which the region must not clear. Kept between calls; cleared on the level's owned cells.
  std::vector<std::uint8_t>& wanted = wanted_flags_;
  wanted.resize(std::max(wanted.size(), flags.size()));
  for (core::OctIndex o : tree.octs_at_level(level)) std::fill_n(wanted.begin() + static_cast<std::ptrdiff_t>(Tree::cell_index(o, 0)), Tree::cells_per_oct, 0);
  flag_by_mass(level, wanted);
  for_each_module([&](Module& m) { m.flag_cells(level, wanted); });
  const core::RefineRegion& region = regions_[static_cast<std::size_t>(level - 1)];
  for (core::OctIndex o : tree.octs_at_level(level))
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(o, c);
      if (!wanted[cell]) continue;
      if (region.restricts() && !region.contains<D>(tree.cell_centre(cell))) continue;
      flags[cell] = 1;
    }
}

template <int D>
core::RegridCounts Simulation<D>::regrid_and_redistribute(int min_level) {
  const core::FlagSynchroniser synchronise = [this](int level, std::vector<std::uint8_t>& flags) {
    mesh_.exchange_flags(tree_, level, flags);
  };
  core::StencilCaches<D, Key>* shared = nullptr;  // the first module's caches, if one keeps them
  for (const auto& m : modules_)
    if (!shared) shared = m->stencil_caches();
  const auto counts = core::regrid<D, Key>(
      tree_, refinement_, [this](const Tree& t, int level, std::vector<std::uint8_t>& flags) { flag_cells(t, level, flags); },
      min_level, shared, mesh_.distributed() ? &synchronise : nullptr);
  if (!mesh_.distributed()) return counts;
  // The mesh changed somewhere iff it changed on some rank; only then are ghosts stale.
  core::RegridCounts global;
  global.created = static_cast<std::size_t>(mesh_.sum(static_cast<long long>(counts.created)));
  global.destroyed = static_cast<std::size_t>(mesh_.sum(static_cast<long long>(counts.destroyed)));
  if (global.changed()) {
    const auto start = Clock::now();
    if (incremental_mesh_updates_) {
      mesh_.apply_mesh_changes(tree_, counts.created_octs, counts.restricted_octs);
    } else {
      mesh_.redistribute(tree_);
    }
    timers_.add(mesh_update_timer, start);
  }
  return global;
}

template <int D>
void Simulation<D>::regrid(int min_level) {
  if (tree_.levelmax() <= min_level) return;
  const auto start = Clock::now();
  const double recorded = timers_.recorded();
  for_each_module([](Module& m) { m.before_regrid(); });
  regrid_and_redistribute(min_level);
  for_each_module([](Module& m) { m.after_regrid(); });
  // "refine" is the regrid itself; the redistribution and the modules' updates have their own lines.
  timers_.add_exclusive("refine", start, recorded);
}

// The forces of a state without history, level by level from levelmin (after the initial
// conditions, or a restart that lacks them).
template <int D>
void Simulation<D>::initial_forces() {
  // Forces without a time still belong to the current expansion factor (RAMSES fourpi = 1.5 omega_m
  // aexp in its initial solve too); a level step's forces set it from their own time.
  if (gravity::LevelGravity<D>* gravity_module = gravity(); gravity_module && cosmology_)
    gravity_module->set_poisson_factor(cosmology_->poisson_factor(time_));
  for (int level = refinement_.levelmin; level <= tree_.levelmax(); ++level) {
    if (!level_exists_anywhere(level)) break;
    for_each_module([level](Module& m) { m.update_forces(level, std::nullopt); });
    refresh_ghosts(level, core::GhostStage::after_force_update);
  }
}

template <int D>
void Simulation<D>::connect_modules() {
  KOSMO_REQUIRE(!connected_, "simulation: initialise() or restart() called twice");
  std::vector<Module*> modules;
  for (const auto& m : modules_) modules.push_back(m.get());
  for_each_module([&](Module& m) { m.connect(modules); });
  connected_ = true;
  // No field is registered after connect: the ghost lists of each stage are fixed from here on.
  for (core::GhostStage stage : {core::GhostStage::after_force_update, core::GhostStage::after_kicks, core::GhostStage::after_source_terms})
    ghost_fields_[stage_index(stage)] = tree_.fields().ghost_fields(stage);
}

template <int D>
void Simulation<D>::initialise() {
  connect_modules();
  const auto start = Clock::now();
  const double recorded = timers_.recorded();
  // RAMSES init_refine: refine, then set the analytic state on every cell, until nothing changes.
  for_each_module([](Module& m) { m.set_initial_state(); });
  for_each_module([](Module& m) { m.begin_initial_state(); });
  for (int pass = 0; pass < 2 * tree_.levelmax() + 2; ++pass) {
    const core::RegridCounts counts = regrid_and_redistribute(1);
    for_each_module([](Module& m) { m.set_initial_state(); });
    for_each_module([](Module& m) { m.after_regrid(); });
    if (!counts.changed()) break;
  }
  if (mesh_.distributed()) {
    balance_load();
  } else {
    tree_.compact();
    for_each_module([](Module& m) { m.after_regrid(); });
  }
  for_each_module([](Module& m) { m.end_initial_state(); });
  timers_.add_exclusive("initial conditions", start, recorded);
  initial_forces();
}

template <int D>
void Simulation<D>::restart(const io::RestartShare& share) {
  connect_modules();
  const auto start = Clock::now();
  const double recorded = timers_.recorded();
  const io::SnapshotMeta& m = share.meta;
  const std::string file = io::output_directory_name(m.output_number);
  const auto& g = tree_.geometry();
  KOSMO_REQUIRE(m.ndim == D, "restart from " << file << ": the snapshot is " << m.ndim << "-D, this run is " << D << "-D (ndim)");
  KOSMO_REQUIRE(m.levelmax <= tree_.levelmax(), "restart from " << file << ": the snapshot reaches level " << m.levelmax
                                                                 << ", above this run's levelmax=" << tree_.levelmax());
  const int coarse[3] = {m.nx, m.ny, m.nz};
  for (int d = 0; d < D; ++d)
    KOSMO_REQUIRE(coarse[d] == g.coarse_cells[d], "restart from " << file << ": the snapshot's coarse grid (nx, ny, nz) differs "
                                                                  << "from this run's &AMR_PARAMS");
  KOSMO_REQUIRE(m.boxlen == g.boxlen, "restart from " << file << ": boxlen=" << m.boxlen << " in the snapshot, " << g.boxlen
                                                      << " in &AMR_PARAMS");
  std::vector<int> source;
  const std::vector<std::string> recompute = restart_fields(share, source);
  const int nfield = tree_.fields().size();
  constexpr int ncell = Tree::cells_per_oct;
  std::vector<int> levels;
  std::vector<Key> keys;
  std::vector<double> values;
  for (const io::SnapshotLevel& level : share.levels) {
    const std::size_t octs = level.oct_coordinates.size() / D;
    for (std::size_t i = 0; i < octs; ++i) {
      typename Tree::Coordinates c{};
      for (int d = 0; d < D; ++d) c[d] = level.oct_coordinates[i * D + static_cast<std::size_t>(d)];
      levels.push_back(level.level);
      keys.push_back(Tree::Codec::encode(c));
      for (int f = 0; f < nfield; ++f) {
        const int k = source[static_cast<std::size_t>(f)];
        for (int cell = 0; cell < ncell; ++cell)
          values.push_back(k < 0 ? 0.0 : level.restart_fields[static_cast<std::size_t>(k)][i * ncell + static_cast<std::size_t>(cell)]);
      }
    }
  }
  // seeds/000 §7.1: on the rank count and ordering that wrote the file, keep its walls (the fast
  // path: the octs go straight to their old owners and no balance follows); otherwise start from
  // a geometric decomposition and balance at once.
  const bool same_decomposition =
      m.ncpu == mesh_.nrank() && m.ordering == mesh_.ordering_name() && mesh_.adopt_decomposition(tree_, m.ksection_walls, m.hilbert_bounds);
  mesh_.scatter_octs(tree_, levels, keys, values);
  restart_particles(share);
  time_ = m.time;
  step_ = m.step;
  restarted_in_place_ = same_decomposition;
  if (mesh_.distributed() && !same_decomposition) {
    balance_load();  // migrates and locates the particles
  } else {
    for_each_module([](Module& module) { module.after_redistribution(); });
  }
  timers_.add_exclusive("restart", start, recorded);
  // A snapshot without the forces (a RAMSES-format output, a run without gravity): solved afresh.
  if (!recompute.empty()) initial_forces();
}

// Which tree field each restart array fills (source[field] = index in the file, or -1). A file field
// the run does not have is an error; a run field the file lacks follows its metadata: an error, zero,
// or recomputed (returned).
template <int D>
std::vector<std::string> Simulation<D>::restart_fields(const io::RestartShare& share, std::vector<int>& source) const {
  const std::string file = io::output_directory_name(share.meta.output_number);
  const int nfield = tree_.fields().size();
  source.assign(static_cast<std::size_t>(nfield), -1);
  for (std::size_t i = 0; i < share.restart_field_names.size(); ++i) {
    const int found = tree_.fields().find(share.restart_field_names[i]);
    KOSMO_REQUIRE(found >= 0, "restart from " << file << ": the snapshot's field '" << share.restart_field_names[i]
                                              << "' is not one of this run's fields (npassive or the physics changed?)");
    source[static_cast<std::size_t>(found)] = static_cast<int>(i);
  }
  std::vector<std::string> recompute;
  for (int f = 0; f < nfield; ++f) {
    const core::FieldInfo& info = tree_.fields().info(f);
    if (!info.in_restarts || source[static_cast<std::size_t>(f)] >= 0) continue;
    KOSMO_REQUIRE(info.if_missing != core::MissingInRestart::error,
                  "restart from " << file << ": the snapshot has no values for the field '" << info.name << "'");
    if (info.if_missing == core::MissingInRestart::recompute) recompute.push_back(info.name);
  }
  return recompute;
}

// Each rank read a contiguous share of the file's particles; the module that carries particles
// takes them (they reach their owners with the next redistribution).
template <int D>
void Simulation<D>::restart_particles(const io::RestartShare& share) {
  bool taken = false;
  for (const auto& m : modules_) taken = taken || m->restore_particles(share.particles, io::output_directory_name(share.meta.output_number));
  for (const auto& m : modules_) m->restore_snapshot_state(share.meta, io::output_directory_name(share.meta.output_number));
  if (taken) return;
  const long long stored = mesh_.sum(static_cast<long long>(share.particles.size()));  // same verdict on every rank
  KOSMO_REQUIRE(stored == 0, "restart from " << io::output_directory_name(share.meta.output_number) << ": the snapshot holds "
                                             << stored << " particles but this run has pic=.false. (&RUN_PARAMS)");
}

template <int D>
void Simulation<D>::balance_load() {
  if (!mesh_.distributed()) return;
  // seeds/000 eq. 12: each level's memory cost times 1 + alpha (c_local / c_average - 1), c the
  // seconds per cell updated at that level since the last balance, clamped to [0.5, 2].
  const std::size_t n = level_seconds_.size();
  std::vector<double> sums(2 * n);
  for (std::size_t l = 0; l < n; ++l) {
    sums[l] = level_seconds_[l];
    sums[n + l] = level_cells_[l];
  }
  MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_DOUBLE, MPI_SUM, mesh_.comm());
  std::vector<double> cost(n, oct_cost_);
  for (std::size_t l = 1; l < n; ++l) {
    if (time_balance_alpha_ == 0.0 || level_cells_[l] == 0.0 || sums[n + l] == 0.0) continue;
    cost[l] = oct_cost_ * parallel::time_blend_factor(time_balance_alpha_, level_seconds_[l] / level_cells_[l], sums[l] / sums[n + l]);
  }
  std::fill(level_seconds_.begin(), level_seconds_.end(), 0.0);
  std::fill(level_cells_.begin(), level_cells_.end(), 0.0);
  // Particles weigh where they are (seeds/000 eq. 4): a halo's rank takes fewer octs.
  std::vector<std::array<double, 3>> points;
  std::vector<double> point_costs;
  if (particle_cost_ > 0.0) {
    for_each_module([&](Module& m) { m.add_load_points(points); });
    point_costs.assign(points.size(), particle_cost_);
  }
  mesh_.balance_decomposition(tree_, cost, points, point_costs);
  mesh_.redistribute(tree_);
  for_each_module([](Module& m) { m.after_redistribution(); });
}

template <int D>
std::vector<double> Simulation<D>::totals() const {
  std::vector<double> sums;
  for (const auto& m : modules_) m->add_conserved_totals(sums);
  if (sums.size() < static_cast<std::size_t>(D) + 2) sums.resize(static_cast<std::size_t>(D) + 2, 0.0);
  for (double& s : sums) s = mesh_.sum(s);
  return sums;
}

template <int D>
double Simulation<D>::potential_energy() const {
  double energy = 0.0;
  for (const auto& m : modules_) energy += m->potential_energy();
  return energy;
}

template <int D>
bool Simulation<D>::level_exists_anywhere(int level) const {
  const auto local = static_cast<long long>(tree_.octs_at_level(level).size());
  return mesh_.distributed() ? mesh_.sum(local) > 0 : local > 0;
}

template <int D>
double Simulation<D>::courant_time_step() const {
  double dt = std::numeric_limits<double>::max();
  double factor = 1.0;  // coarse step / level step
  const int levelmin = refinement_.levelmin;
  for (int l = 1; l <= tree_.levelmax(); ++l) {
    if (l > levelmin) factor *= nsubcycle_[static_cast<std::size_t>(l - 2)];
    if (l < levelmin) continue;
    dt = std::min(dt, factor * level_time_step(l));
  }
  if (cosmology_) dt = std::min(dt, cosmology_->expansion_time_step(time_));
  return mesh_.distributed() ? mesh_.min(dt) : dt;
}

template <int D>
double Simulation<D>::level_time_step(int level) const {
  double dt = std::numeric_limits<double>::max();
  for (const auto& m : modules_) dt = std::min(dt, m->time_step_limit(level));
  return dt;
}

template <int D>
void Simulation<D>::advance(double dt) {
  // RAMSES compacts the pool (defragmentation) between coarse steps; here every 10 steps.
  // On several ranks every redistribution compacts (and exchange lists hold oct indices).
  if (step_ > 0 && step_ % 10 == 0 && !mesh_.distributed()) {
    const auto start = Clock::now();
    tree_.compact();
    for_each_module([](Module& m) { m.after_regrid(); });  // oct indices changed (particles' located octs)
    timers_.add("refine", start);
  }
  if (mesh_.distributed() && nremap_ > 0 && step_ > 0 && step_ % nremap_ == 0) {
    const auto start = Clock::now();
    const double recorded = timers_.recorded();
    balance_load();
    timers_.add_exclusive("load balance", start, recorded);
  }
  amr_step(refinement_.levelmin, time_, dt, 1);
  time_ += dt;
  ++step_;
}

// RAMSES amr_step's force block: the kicks made with the old force are taken back, the forces
// solved at the level's time, their ghosts refreshed, the kicks redone with the new force.
template <int D>
void Simulation<D>::update_forces(int level, double t) {
  for_each_module([level](Module& m) { m.before_force_update(level); });
  for_each_module([level, t](Module& m) { m.update_forces(level, t); });
  refresh_ghosts(level, core::GhostStage::after_force_update);
  for_each_module([level](Module& m) { m.after_force_update(level); });
  refresh_ghosts(level, core::GhostStage::after_kicks);
}

// RAMSES amr_step: refine below this level (at the coarse level and at every later substep),
// the forces, advance the finer levels first, then this level's update, source terms and ghosts.
// The finer level takes nsubcycle substeps of dt / nsubcycle, each shortened to its own Courant
// limit measured at the start of that substep (and then as many more as it needs to reach the
// end of this level's step): the flow a fine level sees can change much within one coarse step
// (a shock forming from rest), so a coarse step computed once cannot bound it. Refluxing
// accumulates every fine substep, so conservation does not depend on their number.
template <int D>
void Simulation<D>::amr_step(int level, double t, double dt, int icount) {
  if (level == refinement_.levelmin || icount > 1) regrid(level);
  update_forces(level, t);
  if (level == refinement_.levelmin && coarse_force_observer_) coarse_force_observer_();
  for_each_module([level](Module& m) { m.begin_level_step(level); });
  if (level < tree_.levelmax() && level_exists_anywhere(level + 1)) {
    const double nominal = dt / nsubcycle_[static_cast<std::size_t>(level - 1)];
    double remaining = dt;
    for (int substep = 1; remaining > 0.0; ++substep) {
      KOSMO_REQUIRE(substep <= 10000, "simulation: level " << level + 1 << " needed more than 10000 substeps within one step of level "
                                                            << level << " (time step collapsed; check the initial state)");
      const auto start = Clock::now();
      const double fine_limit = level_time_step(level + 1);
      double fine_dt = std::min({nominal, mesh_.distributed() ? mesh_.min(fine_limit) : fine_limit, remaining});
      timers_.add("courant time step", start);
      if (remaining - fine_dt <= 1e-12 * dt) fine_dt = remaining;
      amr_step(level + 1, t + (dt - remaining), fine_dt, substep);
      remaining -= fine_dt;
    }
  }
  advance_level(level, dt);
}

template <int D>
void Simulation<D>::advance_level(int level, double dt) {
  level_time_steps_[static_cast<std::size_t>(level - 1)] = dt;
  const auto start = Clock::now();
  std::size_t cells = 0;
  for_each_module([&](Module& m) { cells += m.advance(level, dt); });
  // Only work that updates cells enters the time blend (a level of particles alone does not).
  if (cells > 0) {
    level_seconds_[static_cast<std::size_t>(level)] += std::chrono::duration<double>(Clock::now() - start).count();
    level_cells_[static_cast<std::size_t>(level)] += static_cast<double>(cells);
    cell_updates_ += static_cast<long long>(cells);
  }
  for_each_module([level, dt](Module& m) { m.source_terms(level, dt); });
  refresh_ghosts(level, core::GhostStage::after_source_terms);
  for_each_module([level, dt](Module& m) { m.end_level_step(level, dt); });
}

template <int D>
std::vector<core::DerivedOutput> Simulation<D>::outputs() const {
  std::vector<core::DerivedOutput> all;
  for (const auto& m : modules_)
    for (auto& output : m->derived_outputs()) all.push_back(std::move(output));
  return all;
}

template <int D>
void Simulation<D>::complete_snapshot_meta(io::SnapshotMeta& meta) const {
  for (const auto& m : modules_) m->write_snapshot_state(meta);
}

template <int D>
bool Simulation<D>::snapshot_particles(io::SnapshotParticles& out) const {
  for (const auto& m : modules_)
    if (m->write_particles(out)) return true;
  return false;
}

template class Simulation<1>;
template class Simulation<2>;
template class Simulation<3>;

}  // namespace kosmo::driver
