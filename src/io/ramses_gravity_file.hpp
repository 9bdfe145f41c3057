#pragma once
// RAMSES' grav_NNNNN.outCCCCC files (poisson/output_poisson.f90, backup_poisson): the potential and
// the acceleration of every cell, which RAMSES keeps apart from the hydro_ files and reads back on a
// restart (poisson/init_poisson.f90). Layout: header records ncpu, nvar = ndim + 1, nlevelmax,
// nboundary (no ndim and no gamma, unlike hydro_); then, for every level and every cpu block, the
// records ilevel and ncache (always, also when 0) and, when ncache > 0, for each cell ind = 1..2^ndim
// the float64 records phi, f_x, .., f_ndim of the block's octs in the amr file's order.
// kosmo's cell fields `potential` and `acceleration_x/y/z` (gravity/level_gravity.hpp) are RAMSES'
// phi and f; docs/outputs.md, "RAMSES binary format".
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "io/snapshot_data.hpp"

namespace kosmo::io {

// kosmo's names of RAMSES' gravity variables in grav_ record order: potential, acceleration_x ...
std::vector<std::string> ramses_gravity_variables(int ndim);

// Which of meta.fields go to the grav_ files (in record order) and which to the hydro_ files (the
// rest, in registry order). The grav_ list is empty unless every gravity variable is a field.
struct RamsesFieldSplit {
  std::vector<std::size_t> hydro, gravity;
};
RamsesFieldSplit split_ramses_fields(const SnapshotMeta& meta);

// Writes one grav_ file at `path` (first under a ".tmp" name) from blocks[level - 1][cpu - 1]
// (the RamsesDomain's oct blocks), the values of meta.fields[columns[v]]. Throws kosmo::Error naming
// the file on I/O failure.
void write_ramses_gravity_file(const std::filesystem::path& path, const SnapshotMeta& meta,
                               const std::vector<std::vector<SnapshotLevel>>& blocks, const std::vector<std::size_t>& columns);

// Reads the grav_ file at `path` (`shown` in messages) of cpu `cpu`: the ndim + 1 variables of the
// octs of the file's own block at each level, values[level - 1][v][o * 2^ndim + ind], checked
// against `counts[(level - 1) * ncpu + block]`, the amr file's numbl. Throws kosmo::Error naming the
// file for a header that contradicts ncpu, ndim or nlevelmax, a block that differs from the amr
// file, or a truncated file.
std::vector<std::vector<std::vector<double>>> read_ramses_gravity_file(const std::filesystem::path& path, const std::string& shown,
                                                                       int cpu, int ncpu, int ndim, int nlevelmax,
                                                                       const std::vector<std::int32_t>& counts);

}  // namespace kosmo::io
