#pragma once
// RAMSES' sink_NNNNN.csv (pm/output_sink.f90 output_sink_csv, read back by pm/init_sink.f90 at a
// restart; docs/outputs.md "sink_NNNNN.csv"): two comment lines (the column names, their units),
// then one line per sink in Fortran's (I10,21(A1,ES21.10),A1,I10): id, msink, x, y, z, vx, vy, vz,
// lx, ly, lz, tform, acc_rate, del_mass, rho_gas, cs**2, etherm, vx_gas, vy_gas, vz_gas, mbh,
// dmfsink, level. kosmo fills the columns it has an attribute for (tform = birth_time, acc_rate =
// accretion_rate, dmfsink = accreted_mass, mbh = the sink mass) and writes 0 in the others (the
// spin and the accretion-zone averages it does not keep), then appends one ES21.10 column per
// further float64 sink attribute (agn_energy, ...) named after it, its units in RAMSES' notation: RAMSES' reader stops reading a
// line after `level`, yt names such a column particle_<name>.
#include <filesystem>
#include <string>

#include "io/snapshot_data.hpp"

namespace kosmo::io {

// Fortran's ES21.10 edit descriptor: 21 characters, right-justified, d.ddddddddddE+xx (the E
// dropped for a three-digit exponent, as gfortran does).
std::string fortran_es21_10(double value);

// The file's text for meta.sinks (meta.levelmin fills `level`, RAMSES' sinkint_level).
std::string format_ramses_sink_file(const SnapshotMeta& meta);

// Writes output_NNNNN/sink_NNNNN.csv into `directory` (rank 0 calls it), under a temporary name
// renamed when complete. Nothing when meta.sinks.present is false.
void write_ramses_sink_file(const std::filesystem::path& directory, const SnapshotMeta& meta);

// Reads sink_NNNNN.csv from the output directory: present = false when there is no such file. The
// values come back to the file's 11 significant digits (RAMSES' own restarts read it so); `shown`
// names the file in errors. The extra columns come back as float64 attributes of their name.
SnapshotSinks read_ramses_sink_file(const std::filesystem::path& output_directory, const std::string& shown,
                                    int output_number, int ndim);

}  // namespace kosmo::io
