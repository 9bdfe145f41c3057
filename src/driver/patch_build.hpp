#pragma once
// Building a user patch (docs/patches.md): the C++ files of a directory compiled into a shared
// library with the compiler and flags kosmo was configured with, against include/kosmo/patch.hpp.
// The library is cached under a fingerprint of the directory's files, the header and the compile
// command, so an unchanged patch is not rebuilt. No MPI here: the caller decides which process builds.
#include <filesystem>
#include <string>
#include <vector>

namespace kosmo::driver {

struct PatchBuildResult {
  std::filesystem::path library;  // the shared library to load
  bool rebuilt = false;           // false: taken from the cache
  double seconds = 0.0;           // compile time (0 when cached)
};

// The cache's root: $KOSMO_PATCH_CACHE, else $XDG_CACHE_HOME/kosmo/patches, else
// $HOME/.cache/kosmo/patches, else the system's temporary directory/kosmo-patches.
std::filesystem::path patch_cache_root();

// The C++ sources of a patch (*.cpp, *.cc, *.cxx at the top of `directory`, sorted); throws
// kosmo::Error when the directory does not exist or holds none.
std::vector<std::filesystem::path> patch_sources(const std::filesystem::path& directory);

// 16 hexadecimal digits: FNV-1a of every non-hidden file under `directory` (relative name and
// contents, in sorted order), of kosmo/patch.hpp and of the compile command's flags.
std::string patch_fingerprint(const std::filesystem::path& directory);

// Builds (or finds in the cache) the library of `directory`. A compile error throws kosmo::Error
// whose message holds the compiler's output (file:line: error: ...); nothing is left in the cache.
PatchBuildResult build_patch(const std::filesystem::path& directory, const std::filesystem::path& cache_root);

}  // namespace kosmo::driver
