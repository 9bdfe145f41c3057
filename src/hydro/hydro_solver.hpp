#pragma once
// The hydro module on the octree: conservative variables in two time levels registered as cell
// fields, the Godunov update of one level with refluxing into coarser neighbours, restriction,
// the Courant time step, and the primitive variables written to snapshots (RAMSES godunov_fine,
// set_unew, set_uold, upload_fine, newdt_fine). No MPI here: the driver decides when to exchange.
#include <array>
#include <vector>

#include "core/oct_tree.hpp"
#include "core/prolongation.hpp"
#include "hydro/boundary_conditions.hpp"
#include "hydro/hydro_settings.hpp"
#include "core/oct_stencil_cache.hpp"

namespace kosmo::hydro {

template <int D>
class HydroSolver {
 public:
  using Key = core::MortonKey;
  using Tree = core::OctTree<D, Key>;
  static constexpr int cells_per_oct = Tree::cells_per_oct;

  struct Settings {
    SchemeSettings scheme;
    double courant_factor = 0.5;
    core::InterpolationType interpolation = core::InterpolationType::minmod;
    // RAMSES interpol_var: 0 prolongation and restriction of rho, rho v, E; 1 of rho, rho v and the
    // internal energy rho e, E then rebuilt from the interpolated momenta (docs/hydro.md).
    int interpol_var = 0;
    BoxBoundaries<D> boundaries;
  };

  // Registers the conservative variables (uold, restart fields) and their copies for the new
  // time level (unew, transient) in the tree.
  HydroSolver(Tree& tree, const Settings& settings);

  int nvar() const { return nvar_; }
  // Values per reflux contribution: nvar, plus the pressure fix's two face terms when it is on.
  int flux_width() const { return flux_width_; }
  const Settings& settings() const { return settings_; }
  const std::vector<int>& uold_fields() const { return uold_; }

  void set_unew(int level);        // unew = uold on every cell of the level
  // uold = unew; with the pressure fix, then RAMSES set_uold's energy correction for a step of dt.
  void set_uold(int level, double dt = 0.0);
  void restrict_onto(int level);   // refined cells of `level` take the mean of their sons (uold)
  // Advances the level by dt from uold into unew. Fluxes through faces next to a coarser leaf are
  // kept as reflux contributions (scaled by 2^-D) for that coarse cell: apply_reflux() adds them
  // to its unew, so coarse-fine faces conserve. In between, the driver sends the contributions
  // for coarse cells of other ranks to their owners and appends the ones it receives.
  // With gravity (set_gravity), the kernel also receives the acceleration gathered like uold and
  // applies RAMSES' predictor v += g dt / 2 to the face states; the momentum and energy source terms
  // are NOT added here but by gravity_kick().
  void godunov(int level, double dt);

  // Gravity source terms (RAMSES poisson: godfine1 gathers f, synchro_hydro_fine kicks uold).
  // acceleration_fields: cell fields holding g_0 .. g_{D-1}. The caller fills them on the owned and
  // ghost octs of each level it advances, and of the coarser level (godunov reads the coarse cell's
  // g, uninterpolated, where a neighbour oct is missing, as RAMSES godfine1 does).
  void set_gravity(std::array<int, D> acceleration_fields);
  // RAMSES synchro_hydro_fine on every owned cell of the level (uold): with d = max(rho, smallr),
  // v = momentum / d, then v += g dt_kick, momentum = d v, E += new kinetic - old kinetic (the
  // internal energy is left unchanged). A KDK step from a synchronised uold at t^n is
  // set_unew, godunov(dt), set_uold, gravity_kick(dt/2) with g(t^n), [new g], gravity_kick(dt/2)
  // with g(t^n+1): godunov must see the synchronised state, its predictor supplying the half kick.
  void gravity_kick(int level, double dt_kick);
  // The same with a per-cell kick duration: dt_kick = factor * field(kick_time_field)[cell] (a
  // driver keeping each cell's pending half kick, to remove it later with the old force).
  void gravity_kick(int level, double factor, int kick_time_field);

  // One reflux contribution: `nvar` values at values[offset..]. Contributions are applied in the
  // order (fine_key, sequence), the order of a one-rank sweep, so the sums are the same bits on
  // any number of ranks (ARCHITECTURE: results independent of the rank count).
  struct RefluxContribution {
    Key fine_key;
    std::uint32_t sequence;
    core::CellIndex coarse;
    std::size_t offset;
  };
  std::vector<RefluxContribution>& pending_reflux() { return reflux_; }
  std::vector<double>& pending_reflux_values() { return reflux_values_; }
  void apply_reflux();
  // Courant-limited time step of the level's cells (RAMSES newdt_fine / cmpdt).
  double courant_time_step(int level) const;

  // Volume integrals over leaf cells of each conservative variable.
  std::vector<double> totals() const;

