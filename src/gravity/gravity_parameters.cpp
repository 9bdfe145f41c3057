// RAMSES names and defaults (poisson/poisson_parameters.f90, poisson/read_poisson_params.f90) unless
// the description says "kosmo"; cuRAMSES keys: seeds/000 Appendix F.
#include "gravity/gravity_parameters.hpp"

#include "core/schema_builder.hpp"

namespace kosmo::gravity {

// The table is laid out by hand, one key per row.
// clang-format off
void declare_parameters(core::SchemaBuilder& schema) {
  using namespace core::parameter_rows;
  // The base-level solver, next to the poisson switch it refines.
  schema.add_after("poisson", {
      logical_key("RUN_PARAMS", "use_fftw", true,
                  "cuRAMSES (seeds/000 §5.2): solve the fully refined base level (levelmin) by FFTW in one shot instead "
                  "of by multigrid V-cycles; periodic boxes by FFT, non-periodic ones by the zero-padded isolated FFT. "
                  ".false. keeps RAMSES' multigrid at the base level (the reference path)"),
  });

  schema.declare_block("POISSON_PARAMS", "Gravity (used when poisson=.true. in &RUN_PARAMS): self-gravity with G = 1 in code units, "
                                         "or an analytic field.");
  schema.add({
      // &POISSON_PARAMS (poisson/poisson_parameters.f90, read_poisson_params.f90)
      integer_key("POISSON_PARAMS", "gravity_type", 0, between(-3, 3),
                  "0: self-gravity; 1: constant acceleration gravity_params(1:ndim); 2: point mass, gravity_params = "
                  "(GM, softening, x, y, z); 3: vertical disc field along the last axis about boxlen/2, gravity_params = "
                  "(a1 [kpc/Myr^2], a2 [1/Myr^2], z0 [pc]) (docs/gravity.md); negative: self-gravity plus the analytic "
                  "field of -gravity_type; a patch's gravana replaces the built-in field (docs/patches.md)"),
      real_array_key("POISSON_PARAMS", "gravity_params", 10, 0.0, any_value(), "parameters of the analytic field (gravity_type)"),
      real_key("POISSON_PARAMS", "epsilon", 1e-4, above_up_to(0, 1),
               "multigrid convergence: stop when the residual norm falls below epsilon times the initial one "
               "(RAMSES multigrid_fine)"),
      logical_key("POISSON_PARAMS", "mg_merged_rb", false,
                  "cuRAMSES (seeds/000 §5.1.1, App. D.2): red and black Gauss-Seidel half sweeps without a ghost "
                  "exchange between them (2 exchanges fewer per V-cycle and level, but the potential then depends "
                  "on the rank count); the default .false. is RAMSES' sequence, whose results are the same bits on "
                  "any rank count"),
      logical_key("POISSON_PARAMS", "mg_halo_rb", true,
                  "kosmo (docs/parallel.md, multigrid exchanges): each rank also relaxes the red cells of the ghosts "
                  "its cells read, so red and black Gauss-Seidel half sweeps need one ghost exchange instead of two; "
                  "the same bits as .false. (RAMSES' exchange after each colour) on any rank count"),
      logical_key("POISSON_PARAMS", "mg_fused_norm", true,
                  "cuRAMSES (seeds/000 §5.1.1): residual and its norm in one loop, norm reductions batched"),
      integer_key("POISSON_PARAMS", "fft_slab_threshold", 16777216, at_least(1),
                  "kosmo (seeds/000 §5.2.1): base levels of at most this many cells are gathered to every rank and "
                  "solved locally; larger ones by FFTW-MPI slabs"),
  });
}
// clang-format on

}  // namespace kosmo::gravity
