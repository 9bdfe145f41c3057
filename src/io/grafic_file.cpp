// Grafic initial-condition files (see grafic_file.hpp). The reader seeks straight to the planes it
// needs, so each rank reads its own slab of z-planes instead of RAMSES' read-on-rank-1-and-broadcast
// (pm/init_part.f90 load_grafic); every failure is a kosmo::Error naming the file.
#include "io/grafic_file.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <fstream>
#include <limits>
#include <system_error>

#include "core/error.hpp"

namespace kosmo::io {
namespace {

static_assert(std::endian::native == std::endian::little, "grafic files are read as little-endian");

constexpr std::int32_t header_record_bytes = 3 * 4 + 8 * 4;  // np1..np3, dx..h0
constexpr std::int64_t marker_bytes = 4;
constexpr std::int64_t header_file_bytes = header_record_bytes + 2 * marker_bytes;

std::int32_t byte_swapped(std::int32_t value) {
  const auto bits = static_cast<std::uint32_t>(value);
  return static_cast<std::int32_t>((bits >> 24) | ((bits >> 8) & 0xff00u) | ((bits << 8) & 0xff0000u) | (bits << 24));
}

bool is_particle_id_file(const std::filesystem::path& path) { return path.filename() == "ic_particle_ids"; }

// An open grafic file whose header and size have been checked.
class GraficReader {
 public:
  explicit GraficReader(const std::filesystem::path& path) : path_(path), shown_(path.string()) {
    std::error_code error;
    const bool exists = std::filesystem::exists(path, error);
    KOSMO_REQUIRE(exists && !error, "grafic: initial-condition file '" << shown_ << "' does not exist");
    KOSMO_REQUIRE(std::filesystem::is_regular_file(path, error),
                  "grafic: initial-condition file '" << shown_ << "' is not a regular file");
    size_ = static_cast<std::int64_t>(std::filesystem::file_size(path, error));
    KOSMO_REQUIRE(!error, "grafic: cannot determine the size of '" << shown_ << "': " << error.message());
    in_.open(path, std::ios::binary);
    KOSMO_REQUIRE(in_.is_open(), "grafic: cannot open '" << shown_ << "' for reading");
    read_header();
    check_size();
  }

  const GraficHeader& header() const { return header_; }
  int value_bytes() const { return value_bytes_; }
  const std::string& shown() const { return shown_; }

  // Reads plane records [z_first, z_first + z_count) into `out` (value_bytes_ per value).
  void read_planes(std::int32_t z_first, std::int32_t z_count, char* out) {
    KOSMO_REQUIRE(z_first >= 0 && z_count >= 0 && std::int64_t{z_first} + z_count <= header_.np3,
                  "grafic: planes [" << z_first << ", " << std::int64_t{z_first} + z_count << ") requested from '"
                                     << shown_ << "', which has np3 = " << header_.np3 << " planes");
    const std::int64_t payload = plane_payload_bytes();
    for (std::int32_t z = z_first; z < z_first + z_count; ++z) {
      seek(plane_offset(z));
      check_marker(read_marker(z), payload, z, "leading");
      read_exact(out + static_cast<std::size_t>(z - z_first) * static_cast<std::size_t>(payload), payload, z);
      check_marker(read_marker(z), payload, z, "trailing");
    }
  }

  // Checks the markers of every plane record without reading the payloads.
  void check_all_markers() {
    const std::int64_t payload = plane_payload_bytes();
    for (std::int32_t z = 0; z < header_.np3; ++z) {
      seek(plane_offset(z));
      check_marker(read_marker(z), payload, z, "leading");
      seek(plane_offset(z) + marker_bytes + payload);
      check_marker(read_marker(z), payload, z, "trailing");
    }
  }

 private:
  std::int64_t plane_payload_bytes() const { return header_.plane_size() * value_bytes_; }
  std::int64_t plane_offset(std::int32_t z) const {
    return header_file_bytes + std::int64_t{z} * (plane_payload_bytes() + 2 * marker_bytes);
  }
  std::int64_t expected_size(int value_bytes) const {
    return header_file_bytes + std::int64_t{header_.np3} * (header_.plane_size() * value_bytes + 2 * marker_bytes);
  }

  void seek(std::int64_t offset) {
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(offset), std::ios::beg);
    KOSMO_REQUIRE(in_, "grafic: cannot seek to byte " << offset << " of '" << shown_ << "'");
  }