  // The internal-energy floor (hydro_energy_floor.cpp; docs/hydro.md, "Positive pressure"): on the
  // owned cells of the level, where E - rho v^2 / 2 is below the floor, the larger of
  // rho smallc^2 / (gamma (gamma - 1)) (RAMSES' pressure floor rho smallc^2 / gamma) and 1e-10 of
  // rho v^2 / 2 (above the round-off of E - rho v^2 / 2), the momentum is scaled down so that the kinetic
  // energy pays for the missing internal energy: mass and total energy unchanged. Where even E is
  // below the floor, the cell is left at rest with the floor's energy (energy added, counted apart).
  // `cause` says which counter the floored cells go to.
  enum class FloorCause { update, refinement };
  void apply_energy_floor(int level, FloorCause cause);
  // The same on every level (after a regrid: prolongated cells).
  void apply_energy_floor_all_levels(FloorCause cause);
  struct FloorCounts {
    long long after_update = 0;      // cells floored after the Godunov update (and pressure fix)
    long long after_refinement = 0;  // cells floored after a regrid (prolongation)
    long long energy_added = 0;      // of those, cells where E itself was below the floor
    long long examined = 0;          // cell visits after updates (the fractions' denominator)
  };
  const FloorCounts& floor_counts() const { return floor_counts_; }

  // interpol_var=1 around a regrid (hydro_internal_energy_interpolation.cpp): before it, every
  // cell's internal energy into a transient field the regrid prolongates and restricts with the
  // others; after it, E = that internal energy + the kinetic energy of the new momenta wherever the
  // regrid changed the cell (elsewhere E is left bit for bit).
  void store_internal_energy_for_regrid();
  void rebuild_energy_after_regrid();

  // This rank's leaf cells: internal energy, smallest pressure per density and cells whose
  // pressure (gamma - 1)(E - rho v^2 / 2) is <= 0 (the step line's minimum temperature).
  struct ThermalSummary {
    double thermal_energy = 0.0;
    double min_pressure_per_density = 0.0;
    long long nonpositive = 0;
    long long leaves = 0;
  };
  ThermalSummary thermal_summary() const;

  // Energy the pressure fix's replacement E = e + rho v^2 / 2 added to this rank's leaf cells since
  // the start (code units; negative when it removed energy): the scheme's only non-conservative
  // step (docs/hydro.md "Pressure fix"), which the step log's energy account counts (docs/galaxy.md).
  double pressure_fix_energy() const { return pressure_fix_energy_; }

  // Primitive variables written to snapshots: density, velocity_*, pressure, scalar_NN.
  std::vector<core::FieldInfo> output_fields() const;
  // Their values for the 2^D cells of oct o: out[field * 2^D + cell].
  void output_values(core::OctIndex o, double* out) const;

  // Seconds spent in the parts of godunov(): stencil lookup, flux loop, refluxing.
  struct Timing {
    double stencil = 0, fluxes = 0, reflux = 0;
  };
  const Timing& timing() const { return timing_; }

  // The 3^D neighbourhood of every oct, per level, shared with refinement (rebuilt only when the
  // mesh changes).
  core::StencilCaches<D, Key>& stencils() { return stencils_; }

 private:
  std::vector<RefluxContribution> reflux_;
  std::vector<double> reflux_values_;

  void copy_level(int level, const std::vector<int>& from, const std::vector<int>& to);
  // gravity_kick with dt_kick = factor * kick_time[cell], or factor where kick_time is nullptr.
  void kick_level(int level, double factor, const double* kick_time);

  // The stages of godunov(), per oct (hydro_solver.cpp): gather its 6^D block, fill the ghost cells
  // beyond walls, MUSCL-Hancock fluxes, no flux next to refined cells, update, reflux records.
  struct GodunovLevel;    // what every oct of the level shares
  struct GodunovScratch;  // one thread's blocks, fluxes and reflux records
  std::vector<unsigned char> neighbours_read() const;
  bool gather_block(const GodunovLevel& shared, std::size_t i, GodunovScratch& scratch) const;
  void fill_wall_ghosts(const GodunovLevel& shared, core::OctIndex o, GodunovScratch& scratch) const;
  void drop_fluxes_next_to_refined(const GodunovLevel& shared, std::size_t i, GodunovScratch& scratch) const;
  void update_oct(const GodunovLevel& shared, core::OctIndex o, const GodunovScratch& scratch) const;
  void record_coarse_fluxes(const GodunovLevel& shared, std::size_t i, GodunovScratch& scratch) const;

  // The pressure fix (hydro_pressure_fix.cpp; RAMSES set_unew, add_pdv_source_terms, set_uold):
  // the internal energy advected non-conservatively (enew) and -div(v) dt from the face velocities
  // (divu), both transient cell fields registered only when the fix is on.
  void register_pressure_fix_fields();
  void start_internal_energy(int level);
  void add_pdv_work(const GodunovLevel& shared, std::size_t i, const GodunovScratch& scratch) const;
  void apply_pressure_fix(int level, double dt);
  // interpol_var=1: the transient internal-energy field, uold's fields with it in place of E (what
  // prolongation interpolates), and the restriction's internal-energy mean.
  void register_interpolation_fields();
  void restrict_internal_energy(int level);
  void rebuild_children_energy(double* children) const;
  int interpolated_internal_ = -1;
  std::vector<int> interpolation_fields_;

  Tree& tree_;
  Settings settings_;
  FloorCounts floor_counts_;
  double pressure_fix_energy_ = 0.0;
  int nvar_;
  int flux_width_;
  int internal_energy_ = -1, divergence_ = -1;
  std::vector<int> uold_, unew_;
  bool has_gravity_ = false;
  std::array<int, D> gravity_fields_{};
  core::StencilCaches<D, Key> stencils_;
  std::vector<std::array<int, cells_per_oct>> block_index_;  // [neighbour k][child c] -> block cell
  Timing timing_;
};

}  // namespace kosmo::hydro
