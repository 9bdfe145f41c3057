// Grafic initial-condition files (src/io/grafic_file.hpp): the writer produces the exact byte layout
// RAMSES init_file / load_grafic read (checked byte by byte against an independent hand-built file),
// the reader round-trips every value and the header bit for bit, reads slabs of planes, and every
// failure (missing, truncated, corrupted marker, header inconsistent with the size, headers differing
// within a directory) is a kosmo::Error naming the file.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/grafic_file.hpp"

using namespace kosmo::io;
namespace fs = std::filesystem;

namespace {

class GraficTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() /
                 ("kosmo_grafic_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(directory_);
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }
  fs::path directory_;
};

GraficHeader sample_header() {
  GraficHeader header;
  header.np1 = 6;
  header.np2 = 5;
  header.np3 = 4;
  header.dx = 100.0f / 0.7f / 6.0f;  // 100 Mpc/h box in Mpc
  header.xoff1 = 0.125f;
  header.xoff2 = -3.5f;
  header.xoff3 = 1.0e-7f;
  header.astart = 1.0f / 51.0f;
  header.omega_m = 0.3089f;
  header.omega_v = 0.6911f;
  header.h0 = 67.74f;
  return header;
}

// Values with full mantissas, signs, a denormal and a negative zero: a bit-for-bit round trip check.
std::vector<float> sample_values(const GraficHeader& header) {
  std::vector<float> values(static_cast<std::size_t>(header.cell_count()));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(std::sin(1.0 + 0.37 * static_cast<double>(i)) * std::pow(10.0, (i % 7) - 3.0));
  values[1] = -0.0f;
  values[2] = std::numeric_limits<float>::denorm_min();
  return values;
}

std::vector<char> file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

template <class T>
void append(std::vector<char>& bytes, T value) {
  char raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  bytes.insert(bytes.end(), raw, raw + sizeof(T));
}

// Expects a kosmo::Error whose message names `path` and contains `fragment`.
template <class F>
void expect_error_naming(F&& action, const fs::path& path, const std::string& fragment) {
  try {
    action();
    ADD_FAILURE() << "no kosmo::Error for " << path << " (expected '" << fragment << "')";
  } catch (const kosmo::Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  }
}

}  // namespace

TEST_F(GraficTest, WriterProducesTheExactFortranLayout) {
  const GraficHeader header = sample_header();
  const std::vector<float> values = sample_values(header);
  write_grafic(directory_ / "ic_deltab", header, values);
  // Independent construction: write(10) np1,np2,np3,dx,xoff1,xoff2,xoff3,astart,omega_m,omega_v,h0
  // then one record per z-plane.
  std::vector<char> expected;
  append<std::int32_t>(expected, 44);
  append(expected, header.np1);
  append(expected, header.np2);
  append(expected, header.np3);
  for (float v : {header.dx, header.xoff1, header.xoff2, header.xoff3, header.astart, header.omega_m,
                  header.omega_v, header.h0})
    append(expected, v);
  append<std::int32_t>(expected, 44);
  const int plane = header.np1 * header.np2;
  for (int z = 0; z < header.np3; ++z) {
    append<std::int32_t>(expected, plane * 4);
    for (int i = 0; i < plane; ++i) append(expected, values[static_cast<std::size_t>(z * plane + i)]);
    append<std::int32_t>(expected, plane * 4);
  }
  EXPECT_EQ(file_bytes(directory_ / "ic_deltab"), expected);
  EXPECT_EQ(expected.size(), 52u + 4u * (8u + 30u * 4u));
}

TEST_F(GraficTest, RoundTripIsBitForBit) {
  const GraficHeader header = sample_header();
  const std::vector<float> values = sample_values(header);
  const fs::path path = directory_ / "ic_velcx";
  write_grafic(path, header, values);
  const GraficHeader read = read_grafic_header(path);
  EXPECT_TRUE(identical(read, header));
  EXPECT_EQ(std::bit_cast<std::uint32_t>(read.h0), std::bit_cast<std::uint32_t>(header.h0));
  const std::vector<float> all = read_grafic_planes(path, 0, header.np3);
  ASSERT_EQ(all.size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(all[i]), std::bit_cast<std::uint32_t>(values[i])) << "value " << i;
  EXPECT_EQ(grafic_value_bytes(path), 4);
}

