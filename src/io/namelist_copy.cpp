#include "io/namelist_copy.hpp"

#include <fstream>
#include <iterator>
#include <system_error>

#include "core/error.hpp"

namespace kosmo::io {

void write_namelist_copy(const std::filesystem::path& output_directory, const std::string& source,
                         const std::string& fallback_text) {
  namespace fs = std::filesystem;
  std::string text = fallback_text;
  std::error_code error;
  if (fs::is_regular_file(source, error)) {
    std::ifstream in(source, std::ios::binary);
    if (in) text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const fs::path path = output_directory / "namelist.txt";
  const fs::path temporary = output_directory / "namelist.txt.tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    KOSMO_REQUIRE(out.good(), "output: cannot write '" << temporary.string() << "'");
  }
  fs::rename(temporary, path, error);
  KOSMO_REQUIRE(!error, "output: cannot rename '" << temporary.string() << "' to '" << path.string() << "': " << error.message());
}

}  // namespace kosmo::io
