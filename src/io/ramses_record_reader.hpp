#pragma once
// Reading Fortran unformatted sequential records (int32 length | payload | int32 length,
// little-endian; shared/reference/ramses-format.md, Conventions) for the RAMSES restart reader
// (io/ramses_reader.hpp). Every failure is a kosmo::Error naming the file, the record and the
// byte offset: a missing file, a short read (truncated file) or mismatched record markers.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace kosmo::io::ramses_detail {

class FortranRecordReader {
 public:
  // `shown` is the name used in messages (e.g. "output_00002/amr_00002.out00003").
  FortranRecordReader(const std::filesystem::path& path, std::string shown) : shown_(std::move(shown)) {
    in_.open(path, std::ios::binary);
    KOSMO_REQUIRE(in_.is_open(), "RAMSES restart: cannot open '" << shown_ << "'");
    in_.seekg(0, std::ios::end);
    size_ = static_cast<long long>(in_.tellg());
    in_.seekg(0, std::ios::beg);
  }

  const std::string& name() const { return shown_; }

  // The payload of the next record, whatever its length.
  std::vector<char> raw(const char* what) {
    const std::int32_t length = open_record(what);
    std::vector<char> payload(static_cast<std::size_t>(length));
    read_exact(payload.data(), payload.size(), what);
    close_record(length, what);
    return payload;
  }

  // The next record as exactly `count` values of T (a different length is an error).
  template <class T>
  std::vector<T> values(std::size_t count, const char* what) {
    const std::int32_t length = open_record(what);
    KOSMO_REQUIRE(static_cast<std::size_t>(length) == count * sizeof(T),
                  "RAMSES restart: record '" << what << "' of '" << shown_ << "' at byte " << record_start_ << " holds "
                                             << length << " bytes, expected " << count * sizeof(T)
                                             << " (not a file of this layout, or corrupted)");
    std::vector<T> out(count);
    read_exact(out.data(), count * sizeof(T), what);
    close_record(length, what);
    return out;
  }
  template <class T>
  T value(const char* what) {
    return values<T>(1, what)[0];
  }

  // True once every byte has been read (a file must hold nothing after its last record).
  bool at_end() { return position() >= size_; }

  // Skips the next record, checking its markers.
  void skip(const char* what) {
    const std::int32_t length = open_record(what);
    KOSMO_REQUIRE(position() + length + 4 <= size_, truncated(what));
    in_.seekg(length, std::ios::cur);
    close_record(length, what);
  }

 private:
  long long position() { return static_cast<long long>(in_.tellg()); }

  std::string truncated(const char* what) const {
    return "RAMSES restart: '" + shown_ + "' is truncated: record '" + what + "' starting at byte " +
           std::to_string(record_start_) + " runs past the end of the file (" + std::to_string(size_) + " bytes)";
  }

  void read_exact(void* data, std::size_t bytes, const char* what) {
    in_.read(static_cast<char*>(data), static_cast<std::streamsize>(bytes));
    KOSMO_REQUIRE(in_ && static_cast<std::size_t>(in_.gcount()) == bytes, truncated(what));
  }

  std::int32_t open_record(const char* what) {
    record_start_ = position();
    KOSMO_REQUIRE(record_start_ >= 0 && record_start_ + 4 <= size_, truncated(what));
    std::int32_t length = 0;
    read_exact(&length, sizeof length, what);
    KOSMO_REQUIRE(length >= 0, "RAMSES restart: record '" << what << "' of '" << shown_ << "' at byte " << record_start_
                                                          << " has a negative length marker " << length);
    return length;
  }

  void close_record(std::int32_t length, const char* what) {
    std::int32_t trailer = -1;
    read_exact(&trailer, sizeof trailer, what);
    KOSMO_REQUIRE(trailer == length, "RAMSES restart: record '"
                                         << what << "' of '" << shown_ << "' at byte " << record_start_
                                         << ": record marker mismatch (" << length << " then " << trailer
                                         << "), the file is corrupted or truncated");
  }

  std::ifstream in_;
  std::string shown_;
  long long size_ = 0, record_start_ = 0;
};

// A line of a RAMSES text file (info, descriptor, header) without its leading and trailing blanks.
inline std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

}  // namespace kosmo::io::ramses_detail