TEST_F(GraficTest, SlabReadsReturnTheirPlanes) {
  const GraficHeader header = sample_header();
  const std::vector<float> values = sample_values(header);
  const fs::path path = directory_ / "ic_deltab";
  write_grafic(path, header, values);
  const auto plane = static_cast<std::size_t>(header.plane_size());
  for (int first = 0; first < header.np3; ++first) {
    for (int count = 0; first + count <= header.np3; ++count) {
      const std::vector<float> slab = read_grafic_planes(path, first, count);
      ASSERT_EQ(slab.size(), count * plane);
      for (std::size_t i = 0; i < slab.size(); ++i)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(slab[i]),
                  std::bit_cast<std::uint32_t>(values[first * plane + i]));
    }
  }
  expect_error_naming([&] { read_grafic_planes(path, 3, 2); }, path, "planes [3, 5)");
  expect_error_naming([&] { read_grafic_planes(path, -1, 1); }, path, "np3 = 4");
}

TEST_F(GraficTest, ParticleIdsInBothWidths) {
  const GraficHeader header = sample_header();
  std::vector<std::int64_t> ids(static_cast<std::size_t>(header.cell_count()));
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int64_t>(i) * 7919 + 1;
  std::vector<std::int64_t> wide_ids = ids;
  wide_ids[5] = std::int64_t{1} << 40;  // needs 64 bits
  const fs::path path = directory_ / "ic_particle_ids";
  write_grafic_ids(path, header, wide_ids, 8);
  EXPECT_EQ(grafic_value_bytes(path), 8);
  EXPECT_TRUE(identical(read_grafic_header(path), header));
  EXPECT_EQ(read_grafic_id_planes(path, 0, header.np3), wide_ids);
  EXPECT_EQ(fs::file_size(path), 52u + 4u * (8u + 30u * 8u));
  write_grafic_ids(path, header, ids, 4);
  EXPECT_EQ(grafic_value_bytes(path), 4);
  EXPECT_EQ(fs::file_size(path), 52u + 4u * (8u + 30u * 4u));
  const std::vector<std::int64_t> slab = read_grafic_id_planes(path, 1, 2);
  EXPECT_EQ(slab, std::vector<std::int64_t>(ids.begin() + 30, ids.begin() + 90));
  expect_error_naming([&] { write_grafic_ids(path, header, wide_ids, 4); }, path, "does not fit");
}

TEST_F(GraficTest, MissingFileNamesTheFile) {
  const fs::path path = directory_ / "ic_velcy";
  expect_error_naming([&] { read_grafic_header(path); }, path, "does not exist");
  expect_error_naming([&] { read_grafic_planes(path, 0, 1); }, path, "does not exist");
  expect_error_naming([&] { check_grafic_directory(directory_); }, directory_ / "ic_deltab", "does not exist");
  expect_error_naming([&] { check_grafic_directory(directory_ / "nowhere"); }, directory_ / "nowhere",
                      "does not exist");
}

TEST_F(GraficTest, TruncatedFileNamesTheFile) {
  const GraficHeader header = sample_header();
  const fs::path path = directory_ / "ic_deltab";
  write_grafic(path, header, sample_values(header));
  const std::vector<char> bytes = file_bytes(path);
  for (std::size_t cut : {std::size_t{0}, std::size_t{3}, std::size_t{30}, std::size_t{51}, std::size_t{52},
                          std::size_t{100}, bytes.size() - 1}) {
    write_bytes(path, std::vector<char>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut)));
    SCOPED_TRACE("cut at " + std::to_string(cut));
    expect_error_naming([&] { read_grafic_header(path); }, path, "truncated");
    expect_error_naming([&] { read_grafic_planes(path, 0, 1); }, path, "truncated");
  }
}

TEST_F(GraficTest, RecordMarkerMismatchNamesTheFile) {
  const GraficHeader header = sample_header();
  const fs::path path = directory_ / "ic_velcz";
  write_grafic(path, header, sample_values(header));
  const std::vector<char> good = file_bytes(path);
  const std::int32_t wrong = 123;
  // Header leading marker, header trailing marker, leading and trailing marker of plane 2.
  const std::size_t plane_record = 8 + 30 * 4;
  for (std::size_t offset : {std::size_t{0}, std::size_t{48}, 52 + 2 * plane_record, 52 + 3 * plane_record - 4}) {
    std::vector<char> bytes = good;
    std::memcpy(bytes.data() + offset, &wrong, sizeof wrong);
    write_bytes(path, bytes);
    SCOPED_TRACE("marker at byte " + std::to_string(offset));
    expect_error_naming([&] { read_grafic_planes(path, 0, header.np3); }, path, "record marker mismatch");
  }
  // Planes outside the slab are not read, but check_grafic_directory checks every marker.
  std::vector<char> bytes = good;
  std::memcpy(bytes.data() + 52 + 3 * plane_record - 4, &wrong, sizeof wrong);
  write_bytes(path, bytes);
  EXPECT_NO_THROW(read_grafic_planes(path, 0, 1));
  write_grafic(directory_ / "ic_deltab", header, sample_values(header));
  write_grafic(directory_ / "ic_velcx", header, sample_values(header));
  write_grafic(directory_ / "ic_velcy", header, sample_values(header));
  expect_error_naming([&] { check_grafic_directory(directory_); }, path, "record marker mismatch");
}

