#include "driver/hydro_simulation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "driver/particle_snapshot.hpp"
#include "driver/problem_setup.hpp"
#include "hydro/boundary_conditions.hpp"
#include "hydro/equation_of_state.hpp"
#include "hydro/refinement_criteria.hpp"
#include "parallel/cost_function.hpp"

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
HydroSimulation<D>::HydroSimulation(const core::ParameterSet& params, MPI_Comm comm)
    : params_(params),
      mesh_(comm, params.get_string("RUN_PARAMS", "exchange_method"), params.get_string("RUN_PARAMS", "ordering")),
      tree_(hydro_geometry<D>(params)),
      hydro_(tree_, solver_settings<D>(params)),
      gas_(params.get_bool("RUN_PARAMS", "hydro")),
      gravity_(params.get_bool("RUN_PARAMS", "poisson")
                   ? std::make_unique<LevelGravity<D>>(params, tree_, mesh_, hydro_, levelmin_of(params), timers_)
                   : nullptr),
      particles_(params.get_bool("RUN_PARAMS", "pic") ? std::make_unique<LevelParticles<D>>(params, tree_, mesh_, timers_) : nullptr),
      refinement_(refinement_settings(params)),
      regions_(refine_regions(params)),
      init_regions_(hydro::init_regions(params)) {
  const int levelmin = levelmin_of(params);
  for (long long n : per_level(params.get_int_array("RUN_PARAMS", "nsubcycle"), levelmin, 1LL)) nsubcycle_.push_back(static_cast<int>(n));
  m_refine_ = per_level(params.get_real_array("REFINE_PARAMS", "m_refine"), levelmin, -1.0);
  gradients_ = hydro::gradient_criteria(params);
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
  // memory_balance = .false.: RAMSES' classic cost, one per cell.
  oct_cost_ = params.get_bool("RUN_PARAMS", "memory_balance")
                  ? parallel::memory_weights(D, hydro_.nvar(), params.get_real("AMR_PARAMS", "mem_weight_grid")).w_grid
                  : static_cast<double>(Tree::cells_per_oct);
  // A particle's cost: its memory (seeds/000 eq. 4), or RAMSES' 80 + n_part per grid, in which a
  // particle weighs 1/80 of an oct.
  particle_cost_ = params.get_bool("RUN_PARAMS", "memory_balance") ? params.get_real("AMR_PARAMS", "mem_weight_part")
                                                                    : static_cast<double>(Tree::cells_per_oct) / 80.0;
  time_balance_alpha_ = params.get_real("AMR_PARAMS", "time_balance_alpha");
  level_seconds_.assign(static_cast<std::size_t>(tree_.levelmax()) + 1, 0.0);
  level_cells_.assign(static_cast<std::size_t>(tree_.levelmax()) + 1, 0.0);
  if (mesh_.distributed()) mesh_.classify_coarse_grid(tree_);
  if (gravity_) {
    gravity_->set_gas(gas_);
    gravity_->set_particles(particles_.get());
  }
  if (particles_) {
    core::FieldInfo mass = core::scalar_field("particle_mass");
    mass.in_snapshots = false;
    mass.in_restarts = false;
    particle_mass_field_ = tree_.add_field(mass);
  }
}

template <int D>
void HydroSimulation<D>::set_cosmology(std::shared_ptr<const CosmologicalModel> model) {
  cosmology_ = std::move(model);
}

template <int D>
void HydroSimulation<D>::set_initial_particles(particles::ParticleSet<D> particles) {
  KOSMO_REQUIRE(particles_, params_.source() << ": &RUN_PARAMS: initial particles need pic=.true.");
  particles_->set() = std::move(particles);
}

