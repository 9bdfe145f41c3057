#include "driver/simulation_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <ostream>

#include "core/output_schedule.hpp"
#include "cooling/cooling_module.hpp"
#include "cosmology/layzer_irvine.hpp"
#include "cosmology/physical_units.hpp"
#include "driver/simulation_start.hpp"
#include "driver/simulation.hpp"
#include "feedback/feedback_module.hpp"
#include "star_formation/star_formation_module.hpp"
#include "driver/mesh_snapshot.hpp"
#include "driver/job_control.hpp"
#include "driver/mesh_report.hpp"
#include "driver/run_summary.hpp"
#include "driver/mesh_update_report.hpp"
#include "driver/progress_report.hpp"
#include "driver/ramses_restart_state.hpp"
#include "hydro/hydro_restart_conversion.hpp"
#include "hydro/initial_regions.hpp"
#include "io/namelist_copy.hpp"
#include "io/ramses_reader.hpp"
#include "io/snapshot_reader.hpp"
#include "io/snapshot_writer.hpp"
#include "parallel/collective_check.hpp"
#include "parallel/memory_usage.hpp"

namespace kosmo::driver {
namespace {

// Relative change of a conserved total; absolute when the initial total is zero.
double relative_change(double now, double initial) {
  return initial != 0.0 ? (now - initial) / std::fabs(initial) : now;
}

// The run's start: a restart from output nrestart (kosmo's HDF5 snapshot, bit for bit, or RAMSES'
// binary files after &OUTPUT_PARAMS informat) or the initial conditions. Collective.
template <int D>
void start_run(Simulation<D>& sim, const core::ParameterSet& params, MPI_Comm comm, int rank, std::ostream& log,
               const PatchLibrary* patch) {
  const auto nrestart = static_cast<int>(params.get_int("RUN_PARAMS", "nrestart"));
  // Every rank reads the same initial conditions: a bad file stops all ranks with one message.
  parallel::run_collectively(comm, [&] { prepare_start(sim, params, nrestart > 0, patch); });
  if (nrestart > 0) {
    const bool ramses = params.get_string("OUTPUT_PARAMS", "informat") == "ramses";
    const int npassive = hydro::passive_scalar_count(params);
    if (ramses) {
      // RAMSES files lack the leapfrog's restart-only state: rebuilt as RAMSES does (driver/ramses_restart_state.hpp).
      // A run without gas reads no hydro files (RAMSES writes none for it).
      const io::CellVariableConversion conversion = sim.gas() ? hydro::ramses_restart_conversion<D>(npassive, params.get_bool("COOLING_PARAMS", "metal")) : io::CellVariableConversion{};
      io::RestartShare share = io::read_ramses_restart_share(comm, ".", nrestart, conversion);
      complete_ramses_restart_share(sim, share);
      const std::vector<double> steps = share.meta.level_time_steps;
      sim.restart(share);
      rebuild_particle_kicks(sim, steps);
    } else {
      sim.restart(io::read_restart_share(comm, ".", nrestart));
    }
    if (rank == 0) log << " Restarted from " << io::output_directory_name(nrestart) << " at t=" << sim.time() << ", step " << sim.step() << "\n";
  } else {
    sim.initialise();
  }
  const std::string levels = level_summary(sim.tree(), comm);  // collective
  if (rank == 0) log << " Initial mesh\n" << levels << memory_summary(sim.tree()) << std::flush;
}

// The output times (tout, or aout converted to the code time tau in a cosmological run) and the end
// of the run: RAMSES stops at tend, or at the last output time when tend is not given.
struct RunSchedule {
  core::OutputSchedule outputs;
  double tend = 0.0;
};

RunSchedule run_schedule(const core::ParameterSet& params, const cosmology::CosmologicalModel* cosmology, double start_time) {
  const auto noutput = static_cast<std::size_t>(params.get_int("OUTPUT_PARAMS", "noutput"));
  auto tout = params.get_real_array("OUTPUT_PARAMS", cosmology ? "aout" : "tout");
  tout.resize(std::min(noutput, tout.size()));
  double tend_parameter = params.get_real("OUTPUT_PARAMS", cosmology ? "aend" : "tend");
  // RAMSES appends tend (aend) to the output list when it is set (> 0).
  const bool end_given = tend_parameter > 0.0;
  if (cosmology) {
    // delta_aout: every multiple of it up to aend is an output (RAMSES aout_next), after the start.
    const double delta_aout = params.get_real("OUTPUT_PARAMS", "delta_aout");
    if (delta_aout > 0.0 && end_given) {
      const double a_start = cosmology->aexp_at(start_time);
      const auto n = static_cast<long long>(std::floor(tend_parameter / delta_aout * (1.0 + 1e-12)));
      for (long long k = 1; k <= n; ++k)
        if (static_cast<double>(k) * delta_aout > a_start) tout.push_back(static_cast<double>(k) * delta_aout);
      std::sort(tout.begin(), tout.end());
    }
    for (double& t : tout) t = cosmology->time_at(t);
    if (end_given) tend_parameter = cosmology->time_at(tend_parameter);
  }
  core::OutputSchedule schedule(core::OutputScheduleSettings{
      .tout = tout,
      .foutput = params.get_int("OUTPUT_PARAMS", "foutput"),
      .delta_tout = cosmology ? 0.0 : params.get_real("OUTPUT_PARAMS", "delta_tout"),
      .tend = end_given ? std::optional<double>(tend_parameter) : std::nullopt});
  const double last = schedule.times().empty() ? (cosmology ? start_time : 0.0) : schedule.times().back();
  const double tend = end_given ? tend_parameter : last;
  return {std::move(schedule), tend};
}

// Writes snapshot `number` of the run, with its particles and, in a cosmological run, RAMSES'
// cosmological info: aexp, H0, omegas and the super-comoving units at this aexp. Collective.
template <int D>
void write_output(Simulation<D>& sim, const core::ParameterSet& params, MPI_Comm comm, int number) {
  const cosmology::CosmologicalModel* cosmology = sim.cosmology();
  SnapshotExtras extras;
  io::SnapshotParticles particles;
  if (sim.snapshot_particles(particles)) extras.particles = &particles;
  extras.level_time_steps = sim.level_time_steps();
  extras.complete_meta = [cosmology, &sim](io::SnapshotMeta& meta) {
    sim.complete_snapshot_meta(meta);
    if (cosmology) {
      const double a = cosmology->aexp_at(sim.time());
      const auto& c = cosmology->parameters();
      meta.cosmological = true;
      meta.aexp = a;
      meta.h0 = c.h0;
      meta.omega_m = c.omega_m;
      meta.omega_l = c.omega_l;
      meta.omega_k = c.omega_k;
      meta.omega_b = c.omega_b;
      meta.unit_l = cosmology->unit_length(a);
      meta.unit_d = cosmology->unit_density(a);
      meta.unit_t = cosmology->unit_time(a);
    }
  };
  write_mesh_snapshot(comm, sim.tree(), params, number, sim.time(), sim.step(), sim.outputs(), sim.mesh().ordering_name(),
                      sim.mesh().ksection_walls(), sim.mesh().hilbert_bounds(), extras);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  parallel::run_collectively(comm, [&] {
    if (rank == 0) io::write_namelist_copy(io::output_directory_name(number), params.source(), params.to_namelist());
  });
}

// The gas's leaf cells over all ranks: thermal energy, smallest pressure per density, cells with
// pressure <= 0. Collective.
struct GasThermalState {
  double thermal_energy = 0.0;
  double min_pressure_per_density = 0.0;
  long long nonpositive = 0;
};

template <int D>
GasThermalState gas_thermal_state(const Simulation<D>& sim, MPI_Comm comm) {
  const auto local = sim.hydro().thermal_summary();
  GasThermalState state{local.thermal_energy, local.min_pressure_per_density, local.nonpositive};
  if (!sim.mesh().distributed()) return state;
  MPI_Allreduce(MPI_IN_PLACE, &state.thermal_energy, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, &state.min_pressure_per_density, 1, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &state.nonpositive, 1, MPI_LONG_LONG, MPI_SUM, comm);
  return state;
}

// K per (code velocity)^2 (RAMSES scale_T2) when the code units are physical: a cosmological run's
// units at this aexp, or &UNITS_PARAMS when the user set them; 0 when they are not known.
template <int D>
double temperature_scale(const Simulation<D>& sim, const core::ParameterSet& params) {
  if (!sim.cosmology() && !params.set_by_user("UNITS_PARAMS", "units_length") && !params.set_by_user("UNITS_PARAMS", "units_time"))
    return 0.0;
  return cosmology::physical_units(params, sim.cosmology(), sim.time()).temperature;
}

// The metal account (docs/galaxy.md, "Metals"): the metal mass in the gas (the total of the
// metallicity scalar, the first passive one) and in the stars (mass times metallicity), and what
// the supernovae changed it by: the metals their ejecta brought to the gas minus those the ejecta
// took from their stars (a star keeps its metallicity as it loses eta_sn of its mass, so it lost
// (initial mass - mass) times it). Without metallicity scalar: nothing. Collective.
struct MetalAccount {
  double gas = 0.0, stars = 0.0, supernovae = 0.0;
  double total() const { return gas + stars; }
};

template <int D>
std::optional<MetalAccount> metal_account(const Simulation<D>& sim, const std::vector<double>& totals, MPI_Comm comm) {
  if (!sim.gas() || !sim.hydro().settings().scheme.metallicity) return std::nullopt;
  MetalAccount account;
  account.gas = totals[static_cast<std::size_t>(D) + 2];
  double taken_from_stars = 0.0;
  if (sim.particles() && sim.particles()->set().attributes().find("metallicity") >= 0) {
    const auto& set = sim.particles()->set();
    const auto metallicity = set.template values<double>("metallicity");
    const auto initial_mass = set.template values<double>("initial_mass");
    const auto family = set.family();
    const auto mass = set.mass();
    for (std::size_t i = 0; i < set.size(); ++i) {
      if (family[i] != particles::Family::star) continue;
      account.stars += mass[i] * metallicity[i];
      taken_from_stars += (initial_mass[i] - mass[i]) * metallicity[i];
    }
  }
  if (sim.mesh().distributed()) {
    double sums[2] = {account.stars, taken_from_stars};
    MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, comm);
    account.stars = sums[0];
    taken_from_stars = sums[1];
  }
  const auto* feedback = sim.template find_module<feedback::FeedbackModule<D>>();
  account.supernovae = (feedback ? feedback->injected_since_start().metal_mass : 0.0) - taken_from_stars;
  return account;
}

// What the conservation diagnostic of a cosmological run needs besides the totals.
struct CosmicEnergy {
  cosmology::LayzerIrvine* layzer_irvine = nullptr;  // nullptr outside cosmological runs
};

// Energy the modules added to gas + particles since the start (docs/galaxy.md "Energy accounting"):
// the gas's heating minus what it radiated, the explosions, star formation (the thermal energy of
// the gas stars take, the polytrope floor) and the pressure fix's replacements. Collective.
struct ModuleEnergy {
  double cooling = 0.0, supernovae = 0.0, stars = 0.0, pressure_fix = 0.0;
  bool forms_stars = false, fixes_pressure = false;
  double total() const { return cooling + supernovae + stars + pressure_fix; }
};

template <int D>
ModuleEnergy module_energy(const Simulation<D>& sim) {
  ModuleEnergy e;
  const auto* cooling = sim.template find_module<cooling::CoolingModule<D>>();
  const auto* feedback = sim.template find_module<feedback::FeedbackModule<D>>();
  const auto* stars = sim.template find_module<star_formation::StarFormationModule<D>>();
  e.forms_stars = stars != nullptr;
  e.fixes_pressure = sim.gas() && sim.hydro().settings().scheme.pressure_fix;
  if (cooling) e.cooling = cooling->heating_energy() - cooling->radiated_energy();  // collective
  if (feedback) e.supernovae = feedback->injected_since_start().explosion_energy;
  if (stars) e.stars = sim.mesh().sum(stars->energy_to_stars() + stars->polytrope_floor_energy());  // collective
  if (e.fixes_pressure) e.pressure_fix = sim.mesh().sum(sim.hydro().pressure_fix_energy());  // collective
  return e;
}

// Adds the run's energies now to the Layzer-Irvine accumulator (docs/cosmology.md), with what the
// modules added. Collective.
template <int D>
void sample_cosmic_energy(const Simulation<D>& sim, MPI_Comm comm, cosmology::LayzerIrvine& layzer_irvine) {
  const std::vector<double> totals = sim.totals();  // collective
  const double potential = sim.potential_energy();  // collective
  const double thermal = sim.gas() ? gas_thermal_state(sim, comm).thermal_energy : 0.0;  // collective
  const double added = module_energy(sim).total();  // collective
  const double total = totals.size() > static_cast<std::size_t>(D) + 1 ? totals[static_cast<std::size_t>(D) + 1] : 0.0;
  layzer_irvine.add({sim.cosmology()->aexp_at(sim.time()), total - thermal, thermal, potential}, added);
}

// RAMSES' step line: step, time, conservation (with gravity the conserved energy includes the
// potential energy, RAMSES econs; in a cosmological run econs is the Layzer-Irvine residual),
// aexp, what the modules report, the gas's minimum temperature, octs per level, memory. Collective.
template <int D>
void log_step(Simulation<D>& sim, const core::ParameterSet& params, MPI_Comm comm, int rank, double dt, const std::vector<double>& initial,
              double initial_energy, const std::optional<MetalAccount>& initial_metals, const CosmicEnergy& cosmic, std::ostream& log) {
  const auto energy = static_cast<std::size_t>(D) + 1;
  const parallel::MemoryRange memory = parallel::resident_memory_range(comm);  // collective
  const std::vector<double> now = sim.totals();                                // collective
  const double potential = sim.potential_energy();                             // collective
  const long long particle_count = sim.particles() ? sim.particles()->count() : 0;  // collective
  std::optional<GasThermalState> gas;
  if (sim.gas()) gas = gas_thermal_state(sim, comm);  // collective
  const std::optional<MetalAccount> metals = metal_account(sim, now, comm);  // collective
  // Energy the modules exchange with the outside since the start: econs counts it.
  const bool cools = sim.template find_module<cooling::CoolingModule<D>>() != nullptr;
  const ModuleEnergy added = module_energy(sim);  // collective
  std::vector<long long> octs(static_cast<std::size_t>(sim.tree().levelmax()) + 1, 0);
  for (int l = 1; l <= sim.tree().levelmax(); ++l) octs[static_cast<std::size_t>(l)] = static_cast<long long>(sim.tree().octs_at_level(l).size());
  if (sim.mesh().distributed()) MPI_Allreduce(MPI_IN_PLACE, octs.data(), static_cast<int>(octs.size()), MPI_LONG_LONG, MPI_SUM, comm);
  if (rank != 0) return;
  const double econs = cosmic.layzer_irvine ? cosmic.layzer_irvine->relative_residual()
                                            : relative_change(now[energy] + potential - added.total(), initial_energy);
  char line[256];
  std::snprintf(line, sizeof line, " Main step=%7lld t=%12.5e dt=%10.3e mcons=%10.2e econs=%10.2e", sim.step(), sim.time(), dt,
                relative_change(now[0], initial[0]), econs);
  log << line;
  if (const auto* cosmology = sim.cosmology()) {
    const double a = cosmology->aexp_at(sim.time());
    std::snprintf(line, sizeof line, " a=%10.4e z=%8.3f", a, 1.0 / a - 1.0);
    log << line;
  }
  // The run control reports the particles and the potential energy where the run has them.
  if (sim.particles()) {
    std::snprintf(line, sizeof line, " npart=%lld", particle_count);
    log << line;
  }
  if (sim.gravity()) {
    std::snprintf(line, sizeof line, " epot=%11.4e", potential);
    log << line;
  }
  // The coldest leaf cell: T/mu in K where the units are physical, else the code p/rho; a count
  // of cells with pressure <= 0 only when there are some.
  if (gas) {
    const double scale = temperature_scale(sim, params);
    if (scale > 0.0) {
      std::snprintf(line, sizeof line, " Tmin/mu=%10.3e K", gas->min_pressure_per_density * scale);
    } else {
      std::snprintf(line, sizeof line, " min(p/rho)=%10.3e", gas->min_pressure_per_density);
    }
    log << line;
    if (gas->nonpositive > 0) log << " cells with p<=0: " << gas->nonpositive;
  }
  if (cools) {
    std::snprintf(line, sizeof line, " Ecool=%11.4e", added.cooling);
    log << line;
  }
  if (added.forms_stars) {
    std::snprintf(line, sizeof line, " Esn=%11.4e Esf=%11.4e", added.supernovae, added.stars);
    log << line;
  }
  if (added.fixes_pressure) {
    std::snprintf(line, sizeof line, " Efix=%11.4e", added.pressure_fix);
    log << line;
  }
  // Metals: gas + stars, the supernovae's net metals since the start, and the relative residual of
  // the account (round-off: the hydro scheme, star formation and refinement move metals, only the
  // supernovae make them).
  if (metals && initial_metals) {
    const double change = (metals->total() - initial_metals->total()) - (metals->supernovae - initial_metals->supernovae);
    const double scale = std::max(std::fabs(metals->total()), std::fabs(initial_metals->total()));
    std::snprintf(line, sizeof line, " Mz=%11.4e Zsn=%11.4e zcons=%10.2e", metals->total(), metals->supernovae - initial_metals->supernovae,
                  scale > 0.0 ? change / scale : 0.0);
    log << line;
  }
  log << " octs:";
  for (int l = 1; l <= sim.tree().levelmax(); ++l)
    if (octs[static_cast<std::size_t>(l)] > 0) log << ' ' << l << ':' << octs[static_cast<std::size_t>(l)];
  std::snprintf(line, sizeof line, " mem(MB) min=%.1f max=%.1f", memory.min_bytes / 1048576.0, memory.max_bytes / 1048576.0);
  log << line << '\n' << std::flush;
}

// End of a run: the energy floor's activity (docs/hydro.md, "Positive pressure") and the
// Layzer-Irvine residual against its bound (docs/cosmology.md). Collective.
template <int D>
void log_energy_summary(const Simulation<D>& sim, MPI_Comm comm, int rank, const CosmicEnergy& cosmic, std::ostream& log) {
  if (sim.gas() && sim.hydro().settings().scheme.energy_floor) {
    const auto& counts = sim.hydro().floor_counts();
    long long sums[4] = {counts.after_update, counts.after_refinement, counts.energy_added, counts.examined};
    if (sim.mesh().distributed()) MPI_Allreduce(MPI_IN_PLACE, sums, 4, MPI_LONG_LONG, MPI_SUM, comm);
    if (rank == 0) {
      char line[320];
      std::snprintf(line, sizeof line,
                    " Energy floor: %lld cells after updates (%.2e of %lld cell updates), %lld after refinement, %lld with "
                    "energy added\n",
                    sums[0], sums[3] > 0 ? static_cast<double>(sums[0]) / static_cast<double>(sums[3]) : 0.0, sums[3], sums[1], sums[2]);
      log << line;
    }
  }
  if (cosmic.layzer_irvine && rank == 0) {
    const cosmology::LayzerIrvine& li = *cosmic.layzer_irvine;
    char line[320];
    std::snprintf(line, sizeof line,
                  " Layzer-Irvine: residual %.3e of a|W| (bound %.3e), %.3e without the integral of K + (3 gamma - 4) U; "
                  "largest step da/a = %.3f\n",
                  li.relative_residual(), li.bound(), li.relative_residual_without_integral(), li.largest_step());
    log << line;
  }
}

}  // namespace

