#pragma once
// RAMSES' info_NNNNN.txt, byte for byte (RAMSES amr/output_amr.f90, output_info), so that yt,
// osyris and pynbody recognise a kosmo output directory. See docs/outputs.md.
#include <string>

#include "io/snapshot_data.hpp"

namespace kosmo::io {

// The text of info_NNNNN.txt. total_octs is the number of octs in the snapshot summed over all
// ranks and levels; RAMSES writes its ngridmax there and readers only use it as a size hint.
std::string format_info_file(const SnapshotMeta& meta, long long total_octs);

// Fortran's Ew.d edit descriptor (gfortran output): "0." followed by d digits, then the
// exponent as E+dd, or as +ddd without the letter once |exponent| > 99; right-justified in w
// characters, w asterisks when it does not fit. Signed zero keeps its sign, as gfortran does.
std::string format_fortran_e(double value, int width = 23, int decimals = 15);

// Fortran's Iw: right-justified integer (w asterisks when it does not fit).
std::string format_fortran_i(long long value, int width = 11);

}  // namespace kosmo::io
