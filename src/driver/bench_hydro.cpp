#include "driver/bench_hydro.hpp"

#include <omp.h>

#include <chrono>
#include <cstdio>
#include <ostream>
#include <string>

#include "core/parameters.hpp"
#include "driver/simulation.hpp"

namespace kosmo::driver {
namespace {

// RAMSES sedov3d-like set-up: energy 0.4 in a small sphere at the centre of a periodic box.
std::string sedov_namelist(int levelmin, int levelmax) {
  return "&RUN_PARAMS\nhydro=.true.\nndim=3\n/\n&AMR_PARAMS\nlevelmin=" + std::to_string(levelmin) + "\nlevelmax=" +
         std::to_string(levelmax) +
         "\n/\n&INIT_PARAMS\nnregion=2\nregion_type='square','square'\nx_center=0.5,0.5\ny_center=0.5,0.5\nz_center=0.5,0.5\n"
         "length_x=10.0,0.06\nlength_y=10.0,0.06\nlength_z=10.0,0.06\nexp_region=10.0,2.0\nd_region=1.0,1.0\np_region=1e-5,1415.0\n/\n"
         "&HYDRO_PARAMS\ngamma=1.4\ncourant_factor=0.8\nslope_type=2\nriemann='hllc'\n/\n"
         "&REFINE_PARAMS\nerr_grad_p=0.1\ninterpol_type=2\n/\n";
}

void run_case(MPI_Comm comm, std::ostream& out, const std::string& name, int levelmin, int levelmax, int coarse_steps) {
  int nrank = 1;
  MPI_Comm_size(comm, &nrank);
  const auto params = core::ParameterSet::from_text(sedov_namelist(levelmin, levelmax), name + ".nml");
  Simulation<3> sim(params, comm);
  sim.initialise();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Time only the steps: initial conditions are not part of a cell update.
  sim.timers() = core::Timers();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < coarse_steps; ++i) sim.advance(sim.courant_time_step());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  long long cells = 0, updates = sim.cell_updates();
  for (int l = 1; l <= sim.tree().levelmax(); ++l) cells += static_cast<long long>(sim.tree().octs_at_level(l).size()) * 8;
  double slowest = seconds;
  MPI_Allreduce(MPI_IN_PLACE, &cells, 1, MPI_LONG_LONG, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, &updates, 1, MPI_LONG_LONG, MPI_SUM, comm);
  MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
  if (rank != 0) return;
  const int threads = omp_get_max_threads();
  const double cores = static_cast<double>(threads * nrank);
  char line[512];
  std::snprintf(line, sizeof line,
                "{\"case\": \"%s\", \"ranks\": %d, \"threads\": %d, \"cells\": %lld, \"coarse_steps\": %d, \"cell_updates\": %lld, "
                "\"seconds\": %.4f, \"cell_updates_per_second_per_core\": %.4e, \"split_rank0\": {",
                name.c_str(), nrank, threads, cells, coarse_steps, updates, slowest,
                static_cast<double>(updates) / slowest / cores);
  out << line;
  bool first = true;
  double accounted = 0.0;
  for (const auto& [component, s] : sim.timers().entries()) {
    std::snprintf(line, sizeof line, "%s\"%s\": %.4f", first ? "" : ", ", component.c_str(), s);
    out << line;
    first = false;
    accounted += s;
  }
  std::snprintf(line, sizeof line, ", \"other\": %.4f}}\n", seconds - accounted);
  out << line << std::flush;
}

}  // namespace

void bench_hydro(MPI_Comm comm, std::ostream& out, int coarse_steps) {
  run_case(comm, out, "sedov64_uniform", 6, 6, coarse_steps);
  run_case(comm, out, "sedov_amr", 5, 8, coarse_steps);
}

}  // namespace kosmo::driver
