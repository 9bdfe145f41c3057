#pragma once
// namelist.txt: RAMSES copies the namelist file byte for byte into every output directory
// (amr/output_amr.f90, dump_all), where pynbody and users' scripts look up the run's parameters.
#include <filesystem>
#include <string>

namespace kosmo::io {

// Writes `output_directory`/namelist.txt: a copy of the file `source` when it is a readable regular
// file, otherwise `fallback_text` (a run from a built-in namelist). Written under a temporary name
// and renamed, so a crash leaves no half file. Call on one rank.
void write_namelist_copy(const std::filesystem::path& output_directory, const std::string& source,
                         const std::string& fallback_text);

}  // namespace kosmo::io