template <int D>
void HydroSimulation<D>::set_initial_state(Tree& tree) {
  const auto& s = hydro_.settings().scheme;
  const int nvar = hydro_.nvar();
  for (int l = 1; l <= tree.levelmax(); ++l) {
    // Ghosts too: the state is analytic, so a ghost gets exactly its owner's values.
    std::vector<core::OctIndex> octs(tree.octs_at_level(l).begin(), tree.octs_at_level(l).end());
    octs.insert(octs.end(), tree.ghost_octs_at_level(l).begin(), tree.ghost_octs_at_level(l).end());
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
  // The mass criterion counts the particles in the cell with the gas (RAMSES uses the Poisson
  // source density, gas plus particles).
  const double* particle_mass = nullptr;
  if (particles_ && m_refine > -1.0) {
    particles_->cell_masses(level, particle_mass_field_);
    particle_mass = tree_.field(particle_mass_field_);
  }
  const bool gas = gas_;
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
        double volume = 1.0;
        for (int d = 0; d < D; ++d) volume *= dx;
        const double density = (gas ? u[0][cell] : 0.0) + (particle_mass ? particle_mass[cell] / volume : 0.0);
        bool refine = hydro::mass_refine(density, dx, m_refine, mass_sph_);
        if (gas && gradients_.any() && !refine) {
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
core::RegridCounts HydroSimulation<D>::regrid_and_redistribute(int min_level) {
  const core::FlagSynchroniser synchronise = [this](int level, std::vector<std::uint8_t>& flags) {
    mesh_.exchange_flags(tree_, level, flags);
  };
  const auto counts = core::regrid<D, Key>(
      tree_, refinement_, [this](const Tree& t, int level, std::vector<std::uint8_t>& flags) { flag_cells(t, level, flags); },
      min_level, &hydro_.stencils(), mesh_.distributed() ? &synchronise : nullptr);
  if (!mesh_.distributed()) return counts;
  // The mesh changed somewhere iff it changed on some rank; only then are ghosts stale.
  core::RegridCounts global;
  global.created = static_cast<std::size_t>(mesh_.sum(static_cast<long long>(counts.created)));
  global.destroyed = static_cast<std::size_t>(mesh_.sum(static_cast<long long>(counts.destroyed)));
  if (global.changed()) {
    const auto start = Clock::now();
    mesh_.redistribute(tree_);
    timers_.add("refine - redistribute octs", start);
  }
  return global;
}

template <int D>
void HydroSimulation<D>::regrid(int min_level) {
  if (tree_.levelmax() <= min_level) return;
  const auto start = Clock::now();
  const double before = timers_.seconds("refine - redistribute octs");
  regrid_and_redistribute(min_level);
  if (particles_) particles_->locate();
  // "refine" is the regrid itself; the redistribution has its own line.
  timers_.add_seconds("refine", std::chrono::duration<double>(Clock::now() - start).count() -
                                    (timers_.seconds("refine - redistribute octs") - before));
}

template <int D>
void HydroSimulation<D>::initialise() {
  const auto start = Clock::now();
  // RAMSES init_refine: refine, then set the analytic state on every cell, until nothing changes.
  set_initial_state(tree_);
  if (particles_) particles_->keep_owned();
  for (int pass = 0; pass < 2 * tree_.levelmax() + 2; ++pass) {
    const core::RegridCounts counts = regrid_and_redistribute(1);
    set_initial_state(tree_);
    if (particles_) particles_->locate();
    if (!counts.changed()) break;
  }
  if (mesh_.distributed()) {
    balance_load();
  } else {
    tree_.compact();
    if (particles_) particles_->locate();
  }
  timers_.add("initial conditions", start);
  if (gravity_) gravity_->solve_all_levels();
}

template <int D>
void HydroSimulation<D>::restart(const io::RestartShare& share) {
  const auto start = Clock::now();
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
  // Which tree field each restart array fills; fields not in the file (the transient new time
  // level) start at zero.
  const int nfield = tree_.fields().size();
  std::vector<int> source(static_cast<std::size_t>(nfield), -1);
  for (std::size_t i = 0; i < share.restart_field_names.size(); ++i) {
    int found = -1;
    for (int f = 0; f < nfield; ++f)
      if (tree_.fields().info(f).name == share.restart_field_names[i]) found = f;
    KOSMO_REQUIRE(found >= 0, "restart from " << file << ": the snapshot's field '" << share.restart_field_names[i]
                                              << "' is not one of this run's fields (npassive or the physics changed?)");
    source[static_cast<std::size_t>(found)] = static_cast<int>(i);
  }
  // The potential, acceleration and pending half kick of a gravity run may be absent (a RAMSES file,
  // or a snapshot of a run without gravity): they are then solved afresh from the gas below.
  bool gravity_missing = false;
  for (int f = 0; f < nfield; ++f) {
    if (!tree_.fields().info(f).in_restarts || source[static_cast<std::size_t>(f)] >= 0) continue;
    const std::string& name = tree_.fields().info(f).name;
    // Without the potential's history each level's first solve extrapolates nothing (LevelGravity).
    if (gravity_ && gravity_->is_history_field(name)) continue;
    const bool gravity_field = name == "potential" || name.starts_with("acceleration_") || name == "gravity_half_kick_time";
    KOSMO_REQUIRE(gravity_ && gravity_field, "restart from " << file << ": the snapshot has no values for the field '" << name << "'");
    gravity_missing = true;
  }
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
  if (particles_) {
    // Each rank read a contiguous share of the file's particles; they go to their owners.
    particles_->set() = particles_from_snapshot<D>(share.particles, file);
  } else {
    const long long stored = mesh_.sum(static_cast<long long>(share.particles.size()));  // same verdict on every rank
    KOSMO_REQUIRE(stored == 0, "restart from " << file << ": the snapshot holds " << stored
                                                << " particles but this run has pic=.false. (&RUN_PARAMS)");
  }
  time_ = m.time;
  step_ = m.step;
  restarted_in_place_ = same_decomposition;
  if (mesh_.distributed() && !same_decomposition) {
    balance_load();  // migrates and locates the particles
  } else if (particles_) {
    particles_->migrate_and_locate();
  }
  timers_.add("restart", start);
  if (gravity_missing && gravity_) gravity_->solve_all_levels();
}

template <int D>
void HydroSimulation<D>::balance_load() {
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
  if (particles_ && particle_cost_ > 0.0) {
    const auto& set = particles_->set();
    points.assign(set.size(), {0.0, 0.0, 0.0});
    for (int d = 0; d < D; ++d)
      for (std::size_t i = 0; i < set.size(); ++i) points[i][static_cast<std::size_t>(d)] = set.position(d)[i];
    point_costs.assign(set.size(), particle_cost_);
  }
  mesh_.balance_decomposition(tree_, cost, points, point_costs);
  mesh_.redistribute(tree_);
  if (particles_) particles_->migrate_and_locate();
}

template <int D>
std::vector<double> HydroSimulation<D>::totals() const {
  auto sums = hydro_.totals();
  if (!gas_) std::fill(sums.begin(), sums.end(), 0.0);
  // Particles add their mass, momentum and kinetic energy to the gas's.
  if (particles_) {
    const auto& set = particles_->set();
    for (std::size_t i = 0; i < set.size(); ++i)
      if (set.family()[i] != particles::Family::tracer) sums[0] += set.mass()[i];
    const auto momentum = particles_->momentum();
    for (int d = 0; d < D; ++d) sums[static_cast<std::size_t>(d) + 1] += momentum[static_cast<std::size_t>(d)];
    sums[static_cast<std::size_t>(D) + 1] += particles_->kinetic_energy();
  }
  for (double& s : sums) s = mesh_.sum(s);
  return sums;
}

template <int D>
bool HydroSimulation<D>::level_exists_anywhere(int level) const {
  const auto local = static_cast<long long>(tree_.octs_at_level(level).size());
  return mesh_.distributed() ? mesh_.sum(local) > 0 : local > 0;
}

// Reflux contributions for coarse cells of other ranks go to their owners (seeds/000 §3.2.1's
// reverse exchange); the owner applies all of a cell's contributions in one-rank order.
template <int D>
void HydroSimulation<D>::exchange_reflux(int level) {
  if (mesh_.distributed() && level > 1) {
    using Mesh = parallel::DistributedMesh<D, Key>;
    auto& pending = hydro_.pending_reflux();
    auto& values = hydro_.pending_reflux_values();
    const int nvar = hydro_.nvar();
    const int width = 2 * Mesh::key_words + 2 + nvar;  // fine key, sequence, coarse oct key, child, values
    std::vector<int> destinations;
    std::vector<double> payloads;
    std::vector<typename hydro::HydroSolver<D>::RefluxContribution> kept;
    std::vector<double> kept_values;
    for (const auto& r : pending) {
      const core::OctIndex coarse_oct = Tree::oct_of(r.coarse);
      const double* v = values.data() + r.offset;
      if (tree_.role(coarse_oct) == core::OctRole::owned) {
        kept.push_back({r.fine_key, r.sequence, r.coarse, kept_values.size()});
        kept_values.insert(kept_values.end(), v, v + nvar);
        continue;
      }
      destinations.push_back(mesh_.owner(tree_, coarse_oct));
      Mesh::pack_key(r.fine_key, payloads);
      payloads.push_back(static_cast<double>(r.sequence));
      Mesh::pack_key(tree_.key(coarse_oct), payloads);
      payloads.push_back(static_cast<double>(Tree::child_of(r.coarse)));
      payloads.insert(payloads.end(), v, v + nvar);
    }
    const std::vector<double> received = mesh_.send_to_owners(level - 1, destinations, payloads, width);
    for (std::size_t at = 0; at < received.size(); at += static_cast<std::size_t>(width)) {
      const double* in = received.data() + at;
      const Key fine_key = Mesh::unpack_key(in);
      const auto sequence = static_cast<std::uint32_t>(in[Mesh::key_words]);
      const core::OctIndex coarse_oct = tree_.find_oct(level - 1, Mesh::unpack_key(in + Mesh::key_words + 1));
      KOSMO_REQUIRE(coarse_oct != core::no_oct && tree_.role(coarse_oct) == core::OctRole::owned,
                    "hydro: a reflux contribution arrived for a cell this rank does not own");
      const auto child = static_cast<int>(in[2 * Mesh::key_words + 1]);
      kept.push_back({fine_key, sequence, Tree::cell_index(coarse_oct, child), kept_values.size()});
      kept_values.insert(kept_values.end(), in + 2 * Mesh::key_words + 2, in + width);
    }
    pending.swap(kept);
    values.swap(kept_values);
  }
  hydro_.apply_reflux();
}

template <int D>
double HydroSimulation<D>::courant_time_step() const {
  double dt = std::numeric_limits<double>::max();
  double factor = 1.0;  // coarse step / level step
  const int levelmin = refinement_.levelmin;
  for (int l = 1; l <= tree_.levelmax(); ++l) {
    if (l > levelmin) factor *= nsubcycle_[static_cast<std::size_t>(l - 2)];
    if (l < levelmin) continue;
    dt = std::min(dt, factor * level_courant_time_step(l));
  }
  if (cosmology_) dt = std::min(dt, cosmology_->expansion_time_step(time_));
  return mesh_.distributed() ? mesh_.min(dt) : dt;
}

template <int D>
double HydroSimulation<D>::level_courant_time_step(int level) const {
  double dt = std::numeric_limits<double>::max();
  if (gas_ && !tree_.octs_at_level(level).empty()) dt = hydro_.courant_time_step(level);
  if (particles_) dt = std::min(dt, particles_->courant_time_step(level));
  // RAMSES newdt_fine: a level step also stays below the free-fall time of its densest cell.
  if (gravity_) dt = std::min(dt, hydro_.settings().courant_factor * gravity_->free_fall_time(level));
  return dt;
}

template <int D>
void HydroSimulation<D>::advance(double dt) {
  // RAMSES compacts the pool (defragmentation) between coarse steps; here every 10 steps.
  // On several ranks every redistribution compacts (and exchange lists hold oct indices).
  if (step_ > 0 && step_ % 10 == 0 && !mesh_.distributed()) {
    const auto start = Clock::now();
    tree_.compact();
    timers_.add("refine", start);
  }
  if (mesh_.distributed() && nremap_ > 0 && step_ > 0 && step_ % nremap_ == 0) {
    const auto start = Clock::now();
    balance_load();
    timers_.add("load balance", start);
  }
  amr_step(refinement_.levelmin, time_, dt, 1);
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
void HydroSimulation<D>::amr_step(int level, double t, double dt, int icount) {
  if (level == refinement_.levelmin || icount > 1) regrid(level);
  if (gravity_) {
    // Super-comoving Poisson equation at the level's time (RAMSES: fourpi = 1.5 omega_m aexp).
    if (cosmology_) gravity_->set_poisson_factor(cosmology_->poisson_factor(t));
    gravity_->begin_step(level, t);
  }
  if (particles_) particles_->begin_step(level);
  auto start = Clock::now();
  if (gas_) hydro_.set_unew(level);
  timers_.add("hydro - copy and restrict", start);
  if (level < tree_.levelmax() && level_exists_anywhere(level + 1)) {
    const double nominal = dt / nsubcycle_[static_cast<std::size_t>(level - 1)];
    double remaining = dt;
    for (int substep = 1; remaining > 0.0; ++substep) {
      KOSMO_REQUIRE(substep <= 10000, "hydro: level " << level + 1 << " needed more than 10000 substeps within one step of level "
                                                       << level << " (time step collapsed; check the initial state)");
      start = Clock::now();
      const double fine_courant = level_courant_time_step(level + 1);
      double fine_dt = std::min({nominal, mesh_.distributed() ? mesh_.min(fine_courant) : fine_courant, remaining});
      timers_.add("courant time step", start);
      if (remaining - fine_dt <= 1e-12 * dt) fine_dt = remaining;
      amr_step(level + 1, t + (dt - remaining), fine_dt, substep);
      remaining -= fine_dt;
    }
  }
  if (gas_) advance_gas(level, dt);
  if (particles_) particles_->end_step(level, dt);
}

template <int D>
void HydroSimulation<D>::advance_gas(int level, double dt) {
  auto start = Clock::now();
  const auto before = hydro_.timing();
  const auto godunov_start = Clock::now();
  hydro_.godunov(level, dt);
  level_seconds_[static_cast<std::size_t>(level)] += std::chrono::duration<double>(Clock::now() - godunov_start).count();
  level_cells_[static_cast<std::size_t>(level)] += static_cast<double>(tree_.octs_at_level(level).size() * Tree::cells_per_oct);
  exchange_reflux(level);
  const auto after = hydro_.timing();
  timers_.add_seconds("hydro - stencil lookup", after.stencil - before.stencil);
  timers_.add_seconds("hydro - gather, fluxes, update", after.fluxes - before.fluxes);
  timers_.add_seconds("hydro - reflux", after.reflux - before.reflux);
  cell_updates_ += static_cast<long long>(tree_.octs_at_level(level).size()) * Tree::cells_per_oct;
  start = Clock::now();
  hydro_.set_uold(level);
  // RAMSES: the second half kick of the step (synchro_hydro_fine(+dt/2)) before the restriction,
  // which overwrites refined cells with their sons' kicked gas.
  if (gravity_) gravity_->end_step(level, dt);
  hydro_.restrict_onto(level);
  timers_.add("hydro - copy and restrict", start);
  start = Clock::now();
  mesh_.exchange_fields(tree_, level, hydro_.uold_fields());
  timers_.add("ghost exchange", start);
}

template <int D>
std::vector<DerivedOutput> HydroSimulation<D>::outputs() const {
  if (!gas_) return {};
  return {DerivedOutput{hydro_.output_fields(), [this](core::OctIndex o, double* out) { hydro_.output_values(o, out); }}};
}

template class HydroSimulation<1>;
template class HydroSimulation<2>;
template class HydroSimulation<3>;

}  // namespace kosmo::driver
