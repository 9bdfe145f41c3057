#pragma once
// Restarting from RAMSES binary outputs (&OUTPUT_PARAMS informat='ramses'; docs/outputs.md, seeds/000
// §7.2): output_NNNNN/ written by kosmo's RAMSES writer (outformat='ramses' or 'both') or by
// RAMSES itself for a hydro run, on any number of files, read onto any number of ranks.
// Layouts: shared/reference/ramses-format.md; the HDF5 counterpart: io/snapshot_reader.hpp.
#include <mpi.h>

#include <string>

#include "io/cell_variable_conversion.hpp"
#include "io/snapshot_reader.hpp"

namespace kosmo::io {

// Reads info_NNNNN.txt, hydro_file_descriptor.txt and the amr_/hydro_NNNNN.outCCCCC files of
// output_NNNNN/ under `directory`. Rank r of P reads the cpu files r + 1, r + 1 + P, ... (none when
// there are fewer files than ranks) and keeps, from each, only the octs of that file's own cpu block
// (the other blocks hold ghost copies of octs other files own). The hydro files' variables are
// those `conversion` names (io/cell_variable_conversion.hpp; the gas module's:
// hydro::ramses_restart_conversion), matched to hydro_file_descriptor.txt or, without one, in the
// conversion's order; conversion.to_restart turns each cell's values into the restart fields
// conversion.restart_fields, with gamma from the hydro files' header. Because the files hold
// analysis (primitive) variables, a restart from RAMSES files equals the HDF5 restart only to
// round-off (a few 1e-16 relative), not bit for bit. A descriptor variable the conversion does not
// take, or one it needs that the descriptor lacks, is an error. share.meta takes ndim, levelmin,
// ncpu, aexp, the units and the ordering from the info file, and levelmax, nx/ny/nz, boxlen, time
// and nstep_coarse from the AMR header (exact float64 there; the info file prints only 16 digits).
// Particles: when the output has part_file_descriptor.txt (or part_NNNNN.out00001 or a
// header_NNNNN.txt counting particles), the same rank also reads part_NNNNN.outCCCCC of each of its
// cpus into share.particles, and all files together must hold header_NNNNN.txt's count
// (io/ramses_particles.hpp); an output with none of these files has no particles. A missing cpu
// file (amr, hydro or part), a truncated file (short read or record marker mismatch), or a header
// that contradicts the info file is a kosmo::Error naming the file, raised on every rank.
// Collective over `comm`.
RestartShare read_ramses_restart_share(MPI_Comm comm, const std::string& directory, int output_number,
                                       const CellVariableConversion& conversion);


}  // namespace kosmo::io
