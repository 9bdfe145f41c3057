// kosmo: thin entry point. Parses the command line, reads the parameters, runs, and turns any
// kosmo::Error into one message and a non-zero exit status.
#include <mpi.h>
#include <omp.h>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "driver/bench_agn.hpp"
#include "driver/bench_feedback.hpp"
#include "driver/bench_fof.hpp"
#include "driver/bench_gravity.hpp"
#include "driver/bench_hydro.hpp"
#include "driver/bench_io.hpp"
#include "driver/bench_scaling.hpp"
#include "driver/check_command.hpp"
#include "driver/command_line.hpp"
#include "driver/decompose_command.hpp"
#include "driver/grafic_command.hpp"
#include "driver/run.hpp"

namespace {

void print_banner(int nrank) {
  std::cout << " _    _  ___  ___ _ __ ___   ___\n"
               "| | _/ |/ _ \\/ __| '_ ` _ \\ / _ \\   kosmo 0.1.0: cell-based octree AMR\n"
               "| |/ /| | (_) \\__ \\ | | | | | (_) |  for RAMSES users\n"
               "|___/ |_|\\___/|___/_| |_| |_|\\___/\n\n"
            << " Working with " << nrank << " MPI rank" << (nrank == 1 ? "" : "s") << " and " << omp_get_max_threads()
            << " OpenMP thread" << (omp_get_max_threads() == 1 ? "" : "s") << " per rank\n";
}

// A namelist with several problems gets one line each under a header, so every one is seen.
void print_error(const std::string& message) {
  if (message.find('\n') == std::string::npos) {
    std::cerr << "kosmo: error: " << message << "\n";
    return;
  }
  std::cerr << "kosmo: error: the run stops before any work; every problem found:\n" << message << "\n";
}

// `kosmo bench scaling` launches mpirun itself, so it runs as a plain process: before MPI_Init, so
// that no MPI state of its own is inherited by the runs it starts. Returns -1 for any other command
// (a command line it cannot parse is reported after MPI_Init, as usual).
int run_without_mpi(int argc, char** argv) {
  kosmo::driver::CommandLine line;
  try {
    line = kosmo::driver::parse_command_line(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const kosmo::Error&) {
    return -1;
  }
  if (line.command != "bench" || line.bench != "scaling") return -1;
  try {
    return kosmo::driver::bench_scaling({line.bench_case, line.steps}, std::cout, std::cerr) ? 0 : 1;
  } catch (const kosmo::Error& error) {
    std::cerr << "kosmo: error: " << error.what() << "\n";
    return 2;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (const int status = run_without_mpi(argc, argv); status >= 0) return status;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, nrank = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nrank);

  kosmo::driver::CommandLine line;
  kosmo::core::ParameterSet params;
  // Phase 1: command line and parameters. Every rank parses the same input, so every rank fails
  // the same way: rank 0 reports and all exit cleanly.
  try {
    line = kosmo::driver::parse_command_line(std::vector<std::string>(argv + 1, argv + argc));
    if (line.command == "help" || line.command == "version") {
      if (rank == 0) std::cout << (line.command == "help" ? kosmo::driver::usage() : "kosmo 0.1.0\n");
      MPI_Finalize();
      return 0;
    }
    if (line.command == "decompose") {
      // A dry run in one process: it builds the decomposition for N ranks without launching them.
      if (rank == 0) kosmo::driver::decompose_command(line.passthrough, std::cout);
      MPI_Finalize();
      return 0;
    }
    if (line.command == "grafic") {
      if (rank == 0) kosmo::driver::grafic_command(line.passthrough, std::cout);
      MPI_Finalize();
      return 0;
    }
    if (line.command == "check") {
      // Every rank reads the same file; rank 0 speaks for all.
      std::ostringstream report;
      const int status = kosmo::driver::check_command(line, report);
      if (rank == 0) std::cout << report.str();
      MPI_Finalize();
      return status;
    }
    if (line.command == "bench") {
      KOSMO_REQUIRE(!line.bench.empty(), "which benchmark? (kosmo bench hydro | gravity | feedback | agn | fof | io | scaling)");
      if (line.bench == "gravity") {
        kosmo::driver::bench_gravity(MPI_COMM_WORLD, std::cout);
      } else if (line.bench == "feedback") {
        kosmo::driver::bench_feedback(MPI_COMM_WORLD, std::cout, line.steps > 0 ? line.steps : 3);
      } else if (line.bench == "agn") {
        kosmo::driver::bench_agn(MPI_COMM_WORLD, std::cout, line.steps > 0 ? line.steps : 3);
      } else if (line.bench == "fof") {
        kosmo::driver::bench_fof(MPI_COMM_WORLD, std::cout, line.steps > 0 ? line.steps : 3);
      } else if (line.bench == "io") {
        kosmo::driver::bench_io(MPI_COMM_WORLD, std::cout);
      } else {
        kosmo::driver::bench_hydro(MPI_COMM_WORLD, std::cout, line.steps > 0 ? line.steps : 10);
      }
      MPI_Finalize();
      return 0;
    }
    params = kosmo::driver::load_run_parameters(line);
  } catch (const kosmo::Error& error) {
    if (rank == 0) print_error(error.what());
    MPI_Finalize();
    return 2;
  }

  // Phase 2: the run. An error may strike one rank only, so it aborts the whole job.
  try {
    if (rank == 0) {
      print_banner(nrank);
      // summary() heads its table with the source and the meaning of '*' and '+'.
      std::cout << "\n" << params.summary() << "\n";
      if (const std::string ignored = params.ignored_summary(); !ignored.empty()) std::cout << " " << ignored << "\n\n";
    }
    kosmo::driver::run(params, MPI_COMM_WORLD, std::cout, line.snapshot_steps);
  } catch (const kosmo::CollectiveError& error) {
    // Every rank stopped here together (bad initial conditions, a missing restart file).
    if (rank == 0) std::cerr << "kosmo: error: " << error.what() << "\n";
    MPI_Finalize();
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "kosmo: error (rank " << rank << "): " << error.what() << "\n";
    std::cerr.flush();
    // One rank has nothing to abort (and OpenMPI's singleton abort adds its own noise).
    if (nrank == 1) {
      MPI_Finalize();
      return 1;
    }
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) std::cout << " Run completed\n";
  MPI_Finalize();
  return 0;
}
