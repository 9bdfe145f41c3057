#pragma once
// The cooling module (&COOLING_PARAMS cooling=.true.; RAMSES cooling_fine): after each level step,
// on the level's leaf cells, the gas's internal energy follows the net cooling of primordial_rates
// (or the ISM function, cooling_ism) at constant density for the step's duration, integrated
// implicitly by cooling_solver; kinetic energy, density and metallicity are unchanged. It holds no
// fields of its own: it updates the hydro module's conservative state, which it finds by name, and
// reads the gas metallicity from the passive scalar 'metallicity_density' when metal=.true.
// Physical units come from &UNITS_PARAMS, or in a cosmological run from the cosmology at the level's
// time (RAMSES amr/units.f90). The rate table is rebuilt when the redshift has moved by more than
// table_redshift_tolerance (1 + z) since it was built. RAMSES limits the step by no cooling time
// (pm/newdt_fine.f90), and neither does this module: the integration substeps instead.
#include <memory>
#include <optional>
#include <vector>

#include "cooling/cooling_parameters.hpp"
#include "cooling/cooling_solver.hpp"
#include "cooling/cooling_table.hpp"
#include "cooling/delayed_cooling.hpp"
#include "core/oct_tree.hpp"
#include "core/parameters.hpp"
#include "core/physics_module.hpp"
#include "core/timers.hpp"
#include "cosmology/physical_units.hpp"
#include "parallel/distributed_mesh.hpp"

namespace kosmo::cooling {

// What the cooling solve needs of the code units (cosmology/physical_units.hpp gives them in cgs):
// seconds per code time, and the code's p/rho and density as T2 and n_H. The two conversions use
// the cooling rates' own m_H and k_B (primordial_rates.hpp, RAMSES' cooling_module.f90 values), as
// kosmo's cooling always has; RAMSES' cooling_fine takes scale_T2 and scale_nH of units(), with
// amr/constants.f90's m_H and k_B, 3e-4 apart.
struct CoolingUnits {
  double time = 1.0;         // s
  double t2_per_code = 1.0;  // T2 [K] of a code pressure / density of 1 (RAMSES scale_T2)
  double nh_per_code = 1.0;  // n_H [1/cm^3] of a code density of 1 (RAMSES scale_nH)
};
CoolingUnits cooling_units(const cosmology::PhysicalUnits& units);

template <int D>
class CoolingModule final : public core::PhysicsModule<D> {
 public:
  using Key = core::MortonKey;
  using Tree = core::OctTree<D, Key>;
  static constexpr double table_redshift_tolerance = 1e-3;

  CoolingModule(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh, core::Timers& timers);

  std::string name() const override { return "cooling"; }
  void connect(const std::vector<core::PhysicsModule<D>*>& modules) override;
  void set_cosmology(const cosmology::CosmologicalModel* model) override { cosmology_ = model; }
  void update_forces(int level, std::optional<double> time) override;
  void source_terms(int level, double dt) override;

  // Energy bookkeeping since the start of this run (code energy units; summed over ranks, so
  // collective): what the gas radiated and what photo- and Compton heating gave it. The change of
  // the gas's thermal energy by cooling is gained - radiated.
  double radiated_energy() const;
  double heating_energy() const;
  // The table in use (built at the first level step).
  const CoolingTable* table() const { return table_.get(); }

 private:
  void update_table(double redshift);

  const core::ParameterSet& params_;  // the run's, which outlives its modules
  Tree& tree_;
  parallel::DistributedMesh<D, Key>& mesh_;
  core::Timers& timers_;
  CoolingSettings settings_;
  CoolingSolverSettings solver_;
  double smallr_ = 1e-10;
  CoolingUnits code_units_;
  const cosmology::CosmologicalModel* cosmology_ = nullptr;
  std::vector<double> level_time_;  // each level's step start, from update_forces
  int density_ = -1, energy_ = -1, metallicity_ = -1;
  std::optional<DelayedCooling> delayed_;  // &FEEDBACK_PARAMS delayed_cooling
  int delay_scalar_ = -1;                  // its passive scalar (conserved density)
  std::array<int, D> momentum_{};
  std::unique_ptr<CoolingTable> table_;
  double radiated_ = 0.0, heated_ = 0.0;  // this rank's totals
};

}  // namespace kosmo::cooling
