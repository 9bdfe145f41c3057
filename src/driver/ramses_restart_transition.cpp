// Transitional: the three-argument io::read_ramses_restart_share that driver/hydro_run.cpp still
// calls. It reads with the gas module's conversion for the output's own ndim and passive-scalar
// count (from the header of hydro_NNNNN.out00001), which is what the reader did before the hydro
// module handed it its names. Delete this file once the run passes
// hydro::ramses_restart_conversion<D>(npassive) to the four-argument reader itself.
#include <algorithm>
#include <cstdint>
#include <filesystem>

#include "core/error.hpp"
#include "hydro/hydro_restart_conversion.hpp"
#include "io/ramses_reader.hpp"
#include "io/ramses_record_reader.hpp"
#include "io/ramses_records.hpp"
#include "io/snapshot_writer.hpp"

namespace kosmo::io {

RestartShare read_ramses_restart_share(MPI_Comm comm, const std::string& directory, int output_number) {
  int ndim = 3, npassive = 0;
  try {
    const std::filesystem::path output = std::filesystem::path(directory.empty() ? "." : directory) / output_directory_name(output_number);
    const std::string name = "hydro_" + ramses_detail::number5(output_number) + ".out00001";
    ramses_detail::FortranRecordReader hydro(output / name, name);
    hydro.skip("ncpu");
    const int nvar = hydro.value<std::int32_t>("nvar");
    ndim = hydro.value<std::int32_t>("ndim");
    npassive = std::max(nvar - ndim - 2, 0);
  } catch (const Error&) {
    // An unreadable output: the reader below names what is wrong with it.
  }
  if (ndim == 1) return read_ramses_restart_share(comm, directory, output_number, hydro::ramses_restart_conversion<1>(npassive));
  if (ndim == 2) return read_ramses_restart_share(comm, directory, output_number, hydro::ramses_restart_conversion<2>(npassive));
  return read_ramses_restart_share(comm, directory, output_number, hydro::ramses_restart_conversion<3>(npassive));
}

}  // namespace kosmo::io