  void read_exact(char* data, std::int64_t bytes, std::int32_t plane) {
    in_.read(data, static_cast<std::streamsize>(bytes));
    KOSMO_REQUIRE(in_ && in_.gcount() == static_cast<std::streamsize>(bytes),
                  "grafic: '" << shown_ << "' is truncated: short read in "
                              << (plane < 0 ? std::string("the header record") : "plane record " + std::to_string(plane))
                              << " (file is " << size_ << " bytes)");
  }

  std::int32_t read_marker(std::int32_t plane) {
    std::int32_t marker = 0;
    read_exact(reinterpret_cast<char*>(&marker), sizeof marker, plane);
    return marker;
  }

  void check_marker(std::int32_t marker, std::int64_t expected, std::int32_t plane, const char* which) {
    KOSMO_REQUIRE(marker == expected, "grafic: record marker mismatch in '"
                                          << shown_ << "': " << which << " marker of "
                                          << (plane < 0 ? std::string("the header record")
                                                        : "plane record " + std::to_string(plane))
                                          << " is " << marker << ", expected " << expected
                                          << " (corrupted file, or not a grafic file)");
  }

  void read_header() {
    KOSMO_REQUIRE(size_ >= header_file_bytes, "grafic: '" << shown_ << "' is truncated: " << size_
                                                          << " bytes, shorter than the " << header_file_bytes
                                                          << "-byte header record");
    const std::int32_t leading = read_marker(-1);
    KOSMO_REQUIRE(byte_swapped(leading) != header_record_bytes || leading == header_record_bytes,
                  "grafic: '" << shown_ << "' is big-endian (header marker " << leading
                              << " byte-swapped is 44); only little-endian files are supported");
    check_marker(leading, header_record_bytes, -1, "leading");
    std::array<char, header_record_bytes> record{};
    read_exact(record.data(), header_record_bytes, -1);
    check_marker(read_marker(-1), header_record_bytes, -1, "trailing");
    std::int32_t integers[3];
    float reals[8];
    std::memcpy(integers, record.data(), sizeof integers);
    std::memcpy(reals, record.data() + sizeof integers, sizeof reals);
    header_.np1 = integers[0];
    header_.np2 = integers[1];
    header_.np3 = integers[2];
    header_.dx = reals[0];
    header_.xoff1 = reals[1];
    header_.xoff2 = reals[2];
    header_.xoff3 = reals[3];
    header_.astart = reals[4];
    header_.omega_m = reals[5];
    header_.omega_v = reals[6];
    header_.h0 = reals[7];
    KOSMO_REQUIRE(header_.np1 > 0 && header_.np2 > 0 && header_.np3 > 0,
                  "grafic: header of '" << shown_ << "' has non-positive dimensions np1 = " << header_.np1
                                        << ", np2 = " << header_.np2 << ", np3 = " << header_.np3);
    // A plane record's length must fit its int32 marker.
    KOSMO_REQUIRE(header_.plane_size() * 8 < std::numeric_limits<std::int32_t>::max(),
                  "grafic: header of '" << shown_ << "' has planes of " << header_.plane_size()
                                        << " values, too large for a Fortran record");
  }

  void check_size() {
    value_bytes_ = 4;
    if (is_particle_id_file(path_)) {
      // The width of the ids is that of the first plane record (4 or 8 bytes per id).
      if (size_ >= header_file_bytes + marker_bytes) {
        const std::int32_t first_marker = read_marker(0);
        if (first_marker == header_.plane_size() * 8) value_bytes_ = 8;
      }
    }
    const std::int64_t expected = expected_size(value_bytes_);
    KOSMO_REQUIRE(size_ >= expected, "grafic: '" << shown_ << "' is truncated: " << size_ << " bytes, but its header ("
                                                 << header_.np1 << " x " << header_.np2 << " x " << header_.np3
                                                 << " values of " << value_bytes_ << " bytes) implies " << expected
                                                 << " bytes");
    KOSMO_REQUIRE(size_ == expected, "grafic: header of '" << shown_ << "' is inconsistent with the file size: "
                                                           << header_.np1 << " x " << header_.np2 << " x "
                                                           << header_.np3 << " values of " << value_bytes_
                                                           << " bytes imply " << expected << " bytes, the file has "
                                                           << size_);
  }

