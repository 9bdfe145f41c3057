#include "io/ramses_writer.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <unordered_map>

#include "core/error.hpp"
#include "io/ramses_gravity_file.hpp"
#include "io/ramses_records.hpp"

namespace kosmo::io {
namespace {

namespace fs = std::filesystem;
using ramses_detail::AtomicFile;
using ramses_detail::FortranRecordWriter;
using ramses_detail::number5;
using ramses_detail::pack_oct_key;
using ramses_detail::to_int32;

// The grid geometry of one file: grid indices (1-based, in file order) and lookups by position.
struct FileIndex {
  int ndim = 3, nchild = 8;
  long long ncoarse = 1, ngridmax = 0;
  std::array<std::int64_t, 3> coarse{1, 1, 1};
  std::vector<std::vector<long long>> head;                        // [level-1][cpu-1] first grid index
  std::vector<std::unordered_map<std::uint64_t, long long>> grid;  // [level-1] key -> grid index

  long long find(int level, const std::int64_t* coordinates) const {
    if (level < 1 || level > static_cast<int>(grid.size())) return 0;
    const auto found = grid[static_cast<std::size_t>(level - 1)].find(pack_oct_key(coordinates, ndim));
    return found == grid[static_cast<std::size_t>(level - 1)].end() ? 0 : found->second;
  }
  long long coarse_index(const std::int64_t* c) const {  // RAMSES' coarse cell 1 + i + j nx + k nx ny
    return 1 + c[0] + (ndim > 1 ? c[1] * coarse[0] : 0) + (ndim > 2 ? c[2] * coarse[0] * coarse[1] : 0);
  }
  // RAMSES cell index of the cell at integer cell coordinates `c` of level `level` (0 = coarse),
  // or 0 when its oct is not in this file.
  long long cell_index(int level, const std::int64_t* c) const {
    if (level == 0) return coarse_index(c);
    std::int64_t parent[3] = {0, 0, 0};
    int child = 0;
    for (int d = 0; d < ndim; ++d) {
      parent[d] = c[d] >> 1;
      child |= static_cast<int>(c[d] & 1) << d;
    }
    const long long g = find(level, parent);
    return g == 0 ? 0 : ncoarse + child * ngridmax + g;
  }
};

FileIndex index_domain(const fs::path& file, const SnapshotMeta& meta, const RamsesDomain& domain) {
  FileIndex index;
  index.ndim = meta.ndim;
  index.nchild = 1 << meta.ndim;
  index.coarse = {meta.nx, meta.ndim > 1 ? meta.ny : 1, meta.ndim > 2 ? meta.nz : 1};
  index.ncoarse = index.coarse[0] * index.coarse[1] * index.coarse[2];
  index.ngridmax = domain.ngridmax;
  const auto nlevel = static_cast<std::size_t>(meta.levelmax);
  const auto ncpu = static_cast<std::size_t>(meta.ncpu);
  KOSMO_REQUIRE(domain.cpu >= 1 && domain.cpu <= meta.ncpu,
                "RAMSES output: cpu " << domain.cpu << " out of 1.." << meta.ncpu << " for '" << file.string() << "'");
  KOSMO_REQUIRE(domain.blocks.size() == nlevel, "RAMSES output: " << domain.blocks.size() << " levels of blocks for '"
                                                                  << file.string() << "', levelmax is " << nlevel);
  index.head.assign(nlevel, std::vector<long long>(ncpu, 0));
  index.grid.resize(nlevel);
  long long next_grid = 1;
  for (std::size_t l = 0; l < nlevel; ++l) {
    KOSMO_REQUIRE(domain.blocks[l].size() == ncpu,
                  "RAMSES output: level " << l + 1 << " of '" << file.string() << "' needs one block per cpu");
    const std::int64_t extent = std::int64_t{1} << l;  // level l+1 octs per coarse cell and axis
    KOSMO_REQUIRE(extent * std::max({index.coarse[0], index.coarse[1], index.coarse[2]}) <= (std::int64_t{1} << 21),
                  "RAMSES output: level " << l + 1 << " is too deep for the oct lookup of '" << file.string() << "'");
    for (std::size_t c = 0; c < ncpu; ++c) {
      const SnapshotLevel& block = domain.blocks[l][c];
      const std::size_t noct = block.oct_coordinates.size() / static_cast<std::size_t>(meta.ndim);
      KOSMO_REQUIRE(block.oct_coordinates.size() == noct * static_cast<std::size_t>(meta.ndim) &&
                        block.son_flags.size() == noct * static_cast<std::size_t>(index.nchild) &&
                        block.fields.size() == meta.fields.size(),
                    "RAMSES output: block (level " << l + 1 << ", cpu " << c + 1 << ") of '" << file.string()
                                                   << "' has inconsistent array sizes");
      for (const auto& values : block.fields)
        KOSMO_REQUIRE(values.size() == noct * static_cast<std::size_t>(index.nchild),
                      "RAMSES output: a field of block (level " << l + 1 << ", cpu " << c + 1 << ") of '"
                                                                << file.string() << "' has the wrong size");
      index.head[l][c] = noct > 0 ? next_grid : 0;
      for (std::size_t o = 0; o < noct; ++o) {
        const std::int64_t* xyz = &block.oct_coordinates[o * static_cast<std::size_t>(meta.ndim)];
        for (int d = 0; d < meta.ndim; ++d)
          KOSMO_REQUIRE(xyz[d] >= 0 && xyz[d] < extent * index.coarse[static_cast<std::size_t>(d)],
                        "RAMSES output: oct coordinate " << xyz[d] << " out of range at level " << l + 1 << " in '"
                                                         << file.string() << "'");
        const bool inserted = index.grid[l].emplace(pack_oct_key(xyz, meta.ndim), next_grid++).second;
        KOSMO_REQUIRE(inserted,
                      "RAMSES output: an oct of level " << l + 1 << " appears twice in '" << file.string() << "'");
      }
    }
  }
  KOSMO_REQUIRE(next_grid - 1 <= domain.ngridmax, "RAMSES output: '"
                                                      << file.string() << "' holds " << next_grid - 1
                                                      << " octs, more than ngridmax = " << domain.ngridmax);
  to_int32(index.ncoarse + index.nchild * domain.ngridmax, file, "the largest cell index");
  return index;
}

// The AMR header, records 1-32 of ramses-format.md (periodic: nboundary = 0, no records 24-26).
void write_amr_header(FortranRecordWriter& out, const fs::path& file, const SnapshotMeta& meta,
                      const RamsesDomain& domain, const FileIndex& index) {
  const int nlevel = meta.levelmax, ncpu = meta.ncpu;
  long long ngrid = 0;
  std::vector<std::int32_t> headl, taill, numbl, numbtot(static_cast<std::size_t>(10 * nlevel), 0);
  for (int l = 0; l < nlevel; ++l) {
    for (int c = 0; c < ncpu; ++c) {  // cpu fastest: Fortran order of numbl(1:ncpu, 1:nlevelmax)
      const auto& block = domain.blocks[static_cast<std::size_t>(l)][static_cast<std::size_t>(c)];
      const long long n = static_cast<long long>(block.oct_coordinates.size()) / meta.ndim;
      const long long head = index.head[static_cast<std::size_t>(l)][static_cast<std::size_t>(c)];
      headl.push_back(to_int32(head, file, "headl"));
      taill.push_back(to_int32(n > 0 ? head + n - 1 : 0, file, "taill"));
      numbl.push_back(to_int32(n, file, "numbl"));
      ngrid += n;
    }
    for (int k = 0; k < 4; ++k) {
      if (!domain.level_statistics.empty()) {
        numbtot[static_cast<std::size_t>(10 * l + k)] =
            domain.level_statistics[static_cast<std::size_t>(l)][static_cast<std::size_t>(k)];
      } else {
        long long total = 0;
        for (int c = 0; c < ncpu; ++c) total += numbl[static_cast<std::size_t>(l * ncpu + c)];
        numbtot[static_cast<std::size_t>(10 * l + k)] = to_int32(total, file, "numbtot");
      }
    }
  }
  const auto ngridmax = to_int32(domain.ngridmax, file, "ngridmax");
  const auto levels = static_cast<std::size_t>(nlevel);
  out.ints({ncpu}, "ncpu");
  out.ints({meta.ndim}, "ndim");
  out.ints({meta.nx, meta.ndim > 1 ? meta.ny : 1, meta.ndim > 2 ? meta.nz : 1}, "nx,ny,nz");
  out.ints({nlevel}, "nlevelmax");
  out.ints({ngridmax}, "ngridmax");
  out.ints({0}, "nboundary");
  out.ints({to_int32(ngrid, file, "ngrid_current")}, "ngrid_current");
  out.reals({meta.boxlen}, "boxlen");
  // kosmo does not hand its output schedule to the writer: one output at this time.
  out.ints({1, 1, meta.output_number}, "noutput,iout,ifout");
  out.reals({meta.time}, "tout");
  out.reals({meta.aexp}, "aout");
  out.reals({meta.time}, "t");
  // Each level's latest step (RAMSES dtnew; dtold, the step before, is not kept: the same is
  // written). A RAMSES-format restart rebuilds the provisional half kicks from it.
  std::vector<double> dtnew(levels, 0.0);
  if (meta.level_time_steps.size() == levels) dtnew = meta.level_time_steps;
  out.record(dtnew, "dtold");
  out.record(dtnew, "dtnew");
  const auto step = to_int32(meta.step, file, "nstep_coarse");
  out.ints({step, step}, "nstep,nstep_coarse");
  out.reals({0.0, 0.0, 0.0}, "einit,mass_tot_0,rho_tot");
  if (meta.cosmological) {
    out.reals({meta.omega_m, meta.omega_l, meta.omega_k, meta.omega_b, meta.h0, meta.aexp, meta.boxlen}, "cosmology");
  } else {  // RAMSES' non-cosmological values, as in the info file
    out.reals({1.0, 0.0, 0.0, 0.0, 1.0, 1.0, meta.boxlen}, "cosmology");
  }
  const double aexp = meta.cosmological ? meta.aexp : 1.0;
  out.reals({aexp, 0.0, aexp, 0.0, 0.0}, "aexp,hexp,aexp_old,epot_tot_int,epot_tot_old");
  out.reals({0.0}, "mass_sph");
  out.record(headl, "headl");
  out.record(taill, "taill");
  out.record(numbl, "numbl");
  out.record(numbtot, "numbtot");  // int32: int64 breaks osyris (ramses-format.md record 23)
  const long long free_grids = domain.ngridmax - ngrid;
  out.ints({to_int32(free_grids > 0 ? ngrid + 1 : 0, file, "headf"), free_grids > 0 ? ngridmax : 0,
            to_int32(free_grids, file, "numbf"), to_int32(ngrid, file, "used_mem"), ngridmax},
           "headf,tailf,numbf,used_mem,used_mem_tot");  // yt requires exactly 5
  // Record 28: always 'hilbert' with one bound_key record, whatever the real ordering (yt >= 4.4.3
  // accepts only hilbert or bisection; the info file carries the true ordering, ramses-format.md).
  std::string ordering = "hilbert";
  ordering.resize(128, ' ');
  out.bytes(ordering.data(), ordering.size(), "ordering");
  std::vector<double> bound_key(static_cast<std::size_t>(ncpu) + 1, 0.0);
  if (meta.hilbert_bound_keys.size() == bound_key.size()) bound_key = meta.hilbert_bound_keys;
  out.record(bound_key, "bound_key");

  // Coarse level: son(1:ncoarse) points at the level-1 grids this file holds.
  std::vector<std::int32_t> son(static_cast<std::size_t>(index.ncoarse), 0), flag1 = son, cpu_map = son;
  for (int c = 0; c < ncpu; ++c) {
    const auto& block = domain.blocks[0][static_cast<std::size_t>(c)];
    for (std::size_t o = 0; o * static_cast<std::size_t>(meta.ndim) < block.oct_coordinates.size(); ++o) {
      const std::int64_t* xyz = &block.oct_coordinates[o * static_cast<std::size_t>(meta.ndim)];
      const auto cell = static_cast<std::size_t>(index.coarse_index(xyz) - 1);
      son[cell] = static_cast<std::int32_t>(index.find(1, xyz));
      flag1[cell] = 1;
      cpu_map[cell] = c + 1;
    }
  }
  out.record(son, "son(1:ncoarse)");
  out.record(flag1, "flag1(1:ncoarse)");
  out.record(cpu_map, "cpu_map(1:ncoarse)");
}

// One (level, cpu) block's 3 + ndim + 1 + 2 ndim + 3 * 2^ndim records (ramses-format.md, Oct blocks).
void write_amr_block(FortranRecordWriter& out, const SnapshotMeta& meta, const FileIndex& index, int level, int cpu,
                     const SnapshotLevel& block, long long head) {
  const int ndim = meta.ndim;
  const std::size_t n = block.oct_coordinates.size() / static_cast<std::size_t>(ndim);
  std::vector<std::int32_t> ints(n);
  const auto coordinates = [&](std::size_t o) { return &block.oct_coordinates[o * static_cast<std::size_t>(ndim)]; };

  for (std::size_t o = 0; o < n; ++o) ints[o] = static_cast<std::int32_t>(head + static_cast<long long>(o));
  out.record(ints, "ind_grid");
  for (std::size_t o = 0; o < n; ++o)
    ints[o] = o + 1 < n ? static_cast<std::int32_t>(head + static_cast<long long>(o) + 1) : 0;
  out.record(ints, "next");
  for (std::size_t o = 0; o < n; ++o)
    ints[o] = o > 0 ? static_cast<std::int32_t>(head + static_cast<long long>(o) - 1) : 0;
  out.record(ints, "prev");
  // Oct centres in coarse-cell units: (i + 1/2) 2^-(level-1) (ramses-format.md, "xg").
  const double oct_size = std::ldexp(1.0, -(level - 1));
  std::vector<double> xg(n);
  for (int d = 0; d < ndim; ++d) {
    for (std::size_t o = 0; o < n; ++o) xg[o] = (static_cast<double>(coordinates(o)[d]) + 0.5) * oct_size;
    out.record(xg, "xg");
  }
  // Father: the cell of level-1 whose integer coordinates are this oct's (a coarse cell for level 1).
  for (std::size_t o = 0; o < n; ++o) ints[o] = static_cast<std::int32_t>(index.cell_index(level - 1, coordinates(o)));
  out.record(ints, "father");
  // nbor(1..2 ndim) = father's neighbours in -x, +x, -y, +y, -z, +z, periodic; 0 when not in this
  // file (readers ignore them: yt rebuilds the tree from xg, osyris and pynbody use son / flag1).
  for (int direction = 0; direction < 2 * ndim; ++direction) {
    const int axis = direction / 2;
    const std::int64_t extent = (std::int64_t{1} << (level - 1)) * index.coarse[static_cast<std::size_t>(axis)];
    for (std::size_t o = 0; o < n; ++o) {
      std::int64_t cell[3] = {0, 0, 0};
      std::copy(coordinates(o), coordinates(o) + ndim, cell);
      cell[axis] = (cell[axis] + (direction % 2 == 0 ? extent - 1 : 1)) % extent;
      ints[o] = static_cast<std::int32_t>(index.cell_index(level - 1, cell));
    }
    out.record(ints, "nbor");
  }
  // son: grid index of the child oct, 0 for leaves and for children this file does not hold
  // (possible only for ghost octs; an owned oct's children are always present).
  const int nchild = 1 << ndim;
  for (int child = 0; child < nchild; ++child) {
    for (std::size_t o = 0; o < n; ++o) {
      ints[o] = 0;
      if (!block.son_flags[o * static_cast<std::size_t>(nchild) + static_cast<std::size_t>(child)]) continue;
      std::int64_t child_oct[3] = {0, 0, 0};
      for (int d = 0; d < ndim; ++d) child_oct[d] = 2 * coordinates(o)[d] + ((child >> d) & 1);
      ints[o] = static_cast<std::int32_t>(index.find(level + 1, child_oct));
    }
    out.record(ints, "son");
  }
  std::fill(ints.begin(), ints.end(), cpu);
  for (int child = 0; child < nchild; ++child) out.record(ints, "cpu_map");
  for (int child = 0; child < nchild; ++child) {
    for (std::size_t o = 0; o < n; ++o)
      ints[o] = block.son_flags[o * static_cast<std::size_t>(nchild) + static_cast<std::size_t>(child)];
    out.record(ints, "flag1");
  }
}

// Every refined cell of an owned oct must have its child in the file (osyris reads refinement
// from son > 0), or the ghost exchange went wrong.
void check_owned_children(const fs::path& file, const SnapshotMeta& meta, const RamsesDomain& domain,
                          const FileIndex& index) {
  const int nchild = 1 << meta.ndim;
  for (int l = 1; l <= meta.levelmax; ++l) {
    const auto& block = domain.blocks[static_cast<std::size_t>(l - 1)][static_cast<std::size_t>(domain.cpu - 1)];
    for (std::size_t i = 0; i < block.son_flags.size(); ++i) {
      if (!block.son_flags[i]) continue;
      const std::int64_t* xyz =
          &block.oct_coordinates[(i / static_cast<std::size_t>(nchild)) * static_cast<std::size_t>(meta.ndim)];
      std::int64_t child_oct[3] = {0, 0, 0};
      for (int d = 0; d < meta.ndim; ++d)
        child_oct[d] = 2 * xyz[d] + ((static_cast<int>(i % static_cast<std::size_t>(nchild)) >> d) & 1);
      KOSMO_REQUIRE(l < meta.levelmax && index.find(l + 1, child_oct) != 0,
                    "RAMSES output: a refined cell of an owned level-" << l << " oct has no child oct in '"
                                                                       << file.string() << "'");
    }
  }
}

void write_hydro_file(const fs::path& path, const SnapshotMeta& meta, const RamsesDomain& domain, double gamma,
                      const std::vector<std::size_t>& columns) {
  AtomicFile file(path);
  FortranRecordWriter out(file);
  const int nchild = 1 << meta.ndim;
  out.ints({meta.ncpu}, "ncpu");
  out.ints({to_int32(static_cast<long long>(columns.size()), path, "nvar")}, "nvar");
  out.ints({meta.ndim}, "ndim");
  out.ints({meta.levelmax}, "nlevelmax");
  out.ints({0}, "nboundary");
  out.reals({gamma}, "gamma");
  std::vector<double> values;
  for (int l = 1; l <= meta.levelmax; ++l) {
    for (int c = 1; c <= meta.ncpu; ++c) {
      const auto& block = domain.blocks[static_cast<std::size_t>(l - 1)][static_cast<std::size_t>(c - 1)];
      const std::size_t n = block.oct_coordinates.size() / static_cast<std::size_t>(meta.ndim);
      out.ints({l}, "ilevel");  // both written even for empty blocks (ramses-format.md)
      out.ints({static_cast<std::int32_t>(n)}, "ncache");
      if (n == 0) continue;
      values.resize(n);
      for (int child = 0; child < nchild; ++child) {
        for (std::size_t column : columns) {
          const auto& field = block.fields[column];
          for (std::size_t o = 0; o < n; ++o)
            values[o] = field[o * static_cast<std::size_t>(nchild) + static_cast<std::size_t>(child)];
          out.record(values, "hydro variable");
        }
      }
    }
  }
  file.commit();
}

}  // namespace

void write_ramses_domain_files(const fs::path& directory, const SnapshotMeta& meta, const RamsesDomain& domain,
                               double gamma) {
  const std::string suffix = number5(meta.output_number) + ".out" + number5(domain.cpu);
  const fs::path amr_path = directory / ("amr_" + suffix);
  KOSMO_REQUIRE(meta.ndim >= 1 && meta.ndim <= 3 && meta.levelmax >= 1 && meta.ncpu >= 1,
                "RAMSES output: bad ndim/levelmax/ncpu for '" << amr_path.string() << "'");
  const FileIndex index = index_domain(amr_path, meta, domain);
  check_owned_children(amr_path, meta, domain, index);
  {
    AtomicFile file(amr_path);
    FortranRecordWriter out(file);
    write_amr_header(out, amr_path, meta, domain, index);
    for (int l = 1; l <= meta.levelmax; ++l)
      for (int c = 1; c <= meta.ncpu; ++c) {
        const auto& block = domain.blocks[static_cast<std::size_t>(l - 1)][static_cast<std::size_t>(c - 1)];
        if (!block.oct_coordinates.empty())
          write_amr_block(out, meta, index, l, c, block,
                          index.head[static_cast<std::size_t>(l - 1)][static_cast<std::size_t>(c - 1)]);
      }
    file.commit();
  }
  // RAMSES keeps the potential and the acceleration in grav_ files (poisson/output_poisson.f90) and
  // writes hydro_ files only for runs with gas.
  const RamsesFieldSplit split = split_ramses_fields(meta);
  if (!split.hydro.empty()) write_hydro_file(directory / ("hydro_" + suffix), meta, domain, gamma, split.hydro);
  if (!split.gravity.empty()) write_ramses_gravity_file(directory / ("grav_" + suffix), meta, domain.blocks, split.gravity);
}

}  // namespace kosmo::io
