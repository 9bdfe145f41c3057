#pragma once
// Grafic initial-condition files (docs/cosmology.md, "Initial conditions"): the single-level format written by grafic2
// (Bertschinger 2001, ApJS 137, 1) and MUSIC (Hahn & Abel 2011, MNRAS 415, 2101; plugin
// output_grafic2) and read by RAMSES (amr/init_time.f90 subroutine init_file for the header,
// pm/init_part.f90 load_grafic for particles, hydro/init_flow_fine.f90 for the gas).
//
// Layout of one file (Fortran unformatted sequential, little-endian, 4-byte record markers:
// int32 length | payload | int32 length):
//   record 0 (44 bytes): np1, np2, np3 (int32); dx, xoff1, xoff2, xoff3, astart, omega_m, omega_v,
//                        h0 (float32). dx and the offsets are in comoving Mpc (NOT Mpc/h), h0 is in
//                        km/s/Mpc (RAMSES init_file reads them as real(sp) dxini0, xoff10, ...).
//   records 1..np3:      one z-plane each, np1*np2 values with x fastest (Fortran
//                        ((plane(i1,i2), i1=1,np1), i2=1,np2)).
// The values are float32 in ic_deltab (baryon overdensity), ic_velc{x,y,z} (dark matter peculiar
// velocity, proper km/s), ic_posc{x,y,z} (displacement from the cell centre, comoving Mpc/h) and the
// gas files ic_velb{x,y,z}. ic_particle_ids holds integers: RAMSES load_grafic reads them into
// init_plane_id, integer(i8b) when compiled with LONGINT and a default 4-byte integer otherwise, and
// writers (genetIC, MUSIC variants) produce either, so the reader accepts both widths and tells them
// apart by the plane record length.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace kosmo::io {

struct GraficHeader {
  std::int32_t np1 = 0, np2 = 0, np3 = 0;
  float dx = 0.0f;  // cell size, comoving Mpc
  float xoff1 = 0.0f, xoff2 = 0.0f, xoff3 = 0.0f;  // offsets of the grid corner, comoving Mpc
  float astart = 0.0f;
  float omega_m = 0.0f, omega_v = 0.0f;
  float h0 = 0.0f;  // km/s/Mpc

  // Values per z-plane and in the whole file.
  std::int64_t plane_size() const { return std::int64_t{np1} * np2; }
  std::int64_t cell_count() const { return plane_size() * np3; }
};

// Bit-for-bit equality (floats compared by their representation, so NaN == NaN with the same bits
// and +0 != -0): what "the same header" means for files of one directory.
bool identical(const GraficHeader& left, const GraficHeader& right);

// The file names RAMSES and MUSIC use, in the order check_grafic_directory lists them.
const std::vector<std::string>& grafic_file_names();

// The header of `path`, after checking the header record markers, that np1, np2, np3 > 0 and that the
// file size is exactly that of np3 plane records of 4-byte values (8-byte values are also accepted
// for ic_particle_ids). kosmo::Error naming the file for a missing file, a truncated file (shorter
// than the header implies), a record-marker mismatch, or a size inconsistent with the header.
GraficHeader read_grafic_header(const std::filesystem::path& path);

// Bytes per value of an existing grafic file (4, or 8 for 64-bit particle ids), with the checks of
// read_grafic_header.
int grafic_value_bytes(const std::filesystem::path& path);

// The z-planes z_first .. z_first + z_count - 1 (0-based) of a float32 grafic file, as
// z_count * np1 * np2 values, x fastest then y then z (the file order). Each plane record's markers
// are checked. A rank reads only its slab. kosmo::Error naming the file when the range is outside
// [0, np3) or a record is corrupt.
std::vector<float> read_grafic_planes(const std::filesystem::path& path, std::int32_t z_first, std::int32_t z_count);
// The same for ic_particle_ids (int32 or int64 in the file, widened to int64).
std::vector<std::int64_t> read_grafic_id_planes(const std::filesystem::path& path, std::int32_t z_first,
                                                std::int32_t z_count);

// Writes a grafic file in the exact layout above (header.cell_count() values, x fastest). Used by
// the tests and by kosmo's own generator. kosmo::Error when the count does not match the header or
// the file cannot be written.
void write_grafic(const std::filesystem::path& path, const GraficHeader& header, std::span<const float> values);
// ic_particle_ids with value_bytes = 8 (int64, RAMSES LONGINT) or 4 (int32; ids must fit).
void write_grafic_ids(const std::filesystem::path& path, const GraficHeader& header,
                      std::span<const std::int64_t> ids, int value_bytes = 8);

struct GraficDirectory {
  GraficHeader header;             // common to all files
  std::vector<std::string> files;  // the grafic files present, in grafic_file_names() order
  bool has_positions = false;      // ic_posc{x,y,z} present (else RAMSES uses the Zel'dovich guess)
  bool has_particle_ids = false;
  int particle_id_bytes = 0;  // 4 or 8 when has_particle_ids
};

// Checks a grafic directory (RAMSES initfile(1)) as RAMSES would use it: ic_deltab must exist
// (init_file takes the header from it); ic_velcx/y/z must be all present or all absent, likewise
// ic_posc*; every file present is checked as read_grafic_header does plus every plane record's
// markers, and all headers must be identical bit for bit. kosmo::Error naming the offending file.
GraficDirectory check_grafic_directory(const std::filesystem::path& directory);

}  // namespace kosmo::io