  std::filesystem::path path_;
  std::string shown_;
  std::ifstream in_;
  std::int64_t size_ = 0;
  GraficHeader header_;
  int value_bytes_ = 4;
};

class GraficWriter {
 public:
  GraficWriter(const std::filesystem::path& path, const GraficHeader& header, std::int64_t count)
      : shown_(path.string()), header_(header) {
    KOSMO_REQUIRE(header.np1 > 0 && header.np2 > 0 && header.np3 > 0,
                  "grafic: cannot write '" << shown_ << "': non-positive dimensions " << header.np1 << " x "
                                           << header.np2 << " x " << header.np3);
    KOSMO_REQUIRE(count == header.cell_count(), "grafic: cannot write '" << shown_ << "': " << count
                                                                         << " values given, the header implies "
                                                                         << header.cell_count());
    out_.open(path, std::ios::binary | std::ios::trunc);
    KOSMO_REQUIRE(out_.is_open(), "grafic: cannot open '" << shown_ << "' for writing");
    std::array<char, header_record_bytes> record{};
    const std::int32_t integers[3] = {header.np1, header.np2, header.np3};
    const float reals[8] = {header.dx,     header.xoff1,   header.xoff2,   header.xoff3,
                            header.astart, header.omega_m, header.omega_v, header.h0};
    std::memcpy(record.data(), integers, sizeof integers);
    std::memcpy(record.data() + sizeof integers, reals, sizeof reals);
    write_record(record.data(), header_record_bytes);
  }

  void write_record(const char* data, std::int64_t bytes) {
    const auto marker = static_cast<std::int32_t>(bytes);
    out_.write(reinterpret_cast<const char*>(&marker), sizeof marker);
    out_.write(data, static_cast<std::streamsize>(bytes));
    out_.write(reinterpret_cast<const char*>(&marker), sizeof marker);
    KOSMO_REQUIRE(out_, "grafic: write to '" << shown_ << "' failed");
  }

  void close() {
    out_.close();
    KOSMO_REQUIRE(!out_.fail(), "grafic: closing '" << shown_ << "' failed");
  }

 private:
  std::string shown_;
  GraficHeader header_;
  std::ofstream out_;
};

}  // namespace

bool identical(const GraficHeader& left, const GraficHeader& right) {
  const auto same = [](float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); };
  return left.np1 == right.np1 && left.np2 == right.np2 && left.np3 == right.np3 && same(left.dx, right.dx) &&
         same(left.xoff1, right.xoff1) && same(left.xoff2, right.xoff2) && same(left.xoff3, right.xoff3) &&
         same(left.astart, right.astart) && same(left.omega_m, right.omega_m) &&
         same(left.omega_v, right.omega_v) && same(left.h0, right.h0);
}

const std::vector<std::string>& grafic_file_names() {
  static const std::vector<std::string> names = {"ic_deltab", "ic_velcx", "ic_velcy", "ic_velcz",
                                                 "ic_poscx",  "ic_poscy", "ic_poscz", "ic_velbx",
                                                 "ic_velby",  "ic_velbz", "ic_refmap", "ic_particle_ids"};
  return names;
}

GraficHeader read_grafic_header(const std::filesystem::path& path) { return GraficReader(path).header(); }

int grafic_value_bytes(const std::filesystem::path& path) { return GraficReader(path).value_bytes(); }

std::vector<float> read_grafic_planes(const std::filesystem::path& path, std::int32_t z_first, std::int32_t z_count) {
  GraficReader reader(path);
  KOSMO_REQUIRE(reader.value_bytes() == 4, "grafic: '" << reader.shown() << "' holds 8-byte values, not float32");
  std::vector<float> values(static_cast<std::size_t>(std::max(0, z_count) * reader.header().plane_size()));
  reader.read_planes(z_first, z_count, reinterpret_cast<char*>(values.data()));
  return values;
}

std::vector<std::int64_t> read_grafic_id_planes(const std::filesystem::path& path, std::int32_t z_first,
                                                std::int32_t z_count) {
  GraficReader reader(path);
  const auto count = static_cast<std::size_t>(std::max(0, z_count) * reader.header().plane_size());
  std::vector<std::int64_t> ids(count);
  if (reader.value_bytes() == 8) {
    reader.read_planes(z_first, z_count, reinterpret_cast<char*>(ids.data()));
  } else {
    std::vector<std::int32_t> narrow(count);
    reader.read_planes(z_first, z_count, reinterpret_cast<char*>(narrow.data()));
    std::copy(narrow.begin(), narrow.end(), ids.begin());
  }
  return ids;
}

