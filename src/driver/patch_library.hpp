#pragma once
// A loaded user patch (docs/patches.md): the shared library built from the patch directory
// (driver/patch_build.hpp), its hooks (include/kosmo/patch.hpp) and the context they read, which
// answers namelist look-ups from the run's parameters.
#include <mpi.h>

#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>

#include "core/parameters.hpp"
#include "kosmo/patch.hpp"

namespace kosmo::driver {

class PatchLibrary {
 public:
  using Condinit = decltype(&kosmo_patch_condinit);
  using Gravana = decltype(&kosmo_patch_gravana);
  using ParticleCount = decltype(&kosmo_patch_particle_count);
  using Particles = decltype(&kosmo_patch_particles);

  // dlopen()s `library` and looks its hooks up; `params` must outlive the object. Throws
  // kosmo::Error when the library cannot be loaded or defines a hook kosmo does not call.
  PatchLibrary(const std::filesystem::path& library, const std::string& directory, const core::ParameterSet& params);
  ~PatchLibrary();
  PatchLibrary(const PatchLibrary&) = delete;
  PatchLibrary& operator=(const PatchLibrary&) = delete;

  const std::string& directory() const { return directory_; }
  const kosmo_patch_context& context() const { return context_; }
  // The hooks the patch defines; nullptr for the others.
  Condinit condinit() const { return condinit_; }
  Gravana gravana() const { return gravana_; }
  // Both particle hooks or neither (the constructor checks).
  ParticleCount particle_count() const { return particle_count_; }
  Particles particles() const { return particles_; }
  // "condinit, gravana": the hooks found, for the log.
  std::string hook_names() const;

 private:
  std::string directory_;
  void* handle_ = nullptr;
  kosmo_patch_context context_{};
  Condinit condinit_ = nullptr;
  Gravana gravana_ = nullptr;
  ParticleCount particle_count_ = nullptr;
  Particles particles_ = nullptr;
};

// The patch directory of the run: &RUN_PARAMS patch (the command line's --patch sets it), resolved
// as docs/patches.md says; empty when the run has no patch.
std::string patch_directory(const core::ParameterSet& params);

// Builds the run's patch on rank 0 of `comm` (the others wait) and loads it on every rank; nullptr
// without a patch. A compile error stops every rank with the compiler's messages before the run
// writes anything (kosmo::CollectiveError). Collective.
std::unique_ptr<PatchLibrary> load_patch(const core::ParameterSet& params, MPI_Comm comm, std::ostream& log);

}  // namespace kosmo::driver
