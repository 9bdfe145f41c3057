#pragma once
// File plumbing shared by the RAMSES writer's files (io/ramses_writer.hpp): atomic files and
// Fortran unformatted sequential records (shared/reference/ramses-format.md, Conventions).
#include <fcntl.h>
#include <unistd.h>

#include <bit>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace kosmo::io::ramses_detail {

namespace fs = std::filesystem;

// Readers take the files as little-endian with 4-byte record markers (ramses-format.md, Conventions).
static_assert(std::endian::native == std::endian::little, "RAMSES files are written little-endian");

inline std::string number5(int number) {
  char text[16];
  std::snprintf(text, sizeof text, "%05d", number);
  return text;
}

// Flushes a file or directory to disk, so a rename never exposes an incomplete file after a crash.
inline void sync_path(const fs::path& path, bool is_file) {
  const int descriptor = ::open(path.c_str(), is_file ? O_RDONLY : (O_RDONLY | O_DIRECTORY));
  KOSMO_REQUIRE(descriptor >= 0, "RAMSES output: cannot open '" << path.string() << "' to sync it");
  const int status = ::fsync(descriptor);
  ::close(descriptor);
  KOSMO_REQUIRE(status == 0, "RAMSES output: cannot sync '" << path.string() << "'");
}

// Writes under "<name>.tmp" and renames when complete (house rule, docs/outputs.md).
class AtomicFile {
 public:
  explicit AtomicFile(fs::path path) : path_(std::move(path)), temporary_(path_.string() + ".tmp") {
    out_.open(temporary_, std::ios::binary | std::ios::trunc);
    KOSMO_REQUIRE(out_.is_open(), "RAMSES output: cannot create '" << temporary_.string() << "'");
  }
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile() {
    if (!committed_) {
      out_.close();
      std::error_code ignored;
      fs::remove(temporary_, ignored);
    }
  }
  std::ofstream& stream() { return out_; }
  const fs::path& path() const { return path_; }
  void commit() {
    out_.close();
    KOSMO_REQUIRE(!out_.fail(), "RAMSES output: cannot write '" << path_.string() << "' (disk full?)");
    sync_path(temporary_, true);
    std::error_code error;
    fs::rename(temporary_, path_, error);
    KOSMO_REQUIRE(!error, "RAMSES output: cannot rename '" << temporary_.string() << "' to '" << path_.string()
                                                           << "': " << error.message());
    committed_ = true;
  }

 private:
  fs::path path_, temporary_;
  std::ofstream out_;
  bool committed_ = false;
};

// Fortran unformatted sequential records: int32 length | payload | int32 length. A record longer
// than INT32_MAX bytes would need gfortran's sub-records, which no reader follows
// (ramses-format.md, Conventions), so it is an error naming the file and the record.
class FortranRecordWriter {
 public:
  explicit FortranRecordWriter(AtomicFile& file) : file_(file) {}
  void bytes(const void* data, std::size_t size, const char* what) {
    KOSMO_REQUIRE(size <= static_cast<std::size_t>(INT32_MAX),
                  "RAMSES output: record '" << what << "' of '" << file_.path().string() << "' would be " << size
                                            << " bytes, more than a 4-byte Fortran record marker can hold");
    const auto marker = static_cast<std::int32_t>(size);
    auto& out = file_.stream();
    out.write(reinterpret_cast<const char*>(&marker), sizeof marker);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.write(reinterpret_cast<const char*>(&marker), sizeof marker);
  }
  template <class T>
  void record(const std::vector<T>& values, const char* what) {
    bytes(values.data(), values.size() * sizeof(T), what);
  }
  void ints(std::initializer_list<std::int32_t> values, const char* what) {
    record(std::vector<std::int32_t>(values), what);
  }
  void reals(std::initializer_list<double> values, const char* what) { record(std::vector<double>(values), what); }

 private:
  AtomicFile& file_;
};

inline std::int32_t to_int32(long long value, const fs::path& file, const char* what) {
  KOSMO_REQUIRE(value >= INT32_MIN && value <= INT32_MAX,
                "RAMSES output: " << what << " = " << value << " does not fit the int32 of '" << file.string() << "'");
  return static_cast<std::int32_t>(value);
}

// Oct coordinates packed into one lookup key, 21 bits per axis (levels up to 21 with nx = 1).
inline std::uint64_t pack_oct_key(const std::int64_t* coordinates, int ndim) {
  std::uint64_t key = 0;
  for (int d = 0; d < ndim; ++d) key |= static_cast<std::uint64_t>(coordinates[d]) << (21 * d);
  return key;
}

}  // namespace kosmo::io::ramses_detail
