#include "io/info_file.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "core/error.hpp"

namespace kosmo::io {
namespace {

std::string right_justify(const std::string& text, int width) {
  if (static_cast<int>(text.size()) > width) return std::string(static_cast<std::size_t>(width), '*');
  return std::string(static_cast<std::size_t>(width) - text.size(), ' ') + text;
}

// "key" padded to 12 characters and '=', as RAMSES' '("ncpu        =",I11)' formats.
std::string key(const std::string& name) {
  std::string padded = name;
  if (padded.size() < 12) padded.resize(12, ' ');
  return padded + "=";
}

}  // namespace

std::string format_fortran_e(double value, int width, int decimals) {
  KOSMO_REQUIRE(decimals >= 1 && decimals <= 40 && width >= 1,
                "format_fortran_e: unsupported edit descriptor E" << width << "." << decimals);
  if (std::isnan(value)) return right_justify("NaN", width);
  if (std::isinf(value)) return right_justify(value < 0 ? "-Infinity" : "Infinity", width);

  // C's %e rounds correctly to `decimals` significant digits as d.ddd e±X; Fortran shows the
  // same digits as 0.dddd with the exponent one larger. Zero is 0.000 E+00 in Fortran.
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "%.*e", decimals - 1, std::fabs(value));
  const std::string c_text(buffer);
  const std::size_t e_pos = c_text.find('e');
  std::string digits = c_text.substr(0, 1) + c_text.substr(2, e_pos - 2);
  int exponent = std::atoi(c_text.c_str() + e_pos + 1) + 1;
  if (value == 0.0) exponent = 0;

  char exponent_text[16];
  if (std::abs(exponent) <= 99) {
    std::snprintf(exponent_text, sizeof exponent_text, "E%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
  } else {
    std::snprintf(exponent_text, sizeof exponent_text, "%c%03d", exponent < 0 ? '-' : '+', std::abs(exponent));
  }
  std::string text = std::signbit(value) ? "-0." : "0.";
  text += digits;
  text += exponent_text;
  return right_justify(text, width);
}

std::string format_fortran_i(long long value, int width) {
  return right_justify(std::to_string(value), width);
}

std::string format_info_file(const SnapshotMeta& meta, long long total_octs) {
  KOSMO_REQUIRE(meta.nx > 0, "info file: nx must be positive, got " << meta.nx);
  const bool hilbert = meta.ordering == "hilbert";
  KOSMO_REQUIRE(!hilbert || meta.hilbert_bound_keys.empty() ||
                    static_cast<long long>(meta.hilbert_bound_keys.size()) == meta.ncpu + 1LL,
                "info file: ordering 'hilbert' needs ncpu + 1 = " << meta.ncpu + 1 << " bound keys, got "
                                                                 << meta.hilbert_bound_keys.size());
  std::ostringstream out;
  const auto integer_line = [&](const char* name, long long value) {
    out << key(name) << format_fortran_i(value) << '\n';
  };
  const auto real_line = [&](const char* name, double value) {
    out << key(name) << format_fortran_e(value) << '\n';
  };

  integer_line("ncpu", meta.ncpu);
  integer_line("ndim", meta.ndim);
  integer_line("levelmin", meta.levelmin);
  integer_line("levelmax", meta.levelmax);
  integer_line("ngridmax", total_octs);
  integer_line("nstep_coarse", meta.step);
  out << '\n';  // RAMSES' empty list-directed write; yt skips exactly one line here

  // RAMSES writes boxlen/nx under "boxlen" (its `scale`): the size of one coarse oct's span.
  real_line("boxlen", meta.boxlen / meta.nx);
  real_line("time", meta.time);
  real_line("aexp", meta.cosmological ? meta.aexp : 1.0);
  real_line("H0", meta.cosmological ? meta.h0 : 1.0);
  real_line("omega_m", meta.cosmological ? meta.omega_m : 1.0);
  real_line("omega_l", meta.cosmological ? meta.omega_l : 0.0);
  real_line("omega_k", meta.cosmological ? meta.omega_k : 0.0);
  real_line("omega_b", meta.cosmological ? meta.omega_b : 0.0);
  real_line("unit_l", meta.unit_l);
  real_line("unit_d", meta.unit_d);
  real_line("unit_t", meta.unit_t);
  out << '\n';

  // '("ordering type=",A80)' of a character(len=128): the first 80 characters, blank padded.
  std::string ordering = meta.ordering;
  ordering.resize(80, ' ');
  out << "ordering type=" << ordering << '\n';

  // Readers use the DOMAIN table only with Hilbert ordering (yt picks the files a region touches
  // from its keys). For any other ordering they open every domain, so a table of meaningless keys
  // would only mislead; RAMSES' bisection table has no kosmo equivalent either.
  if (hilbert) {
    out << "   DOMAIN   ind_min                 ind_max\n";
    for (int domain = 1; domain <= meta.ncpu; ++domain) {
      const double lower = meta.hilbert_bound_keys.empty() ? 0.0 : meta.hilbert_bound_keys[domain - 1];
      const double upper = meta.hilbert_bound_keys.empty() ? 0.0 : meta.hilbert_bound_keys[domain];
      out << format_fortran_i(domain, 8) << ' ' << format_fortran_e(lower) << ' ' << format_fortran_e(upper)
          << '\n';
    }
  }
  return out.str();
}

}  // namespace kosmo::io
