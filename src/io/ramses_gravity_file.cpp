#include "io/ramses_gravity_file.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "io/ramses_record_reader.hpp"
#include "io/ramses_records.hpp"

namespace kosmo::io {

std::vector<std::string> ramses_gravity_variables(int ndim) {
  static const char* const axes[3] = {"x", "y", "z"};
  std::vector<std::string> names{"potential"};
  for (int d = 0; d < ndim; ++d) names.push_back(std::string("acceleration_") + axes[d]);
  return names;
}

RamsesFieldSplit split_ramses_fields(const SnapshotMeta& meta) {
  RamsesFieldSplit split;
  for (const std::string& name : ramses_gravity_variables(meta.ndim)) {
    const auto found = std::find_if(meta.fields.begin(), meta.fields.end(), [&](const FieldDescription& f) { return f.name == name; });
    if (found == meta.fields.end()) {
      split.gravity.clear();
      break;
    }
    split.gravity.push_back(static_cast<std::size_t>(found - meta.fields.begin()));
  }
  for (std::size_t f = 0; f < meta.fields.size(); ++f)
    if (std::find(split.gravity.begin(), split.gravity.end(), f) == split.gravity.end()) split.hydro.push_back(f);
  return split;
}

void write_ramses_gravity_file(const std::filesystem::path& path, const SnapshotMeta& meta,
                               const std::vector<std::vector<SnapshotLevel>>& blocks, const std::vector<std::size_t>& columns) {
  ramses_detail::AtomicFile file(path);
  ramses_detail::FortranRecordWriter out(file);
  const auto nchild = static_cast<std::size_t>(1) << meta.ndim;
  out.ints({meta.ncpu}, "ncpu");
  out.ints({ramses_detail::to_int32(static_cast<long long>(columns.size()), path, "nvar")}, "nvar");
  out.ints({meta.levelmax}, "nlevelmax");
  out.ints({0}, "nboundary");
  std::vector<double> values;
  for (int l = 1; l <= meta.levelmax; ++l)
    for (int c = 1; c <= meta.ncpu; ++c) {
      const SnapshotLevel& block = blocks[static_cast<std::size_t>(l - 1)][static_cast<std::size_t>(c - 1)];
      const std::size_t n = block.oct_coordinates.size() / static_cast<std::size_t>(meta.ndim);
      out.ints({l}, "ilevel");
      out.ints({static_cast<std::int32_t>(n)}, "ncache");
      if (n == 0) continue;
      values.resize(n);
      for (std::size_t child = 0; child < nchild; ++child)
        for (std::size_t column : columns) {
          const std::vector<double>& field = block.fields[column];
          for (std::size_t o = 0; o < n; ++o) values[o] = field[o * nchild + child];
          out.record(values, "gravity variable");
        }
    }
  file.commit();
}

std::vector<std::vector<std::vector<double>>> read_ramses_gravity_file(const std::filesystem::path& path, const std::string& shown,
                                                                       int cpu, int ncpu, int ndim, int nlevelmax,
                                                                       const std::vector<std::int32_t>& counts) {
  ramses_detail::FortranRecordReader in(path, shown);
  const int file_ncpu = in.value<std::int32_t>("ncpu"), nvar = in.value<std::int32_t>("nvar");
  const int file_levels = in.value<std::int32_t>("nlevelmax"), nboundary = in.value<std::int32_t>("nboundary");
  KOSMO_REQUIRE(file_ncpu == ncpu && nvar == ndim + 1 && file_levels == nlevelmax && nboundary == 0,
                "RAMSES restart: the header of '" << shown << "' (ncpu=" << file_ncpu << ", nvar=" << nvar << ", nlevelmax="
                                                  << file_levels << ", nboundary=" << nboundary << ") does not match the "
                                                  << ndim << "-D output of ncpu=" << ncpu << " and nlevelmax=" << nlevelmax
                                                  << " (a grav_ file holds phi and the ndim components of f)");
  const auto nchild = static_cast<std::size_t>(1) << ndim;
  std::vector<std::vector<std::vector<double>>> values(static_cast<std::size_t>(nlevelmax));
  for (int l = 0; l < nlevelmax; ++l)
    for (int b = 0; b < ncpu; ++b) {
      const int level = in.value<std::int32_t>("ilevel"), ncache = in.value<std::int32_t>("ncache");
      const auto count = static_cast<std::size_t>(counts[static_cast<std::size_t>(l * ncpu + b)]);
      KOSMO_REQUIRE(level == l + 1 && ncache >= 0 && static_cast<std::size_t>(ncache) == count,
                    "RAMSES restart: '" << shown << "' has a block (ilevel=" << level << ", ncache=" << ncache
                                        << ") where the amr file has level " << l + 1 << " with " << count << " octs");
      if (count == 0) continue;
      if (b + 1 != cpu) {
        for (std::size_t r = 0; r < static_cast<std::size_t>(nvar) * nchild; ++r) in.skip("gravity variable");
        continue;
      }
      auto& level_values = values[static_cast<std::size_t>(l)];
      level_values.assign(static_cast<std::size_t>(nvar), std::vector<double>(count * nchild));
      for (std::size_t ind = 0; ind < nchild; ++ind)
        for (std::size_t v = 0; v < static_cast<std::size_t>(nvar); ++v) {
          const auto record = in.values<double>(count, "gravity variable");
          for (std::size_t o = 0; o < count; ++o) level_values[v][o * nchild + ind] = record[o];
        }
    }
  return values;
}

}  // namespace kosmo::io
