// RAMSES names and defaults (amr/amr_parameters.f90) unless the description says "kosmo"; cuRAMSES
// keys: seeds/000 Appendix F.
#include "parallel/parallel_parameters.hpp"

#include "core/schema_builder.hpp"

namespace kosmo::parallel {

// The table is laid out by hand, one key per row.
// clang-format off
void declare_parameters(core::SchemaBuilder& schema) {
  using namespace core::parameter_rows;
  schema.add({
      logical_key("RUN_PARAMS", "memory_balance", true,
                  "load balance on the memory cost of seeds/000 eq. 5 (w_grid per oct); .false. balances cell counts "
                  "(RAMSES' classic cost). Without particles or sinks the two place the same walls"),
      integer_key("RUN_PARAMS", "nremap", 0, at_least(0),
                  "load balance every nremap coarse steps (0 = only once, after the initial mesh); octs migrate "
                  "to the owners of the new k-section walls"),
      string_key("RUN_PARAMS", "ordering", "ksection", {"ksection", "hilbert"},
                 "domain decomposition: 'ksection' (seeds/000 §2, recursive k-section tree) or 'hilbert' (RAMSES' "
                 "Hilbert-curve key ranges of equal cost), kept so the two can be compared"),
      string_key("RUN_PARAMS", "mesh_update", "incremental", {"incremental", "redistribute"},
                 "kosmo: how ranks follow a regrid (seeds/000 §3): 'incremental' updates each tree locally and "
                 "sends only the new octs and those whose cells lost their sons, to the ranks that keep them "
                 "(unchanged ghosts do not travel); 'redistribute' sends every oct to its owner and ghost holders "
                 "and rebuilds every tree, the reference path. Both give the same results; load balance (nremap) "
                 "and restarts always redistribute"),
      string_key("RUN_PARAMS", "exchange_method", "auto", {"auto", "p2p", "ksection", "alltoall"},
                 "ghost-exchange transport (seeds/000 §3.1): 'auto' tunes each exchange component between p2p and "
                 "ksection in rounds (medians of 8 timed calls per backend, switch when > 20 % faster, calls "
                 "under 64 KiB left to p2p, rounds every 256 to 16384 calls) and logs a summary with each "
                 "output; 'p2p' Isend/Irecv with the known partners, 'ksection' hierarchical routing "
                 "through the k-section tree, 'alltoall' MPI_Alltoallv force one backend"),
  });

  // The load-balance cost weights (seeds/000 eqs. 4-6), between the mesh's level keys and its box.
  schema.add_after("nexpand", {
      real_key("AMR_PARAMS", "mem_weight_grid", 0.0, at_least(0),
               "load-balance cost of one oct in bytes (seeds/000 eq. 5); 0 = automatic from the number of variables"),
      real_key("AMR_PARAMS", "mem_weight_part", 12.0, at_least(0),
               "load-balance cost of one particle in bytes (seeds/000 eq. 4), with memory_balance; with "
               "memory_balance=.false. a particle costs 1/80 of an oct, as RAMSES' 80 + n_part per grid"),
      real_key("AMR_PARAMS", "time_balance_alpha", 0.0, between(0, 1),
               "blend of measured work into the load-balance cost (seeds/000 eqs. 6, 12): each level's oct cost is "
               "multiplied by 1 + alpha (seconds per cell on this rank / average - 1), clamped to [0.5, 2]; 0 = memory only"),
  });
}
// clang-format on

}  // namespace kosmo::parallel