template <int D>
void run_simulation(const core::ParameterSet& params, MPI_Comm comm, std::ostream& log, const PatchLibrary* patch,
                    const std::vector<long long>& snapshot_steps) {
  using Clock = std::chrono::steady_clock;
  const auto run_start = Clock::now();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  Simulation<D> sim(params, comm);
  start_run(sim, params, comm, rank, log, patch);
  auto [schedule, tend] = run_schedule(params, sim.cosmology(), sim.time());
  const long long nstepmax = params.get_int("RUN_PARAMS", "nstepmax");
  if (rank == 0 && !sim.cosmology() && !(tend > 0.0))
    log << " Nothing to advance: the run ends at t = 0 (tend and the last of tout(1:noutput) are 0,\n"
           "   as RAMSES' defaults are); set tout or tend in &OUTPUT_PARAMS\n";
  const auto nrestart = static_cast<int>(params.get_int("RUN_PARAMS", "nrestart"));
  int output_number = nrestart > 0 ? nrestart + 1 : 1;
  // The exchange auto-tuner's decisions since the last report, one line per component.
  auto log_tuning_summary = [&]() {
    for (const std::string& entry : sim.mesh().drain_tuning_log())
      if (rank == 0) log << "   " << entry << '\n';
  };
  auto output = [&]() {
    const auto start = Clock::now();
    write_output(sim, params, comm, output_number);
    schedule.record(sim.time());
    if (rank == 0) log << " Output written: " << io::output_directory_name(output_number) << " at t=" << sim.time() << "\n" << std::flush;
    log_tuning_summary();
    ++output_number;
    sim.timers().add("output", start);
  };
  // RAMSES' numbering (docs/outputs.md, "When outputs are written"): a new run writes its initial
  // state as output_00001, which also stands for the output times up to the start; a restart from
  // output N writes nothing at its start and numbers on from N + 1.
  if (nrestart > 0) {
    schedule.record(sim.time());  // the outputs up to the restart time exist already
  } else {
    output();
  }
  JobControl job(params, comm, run_start, snapshot_steps);
  const std::vector<double> initial = sim.totals();
  const double initial_energy = initial[static_cast<std::size_t>(D) + 1] + sim.potential_energy();
  const std::optional<MetalAccount> initial_metals = metal_account(sim, initial, comm);  // collective
  // Sampled at each coarse step's start, after the coarse forces: there the potential energy is
  // that of the current state (at a step's end it is the potential solved at the step's start).
  std::optional<cosmology::LayzerIrvine> layzer_irvine;
  if (sim.cosmology() && sim.gravity()) {
    layzer_irvine.emplace(params.get_real("HYDRO_PARAMS", "gamma"));
    sim.set_coarse_force_observer([&sim, comm, &layzer_irvine] {
      const auto start = Clock::now();
      sample_cosmic_energy(sim, comm, *layzer_irvine);  // collective
      sim.timers().add("step diagnostics", start);
    });
  }
  const CosmicEnergy cosmic{layzer_irvine ? &*layzer_irvine : nullptr};
  // tau < 0 before today in cosmological runs: compare with a tolerance on the step, not on tend.
  const double end_tolerance = 1e-12 * std::max(std::fabs(tend), std::fabs(sim.time()));
  const ProgressReport progress = make_progress_report(sim.cosmology(), sim.time(), tend, sim.step(), nstepmax);
  const auto loop_start = Clock::now();
  while (sim.time() < tend - end_tolerance && sim.step() < nstepmax) {
    const auto start = Clock::now();
    double dt = sim.courant_time_step();
    sim.timers().add("courant time step", start);
    dt = std::min(schedule.limit_time_step(sim.time(), dt), tend - sim.time());
    sim.advance(dt);
    const auto diagnostics_start = Clock::now();
    log_step(sim, params, comm, rank, dt, initial, initial_energy, initial_metals, cosmic, log);
    sim.timers().add("step diagnostics", diagnostics_start);
    if (rank == 0)
      log << progress.line(progress_value(sim.cosmology(), sim.time()), sim.step(),
                           std::chrono::duration<double>(Clock::now() - loop_start).count()) << std::flush;
    const JobDecision decision = job.check(sim.step());  // collective
    if (schedule.due(sim.time(), sim.step()) || decision.write_output) output();
    if (decision.write_output && rank == 0) log << " Job control: " << decision.reason << "\n" << std::flush;
    if (decision.stop) break;
  }
  log_tuning_summary();
  log_energy_summary(sim, comm, rank, cosmic, log);  // collective
  const double total = std::chrono::duration<double>(Clock::now() - run_start).count();
  const std::string mesh_updates = mesh_update_summary(sim.mesh(), sim.tree());  // collective
  if (rank == 0) log << mesh_updates << " Final mesh\n" << memory_summary(sim.tree());
  if (rank == 0) {
    char line[160];
    std::snprintf(line, sizeof line, " %lld coarse steps, %lld cell updates, %.3e cell updates per second\n", sim.step(), sim.cell_updates(),
                  static_cast<double>(sim.cell_updates()) / std::max(total, 1e-30));
    log << line << sim.timers().table(total) << std::flush;
  }
  report_run_summary({sim.step(), total, &sim.timers(), mesh_exchange_kinds(sim.mesh())}, comm, log);  // collective
}

template void run_simulation<1>(const core::ParameterSet&, MPI_Comm, std::ostream&, const PatchLibrary*, const std::vector<long long>&);
template void run_simulation<2>(const core::ParameterSet&, MPI_Comm, std::ostream&, const PatchLibrary*, const std::vector<long long>&);
template void run_simulation<3>(const core::ParameterSet&, MPI_Comm, std::ostream&, const PatchLibrary*, const std::vector<long long>&);

}  // namespace kosmo::driver
