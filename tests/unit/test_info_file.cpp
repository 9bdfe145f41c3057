// RAMSES' info_NNNNN.txt byte for byte. The expected texts were derived by hand from RAMSES'
// output_info formats ('("ncpu        =",I11)', '("boxlen      =",E23.15)', '("ordering
// type=",A80)', '(I8,1X,E23.15,1X,E23.15)') and cross-checked against gfortran's output.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "core/error.hpp"
#include "io/info_file.hpp"

namespace kosmo::io {
namespace {

SnapshotMeta small_meta() {
  SnapshotMeta meta;
  meta.output_number = 7;
  meta.ncpu = 4;
  meta.ndim = 3;
  meta.levelmin = 3;
  meta.levelmax = 5;
  meta.step = 12;
  meta.boxlen = 2.0;
  meta.time = 0.25;
  meta.aexp = 0.5;  // ignored: not cosmological, so RAMSES' aexp = 1 is written
  meta.unit_l = 3.0856776e24;
  meta.unit_d = 1.6726e-24;
  meta.unit_t = 3.15576e13;
  meta.ordering = "ksection";
  return meta;
}

const std::string kOrderingKsection =
    "ordering type=ksection" + std::string(72, ' ') + "\n";  // A80 of a character(len=128)

TEST(InfoFile, NonCosmologicalKsectionHasNoDomainTable) {
  const std::string expected =
      "ncpu        =          4\n"
      "ndim        =          3\n"
      "levelmin    =          3\n"
      "levelmax    =          5\n"
      "ngridmax    =        585\n"
      "nstep_coarse=         12\n"
      "\n"
      "boxlen      =  0.200000000000000E+01\n"
      "time        =  0.250000000000000E+00\n"
      "aexp        =  0.100000000000000E+01\n"
      "H0          =  0.100000000000000E+01\n"
      "omega_m     =  0.100000000000000E+01\n"
      "omega_l     =  0.000000000000000E+00\n"
      "omega_k     =  0.000000000000000E+00\n"
      "omega_b     =  0.000000000000000E+00\n"
      "unit_l      =  0.308567760000000E+25\n"
      "unit_d      =  0.167260000000000E-23\n"
      "unit_t      =  0.315576000000000E+14\n"
      "\n" +
      kOrderingKsection;
  EXPECT_EQ(format_info_file(small_meta(), 585), expected);
}

TEST(InfoFile, HilbertWritesOneDomainLinePerRank) {
  SnapshotMeta meta = small_meta();
  meta.ncpu = 2;
  meta.ordering = "hilbert";
  const std::string text = format_info_file(meta, 9);
  const std::string tail =
      "ordering type=hilbert" + std::string(73, ' ') + "\n" +
      "   DOMAIN   ind_min                 ind_max\n"
      "       1   0.000000000000000E+00   0.000000000000000E+00\n"
      "       2   0.000000000000000E+00   0.000000000000000E+00\n";
  ASSERT_GE(text.size(), tail.size());
  EXPECT_EQ(text.substr(text.size() - tail.size()), tail);

  meta.hilbert_bound_keys = {0.0, 4.0, 8.0};
  const std::string keyed_tail =
      "       1   0.000000000000000E+00   0.400000000000000E+01\n"
      "       2   0.400000000000000E+01   0.800000000000000E+01\n";
  const std::string keyed = format_info_file(meta, 9);
  EXPECT_EQ(keyed.substr(keyed.size() - keyed_tail.size()), keyed_tail);

  meta.hilbert_bound_keys = {0.0, 8.0};  // ncpu + 1 keys are needed
  EXPECT_THROW(format_info_file(meta, 9), Error);
}

TEST(InfoFile, CosmologicalRunWritesItsParameters) {
  SnapshotMeta meta = small_meta();
  meta.cosmological = true;
  meta.aexp = 0.5;
  meta.time = -2.5;
  meta.h0 = 67.74;
  meta.omega_m = 0.3089;
  meta.omega_l = 0.6911;
  meta.omega_k = 0.0;
  meta.omega_b = 0.0486;
  meta.nx = 2;  // RAMSES writes boxlen / nx under "boxlen"
  const std::string text = format_info_file(meta, 1);
  const std::string middle =
      "\n"
      "boxlen      =  0.100000000000000E+01\n"
      "time        = -0.250000000000000E+01\n"
      "aexp        =  0.500000000000000E+00\n"
      "H0          =  0.677400000000000E+02\n"
      "omega_m     =  0.308900000000000E+00\n"
      "omega_l     =  0.691100000000000E+00\n"
      "omega_k     =  0.000000000000000E+00\n"
      "omega_b     =  0.486000000000000E-01\n";
  EXPECT_NE(text.find(middle), std::string::npos) << text;
}

TEST(InfoFile, LinesHaveRamsesWidths) {
  const std::string text = format_info_file(small_meta(), 585);
  std::size_t start = 0;
  int line_number = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    ASSERT_NE(end, std::string::npos) << "the file ends with a newline";
    const std::size_t length = end - start;
    ++line_number;
    std::size_t expected = 0;  // the two blank lines
    if (line_number <= 6) expected = 13 + 11;                         // key, I11
    if (line_number >= 8 && line_number <= 18) expected = 13 + 23;    // key, E23.15
    if (line_number == 20) expected = 14 + 80;                        // ordering type=, A80
    EXPECT_EQ(length, expected) << "line " << line_number;
    start = end + 1;
  }
  EXPECT_EQ(line_number, 20);
}

TEST(FortranE, ZeroAndSignedZero) {
  EXPECT_EQ(format_fortran_e(0.0), "  0.000000000000000E+00");
  EXPECT_EQ(format_fortran_e(-0.0), " -0.000000000000000E+00");  // gfortran keeps the sign
}

TEST(FortranE, OrdinaryValues) {
  EXPECT_EQ(format_fortran_e(1.0), "  0.100000000000000E+01");
  EXPECT_EQ(format_fortran_e(-1.0), " -0.100000000000000E+01");
  EXPECT_EQ(format_fortran_e(0.5), "  0.500000000000000E+00");
  EXPECT_EQ(format_fortran_e(123456.789), "  0.123456789000000E+06");
  EXPECT_EQ(format_fortran_e(-2.5e-7), " -0.250000000000000E-06");
  EXPECT_EQ(format_fortran_e(1.0 / 3.0), "  0.333333333333333E+00");
  EXPECT_EQ(format_fortran_e(2.0 / 3.0), "  0.666666666666667E+00");  // rounded, not truncated
}

TEST(FortranE, RoundingCarriesIntoTheExponent) {
  EXPECT_EQ(format_fortran_e(9.9999999999999999), "  0.100000000000000E+02");
  EXPECT_EQ(format_fortran_e(0.99999999999999995), "  0.100000000000000E+01");
}

TEST(FortranE, ThreeDigitExponentsDropTheLetter) {
  EXPECT_EQ(format_fortran_e(1e-300), "  0.100000000000000-299");
  EXPECT_EQ(format_fortran_e(1e+300), "  0.100000000000000+301");
  EXPECT_EQ(format_fortran_e(-1e+300), " -0.100000000000000+301");
  EXPECT_EQ(format_fortran_e(1e-100), "  0.100000000000000E-99");  // exponent -99 still fits
  EXPECT_EQ(format_fortran_e(1e+100), "  0.100000000000000+101");
  EXPECT_EQ(format_fortran_e(std::numeric_limits<double>::max()), "  0.179769313486232+309");
  EXPECT_EQ(format_fortran_e(std::numeric_limits<double>::min()), "  0.222507385850720-307");
  EXPECT_EQ(format_fortran_e(std::numeric_limits<double>::min() / 1e10), "  0.222507404261064-317");  // subnormal
}

TEST(FortranE, NonFiniteValuesAsGfortranPrintsThem) {
  EXPECT_EQ(format_fortran_e(std::numeric_limits<double>::quiet_NaN()), std::string(20, ' ') + "NaN");
  EXPECT_EQ(format_fortran_e(std::numeric_limits<double>::infinity()), std::string(15, ' ') + "Infinity");
  EXPECT_EQ(format_fortran_e(-std::numeric_limits<double>::infinity()), std::string(14, ' ') + "-Infinity");
}

TEST(FortranE, OtherWidthsAndOverflow) {
  EXPECT_EQ(format_fortran_e(1.5, 12, 4), "  0.1500E+01");
  EXPECT_EQ(format_fortran_e(-1.5, 5, 4), "*****");
}

TEST(FortranI, RightJustified) {
  EXPECT_EQ(format_fortran_i(4), "          4");
  EXPECT_EQ(format_fortran_i(-12, 8), "     -12");
  EXPECT_EQ(format_fortran_i(123456789012LL), "***********");  // Fortran's overflow marker
}

}  // namespace
}  // namespace kosmo::io