void write_grafic(const std::filesystem::path& path, const GraficHeader& header, std::span<const float> values) {
  GraficWriter writer(path, header, static_cast<std::int64_t>(values.size()));
  const std::int64_t plane = header.plane_size();
  for (std::int32_t z = 0; z < header.np3; ++z)
    writer.write_record(reinterpret_cast<const char*>(values.data() + z * plane), plane * 4);
  writer.close();
}

void write_grafic_ids(const std::filesystem::path& path, const GraficHeader& header,
                      std::span<const std::int64_t> ids, int value_bytes) {
  KOSMO_REQUIRE(value_bytes == 4 || value_bytes == 8,
                "grafic: cannot write '" << path.string() << "': ids are 4 or 8 bytes, not " << value_bytes);
  GraficWriter writer(path, header, static_cast<std::int64_t>(ids.size()));
  const std::int64_t plane = header.plane_size();
  std::vector<std::int32_t> narrow(value_bytes == 4 ? static_cast<std::size_t>(plane) : 0);
  for (std::int32_t z = 0; z < header.np3; ++z) {
    const std::int64_t* first = ids.data() + z * plane;
    if (value_bytes == 8) {
      writer.write_record(reinterpret_cast<const char*>(first), plane * 8);
    } else {
      for (std::int64_t i = 0; i < plane; ++i) {
        KOSMO_REQUIRE(first[i] >= std::numeric_limits<std::int32_t>::min() &&
                          first[i] <= std::numeric_limits<std::int32_t>::max(),
                      "grafic: cannot write '" << path.string() << "' with 4-byte ids: id " << first[i]
                                               << " does not fit");
        narrow[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(first[i]);
      }
      writer.write_record(reinterpret_cast<const char*>(narrow.data()), plane * 4);
    }
  }
  writer.close();
}

GraficDirectory check_grafic_directory(const std::filesystem::path& directory) {
  std::error_code error;
  KOSMO_REQUIRE(std::filesystem::is_directory(directory, error),
                "grafic: initial-condition directory '" << directory.string() << "' (initfile(1)) does not exist");
  const std::filesystem::path density = directory / "ic_deltab";
  KOSMO_REQUIRE(std::filesystem::exists(density, error),
                "grafic: initial-condition file '" << density.string()
                                                   << "' does not exist (RAMSES init_file reads the header from it)");
  GraficDirectory result;
  std::string reference_file;
  for (const std::string& name : grafic_file_names()) {
    const std::filesystem::path path = directory / name;
    if (!std::filesystem::exists(path, error)) continue;
    GraficReader reader(path);
    reader.check_all_markers();
    if (result.files.empty()) {
      result.header = reader.header();
      reference_file = path.string();
    } else {
      const GraficHeader& h = reader.header();
      const GraficHeader& r = result.header;
      KOSMO_REQUIRE(identical(h, r),
                    "grafic: header of '" << path.string() << "' differs from that of '" << reference_file
                                          << "': (np " << h.np1 << " " << h.np2 << " " << h.np3 << ", dx " << h.dx
                                          << ", offsets " << h.xoff1 << " " << h.xoff2 << " " << h.xoff3
                                          << ", astart " << h.astart << ", omega_m " << h.omega_m << ", omega_v "
                                          << h.omega_v << ", h0 " << h.h0 << ") vs (np " << r.np1 << " " << r.np2
                                          << " " << r.np3 << ", dx " << r.dx << ", offsets " << r.xoff1 << " "
                                          << r.xoff2 << " " << r.xoff3 << ", astart " << r.astart << ", omega_m "
                                          << r.omega_m << ", omega_v " << r.omega_v << ", h0 " << r.h0 << ")");
    }
    if (name == "ic_particle_ids") {
      result.has_particle_ids = true;
      result.particle_id_bytes = reader.value_bytes();
    }
    result.files.push_back(name);
  }
  const auto present = [&](const char* name) {
    return std::find(result.files.begin(), result.files.end(), name) != result.files.end();
  };
  for (const char* prefix : {"ic_velc", "ic_posc", "ic_velb"}) {
    int count = 0;
    std::string missing;
    for (const char axis : {'x', 'y', 'z'}) {
      const std::string name = std::string(prefix) + axis;
      if (present(name.c_str()))
        ++count;
      else
        missing = name;
    }
    KOSMO_REQUIRE(count == 0 || count == 3, "grafic: initial-condition file '" << (directory / missing).string()
                                                                             << "' does not exist, but other "
                                                                             << prefix << "* files do");
  }
  result.has_positions = present("ic_poscx");
  return result;
}

}  // namespace kosmo::io
