#include "driver/bench_io.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <ostream>
#include <string>

#include "core/parameters.hpp"
#include "driver/simulation.hpp"
#include "driver/mesh_snapshot.hpp"
#include "io/snapshot_reader.hpp"

namespace kosmo::driver {
namespace {

std::string uniform_namelist(int level) {
  return "&RUN_PARAMS\nhydro=.true.\nndim=3\n/\n&AMR_PARAMS\nlevelmin=" + std::to_string(level) + "\nlevelmax=" +
         std::to_string(level) +
         "\n/\n&INIT_PARAMS\nnregion=1\nregion_type(1)='square'\nx_center=0.5\ny_center=0.5\nz_center=0.5\n"
         "length_x=10.0\nlength_y=10.0\nlength_z=10.0\nexp_region=10.0\nd_region=1.0\np_region=1.0\n/\n";
}

double max_over_ranks(MPI_Comm comm, double seconds) {
  double slowest = seconds;
  MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
  return slowest;
}

void run_case(MPI_Comm comm, std::ostream& out, int level, const std::filesystem::path& directory) {
  using Clock = std::chrono::steady_clock;
  int rank = 0, nrank = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nrank);
  const auto params = core::ParameterSet::from_text(uniform_namelist(level), "bench_io.nml");
  Simulation<3> sim(params, comm);
  sim.initialise();
  constexpr int repeats = 3;
  double write_seconds = 1e300, read_seconds = 1e300;
  long long read_bytes = 0;  // what a restart reads: coordinates and restart fields, not the whole file
  for (int r = 0; r < repeats; ++r) {  // best of three: the disk cache and other jobs add noise
    MPI_Barrier(comm);
    auto start = Clock::now();
    write_mesh_snapshot(comm, sim.tree(), params, 1, sim.time(), sim.step(), sim.outputs(), sim.mesh().ordering_name(),
                        sim.mesh().ksection_walls(), sim.mesh().hilbert_bounds());
    write_seconds = std::min(write_seconds, max_over_ranks(comm, std::chrono::duration<double>(Clock::now() - start).count()));
    MPI_Barrier(comm);
    start = Clock::now();
    const io::RestartShare share = io::read_restart_share(comm, ".", 1);
    read_seconds = std::min(read_seconds, max_over_ranks(comm, std::chrono::duration<double>(Clock::now() - start).count()));
    long long mine = 0;
    for (const auto& l : share.levels) {
      mine += static_cast<long long>(l.oct_coordinates.size() * sizeof(std::int64_t));
      for (const auto& f : l.restart_fields) mine += static_cast<long long>(f.size() * sizeof(double));
    }
    MPI_Allreduce(&mine, &read_bytes, 1, MPI_LONG_LONG, MPI_SUM, comm);
  }
  long long bytes = 0, files = 0;
  if (rank == 0)
    for (const auto& entry : std::filesystem::directory_iterator(directory / "output_00001")) {
      bytes += static_cast<long long>(entry.file_size());
      ++files;
    }
  if (rank == 0) {
    char line[512];
    const long long cells = 1LL << (3 * level);
    std::snprintf(line, sizeof line,
                  "{\"case\": \"uniform_%d\", \"ranks\": %d, \"cells\": %lld, \"bytes\": %lld, \"files_per_snapshot\": %lld, "
                  "\"read_bytes\": %lld, \"write_seconds\": %.4f, \"read_seconds\": %.4f, \"write_mb_per_s\": %.1f, "
                  "\"read_mb_per_s\": %.1f}\n",
                  1 << level, nrank, cells, bytes, files, read_bytes, write_seconds, read_seconds,
                  static_cast<double>(bytes) / 1e6 / write_seconds, static_cast<double>(read_bytes) / 1e6 / read_seconds);
    out << line << std::flush;
  }
}

}  // namespace

void bench_io(MPI_Comm comm, std::ostream& out) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Snapshots go to the working directory (as in RAMSES): use a scratch directory of our own.
  char name[] = "/tmp/kosmo_bench_io_XXXXXX";
  if (rank == 0 && mkdtemp(name) == nullptr) std::snprintf(name, sizeof name, "%s", ".");
  MPI_Bcast(name, sizeof name, MPI_CHAR, 0, comm);
  const auto previous = std::filesystem::current_path();
  const std::filesystem::path directory(name);
  std::filesystem::current_path(directory);
  for (int level : {5, 6, 7}) run_case(comm, out, level, directory);  // 32^3, 64^3, 128^3 cells
  std::filesystem::current_path(previous);
  MPI_Barrier(comm);
  if (rank == 0 && directory != std::filesystem::path(".")) std::filesystem::remove_all(directory);
}

}  // namespace kosmo::driver
