#include "driver/patch_build.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/error.hpp"
#include "driver/patch_toolchain.hpp"

namespace kosmo::driver {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// FNV-1a, 64 bits: a fingerprint, not a security measure (the files are the user's own).
void hash_bytes(std::uint64_t& hash, const std::string& bytes) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  hash ^= 0xff;  // separates consecutive strings ("ab","c" from "a","bc")
  hash *= 1099511628211ULL;
}

bool hidden(const fs::path& relative) {
  for (const fs::path& part : relative)
    if (!part.empty() && part.string()[0] == '.') return true;
  return false;
}

std::string quoted(const fs::path& path) {
  std::string text = "'";
  for (char c : path.string()) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return text + "'";
}

fs::path header_path() { return fs::path(patch_toolchain::include_directory) / "kosmo" / "patch.hpp"; }

std::string compile_flags() {
  return std::string(patch_toolchain::flags) + " -std=c++20 -fPIC -shared -I" + quoted(patch_toolchain::include_directory);
}

}  // namespace

fs::path patch_cache_root() {
  if (const char* cache = std::getenv("KOSMO_PATCH_CACHE"); cache && *cache) return cache;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "kosmo" / "patches";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "kosmo" / "patches";
  return fs::temp_directory_path() / "kosmo-patches";
}

std::vector<fs::path> patch_sources(const fs::path& directory) {
  KOSMO_REQUIRE(fs::is_directory(directory), "patch: " << directory.string() << " is not a directory");
  std::vector<fs::path> sources;
  for (const auto& entry : fs::directory_iterator(directory)) {
    const std::string extension = entry.path().extension().string();
    if (entry.is_regular_file() && !hidden(entry.path().filename()) && (extension == ".cpp" || extension == ".cc" || extension == ".cxx"))
      sources.push_back(fs::absolute(entry.path()));
  }
  std::sort(sources.begin(), sources.end());
  KOSMO_REQUIRE(!sources.empty(), "patch: " << directory.string() << " holds no C++ file (*.cpp, *.cc, *.cxx)");
  return sources;
}

std::string patch_fingerprint(const fs::path& directory) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(directory))
    if (entry.is_regular_file() && !hidden(fs::relative(entry.path(), directory))) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::uint64_t hash = 14695981039346656037ULL;
  for (const fs::path& file : files) {
    hash_bytes(hash, fs::relative(file, directory).generic_string());
    hash_bytes(hash, read_file(file));
  }
  hash_bytes(hash, read_file(header_path()));
  hash_bytes(hash, std::string(patch_toolchain::compiler) + " " + compile_flags());
  std::ostringstream text;
  text << std::hex;
  text.width(16);
  text.fill('0');
  text << hash;
  return text.str();
}

PatchBuildResult build_patch(const fs::path& directory, const fs::path& cache_root) {
  const std::vector<fs::path> sources = patch_sources(directory);
  const fs::path entry = cache_root / patch_fingerprint(directory);
  PatchBuildResult result;
  result.library = entry / "libkosmo_patch.so";
  if (fs::exists(result.library)) return result;

  // Built under a name of this process, then renamed: a concurrent run never loads a partial file.
  fs::create_directories(entry);
  const std::string process = std::to_string(::getpid());
  fs::path partial = entry / "libkosmo_patch.so.";
  partial += process;
  fs::path messages = entry / "compiler-messages.";
  messages += process;
  std::string command = quoted(patch_toolchain::compiler);
  command.append(" ").append(compile_flags());
  for (const fs::path& source : sources) command.append(" ").append(quoted(source));
  command.append(" -o ").append(quoted(partial)).append(" > ").append(quoted(messages)).append(" 2>&1");
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string output = read_file(messages);
  std::error_code ignored;
  fs::remove(messages, ignored);
  if (status != 0 || !fs::exists(partial)) {
    fs::remove(partial, ignored);
    fs::remove(entry, ignored);  // only if empty: another process's finished library stays
    KOSMO_FAIL("patch " << directory.string() << " does not compile (" << patch_toolchain::compiler << "):\n" << output);
  }
  fs::rename(partial, result.library);
  result.rebuilt = true;
  return result;
}

}  // namespace kosmo::driver