TEST_F(GraficTest, HeaderInconsistentWithFileSizeNamesTheFile) {
  GraficHeader header = sample_header();
  const fs::path path = directory_ / "ic_deltab";
  write_grafic(path, header, sample_values(header));
  // Extra bytes after the last plane.
  std::vector<char> bytes = file_bytes(path);
  bytes.insert(bytes.end(), 16, '\0');
  write_bytes(path, bytes);
  expect_error_naming([&] { read_grafic_header(path); }, path, "inconsistent with the file size");
  // A header claiming fewer planes than the file holds.
  bytes = file_bytes(path);
  bytes.resize(bytes.size() - 16);
  const std::int32_t fewer_planes = 3;
  std::memcpy(bytes.data() + 4 + 8, &fewer_planes, sizeof fewer_planes);
  write_bytes(path, bytes);
  expect_error_naming([&] { read_grafic_header(path); }, path, "inconsistent with the file size");
  // Non-positive dimensions.
  const std::int32_t zero = 0;
  std::memcpy(bytes.data() + 4, &zero, sizeof zero);
  write_bytes(path, bytes);
  expect_error_naming([&] { read_grafic_header(path); }, path, "non-positive dimensions");
}

TEST_F(GraficTest, BigEndianFileIsRecognised) {
  std::vector<char> bytes;
  append<std::int32_t>(bytes, 44 << 24);
  bytes.resize(200, '\0');
  const fs::path path = directory_ / "ic_deltab";
  write_bytes(path, bytes);
  expect_error_naming([&] { read_grafic_header(path); }, path, "big-endian");
}

TEST_F(GraficTest, DirectoryWithConsistentFiles) {
  const GraficHeader header = sample_header();
  const std::vector<float> values = sample_values(header);
  for (const char* name : {"ic_deltab", "ic_velcx", "ic_velcy", "ic_velcz", "ic_poscx", "ic_poscy", "ic_poscz"})
    write_grafic(directory_ / name, header, values);
  std::vector<std::int64_t> ids(values.size());
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int64_t>(i + 1);
  write_grafic_ids(directory_ / "ic_particle_ids", header, ids);
  const GraficDirectory directory = check_grafic_directory(directory_);
  EXPECT_TRUE(identical(directory.header, header));
  EXPECT_EQ(directory.files, (std::vector<std::string>{"ic_deltab", "ic_velcx", "ic_velcy", "ic_velcz", "ic_poscx",
                                                       "ic_poscy", "ic_poscz", "ic_particle_ids"}));
  EXPECT_TRUE(directory.has_positions);
  EXPECT_TRUE(directory.has_particle_ids);
  EXPECT_EQ(directory.particle_id_bytes, 8);
}

TEST_F(GraficTest, DirectoryWithDifferentHeadersNamesTheFile) {
  const GraficHeader header = sample_header();
  const std::vector<float> values = sample_values(header);
  for (const char* name : {"ic_deltab", "ic_velcx", "ic_velcy", "ic_velcz"}) write_grafic(directory_ / name, header, values);
  EXPECT_NO_THROW(check_grafic_directory(directory_));
  GraficHeader other = header;
  other.astart = std::nextafter(header.astart, 1.0f);  // one ulp
  write_grafic(directory_ / "ic_velcy", other, values);
  expect_error_naming([&] { check_grafic_directory(directory_); }, directory_ / "ic_velcy", "differs from");
  // Different dimensions (consistent with their own size) are caught too.
  GraficHeader smaller = header;
  smaller.np3 = 2;
  write_grafic(directory_ / "ic_velcy", header, values);
  write_grafic(directory_ / "ic_velcz", smaller, std::vector<float>(values.begin(), values.begin() + 60));
  expect_error_naming([&] { check_grafic_directory(directory_); }, directory_ / "ic_velcz", "differs from");
  // An incomplete velocity triple.
  write_grafic(directory_ / "ic_velcz", header, values);
  fs::remove(directory_ / "ic_velcx");
  expect_error_naming([&] { check_grafic_directory(directory_); }, directory_ / "ic_velcx", "does not exist");
}

TEST_F(GraficTest, WriterRejectsMismatchedCount) {
  const GraficHeader header = sample_header();
  const fs::path path = directory_ / "ic_deltab";
  expect_error_naming([&] { write_grafic(path, header, std::vector<float>(119)); }, path, "119 values");
}
