#include "driver/patch_library.hpp"

#include <dlfcn.h>

#include <cstring>
#include <ostream>

#include "core/error.hpp"
#include "driver/patch_build.hpp"
#include "parallel/collective_check.hpp"

namespace kosmo::driver {
namespace {

namespace fs = std::filesystem;

const core::ParameterSet& run_parameters(const kosmo_patch_context* context) {
  return *static_cast<const core::ParameterSet*>(context->run);
}

// The element `index` (1-based) of a key, read by the typed getter of the key's kind; false for a
// key kosmo does not know (or an index beyond the array), so the patch falls back on its default.
template <class Scalar, class Array>
bool look_up(const kosmo_patch_context* context, const char* block, const char* key, int index, Scalar scalar, Array array,
             auto& value) {
  if (!context || !block || !key || index < 1) return false;
  const core::ParameterSet& params = run_parameters(context);
  try {
    if (index == 1) {
      try {
        value = (params.*scalar)(block, key);
        return true;
      } catch (const Error&) {
        // An array key: read its first element below.
      }
    }
    const auto values = (params.*array)(block, key);
    if (static_cast<std::size_t>(index) > values.size()) return false;
    value = values[static_cast<std::size_t>(index) - 1];
    return true;
  } catch (const Error&) {
    return false;
  }
}

int get_real(const kosmo_patch_context* context, const char* block, const char* key, int index, double* value) {
  double found = 0.0;
  if (!value || !look_up(context, block, key, index, &core::ParameterSet::get_real, &core::ParameterSet::get_real_array, found))
    return 0;
  *value = found;
  return 1;
}

int get_int(const kosmo_patch_context* context, const char* block, const char* key, int index, long long* value) {
  long long found = 0;
  if (!value || !look_up(context, block, key, index, &core::ParameterSet::get_int, &core::ParameterSet::get_int_array, found))
    return 0;
  *value = found;
  return 1;
}

int get_bool(const kosmo_patch_context* context, const char* block, const char* key, int index, int* value) {
  if (!value || !context || !block || !key || index != 1) return 0;
  try {
    *value = run_parameters(context).get_bool(block, key) ? 1 : 0;
    return 1;
  } catch (const Error&) {
    return 0;
  }
}

int get_string(const kosmo_patch_context* context, const char* block, const char* key, int index, char* buffer, unsigned long size) {
  std::string found;
  if (!buffer || size == 0 ||
      !look_up(context, block, key, index, &core::ParameterSet::get_string, &core::ParameterSet::get_string_array, found))
    return 0;
  const std::size_t length = std::min<std::size_t>(found.size(), size - 1);
  std::memcpy(buffer, found.data(), length);
  buffer[length] = '\0';
  return 1;
}

template <class Function>
Function symbol(void* handle, const char* name) {
  return reinterpret_cast<Function>(dlsym(handle, name));
}

}  // namespace

PatchLibrary::PatchLibrary(const fs::path& library, const std::string& directory, const core::ParameterSet& params)
    : directory_(directory) {
  handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  KOSMO_REQUIRE(handle_, "patch " << directory << ": cannot load " << library.string() << ": " << dlerror());
  condinit_ = symbol<Condinit>(handle_, "kosmo_patch_condinit");
  gravana_ = symbol<Gravana>(handle_, "kosmo_patch_gravana");
  particle_count_ = symbol<ParticleCount>(handle_, "kosmo_patch_particle_count");
  particles_ = symbol<Particles>(handle_, "kosmo_patch_particles");
  // RAMSES' boundana has no hook yet: a patch that defines one would silently not be called.
  KOSMO_REQUIRE(!dlsym(handle_, "kosmo_patch_boundana"),
                "patch " << directory << ": kosmo_patch_boundana (RAMSES boundana) is not implemented yet; inflow boundaries "
                            "take &BOUNDARY_PARAMS d_bound..p_bound (docs/patches.md)");
  KOSMO_REQUIRE((particle_count_ == nullptr) == (particles_ == nullptr),
                "patch " << directory << ": define both kosmo_patch_particle_count and kosmo_patch_particles, or neither");
  KOSMO_REQUIRE(condinit_ || gravana_ || particles_,
                "patch " << directory << ": defines no hook of kosmo/patch.hpp (kosmo_patch_condinit, kosmo_patch_gravana, "
                            "kosmo_patch_particle_count + kosmo_patch_particles); were they declared extern \"C\"?");

  const long long ndim = params.get_int("RUN_PARAMS", "ndim");
  const long long npassive = params.get_int("HYDRO_PARAMS", "npassive");
  context_.abi_version = KOSMO_PATCH_ABI_VERSION;
  context_.ndim = static_cast<int>(ndim);
  context_.npassive = static_cast<int>(npassive);
  context_.nvar = static_cast<int>(ndim + 2 + npassive);
  context_.boxlen = params.get_real("AMR_PARAMS", "boxlen");
  context_.gamma = params.get_real("HYDRO_PARAMS", "gamma");
  context_.units_length = params.get_real("UNITS_PARAMS", "units_length");
  context_.units_time = params.get_real("UNITS_PARAMS", "units_time");
  context_.units_density = params.get_real("UNITS_PARAMS", "units_density");
  context_.run = &params;
  context_.get_real = &get_real;
  context_.get_int = &get_int;
  context_.get_bool = &get_bool;
  context_.get_string = &get_string;
}

PatchLibrary::~PatchLibrary() {
  if (handle_) dlclose(handle_);
}

std::string PatchLibrary::hook_names() const {
  std::string names;
  auto add = [&names](bool present, const char* name) {
    if (present) names += (names.empty() ? "" : ", ") + std::string(name);
  };
  add(condinit_, "condinit");
  add(gravana_, "gravana");
  add(particles_, "particles");
  return names;
}

std::string patch_directory(const core::ParameterSet& params) {
  const std::string value = params.get_string("RUN_PARAMS", "patch");
  if (value.empty()) return value;
  fs::path directory(value);
  // The namelist's value is relative to the namelist's directory (a run directory can be copied
  // with its patch); the command line's --patch is made absolute from the working directory when read.
  if (directory.is_relative() && params.from_file("RUN_PARAMS", "patch") && fs::exists(params.source()))
    directory = fs::path(params.source()).parent_path() / directory;
  std::string resolved = fs::absolute(directory).lexically_normal().string();
  if (resolved.size() > 1 && resolved.back() == '/') resolved.pop_back();  // "dir/." normalises to "dir/"
  return resolved;
}

std::unique_ptr<PatchLibrary> load_patch(const core::ParameterSet& params, MPI_Comm comm, std::ostream& log) {
  const std::string directory = patch_directory(params);
  if (directory.empty()) return nullptr;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  PatchBuildResult built;
  parallel::run_collectively(comm, [&] {
    if (rank == 0) built = build_patch(directory, patch_cache_root());
  });
  std::string library = built.library.string();
  int length = static_cast<int>(library.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  library.resize(static_cast<std::size_t>(length));
  MPI_Bcast(library.data(), length, MPI_CHAR, 0, comm);
  std::unique_ptr<PatchLibrary> patch;
  parallel::run_collectively(comm, [&] { patch = std::make_unique<PatchLibrary>(library, directory, params); });
  if (rank == 0) {
    log << " Patch " << directory << ": " << (built.rebuilt ? "built" : "unchanged, cached") << " (" << library << ")";
    if (built.rebuilt) log << " in " << built.seconds << " s";
    log << "; hooks: " << patch->hook_names() << "\n";
  }
  return patch;
}

}  // namespace kosmo::driver
