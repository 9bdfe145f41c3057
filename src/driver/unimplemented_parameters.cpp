// The RAMSES and cuRAMSES keys and blocks kosmo recognises by name but does not implement yet, so that
// using one stops the run with "kosmo does not implement it yet" rather than "unknown parameter".
// They are kept in one list, not spread over the modules, because most belong to modules that do not
// exist yet (cooling, star formation, sinks, radiative transfer...) and the list shows the whole gap
// at a glance; a module that implements a key deletes its line here and declares the row in its own
// table (SchemaBuilder::build() rejects a key that is both, so the two cannot drift apart).
#include "driver/unimplemented_parameters.hpp"

#include "core/schema_builder.hpp"

namespace kosmo::driver {

void declare_unimplemented_parameters(core::SchemaBuilder& schema) {
  schema.declare_unimplemented_block("PHYSICS_PARAMS", "cooling, star formation, feedback (RAMSES classic)");
  schema.declare_unimplemented_block("SF_PARAMS", "star formation (newer RAMSES)");
  schema.declare_unimplemented_block("FEEDBACK_PARAMS", "stellar feedback (newer RAMSES)");
  schema.declare_unimplemented_block("SINK_PARAMS", "sink particles");
  schema.declare_unimplemented_block("CLUMPFIND_PARAMS", "clump finder");
  schema.declare_unimplemented_block("RT_PARAMS", "radiative transfer");
  schema.declare_unimplemented_block("MOVIE_PARAMS", "movie frames");
  schema.declare_unimplemented_block("LIGHTCONE_PARAMS", "light cones");

  schema.add_unimplemented("RUN_PARAMS", {"sink", "rt", "dump_pk", "gpu_hydro", "gpu_poisson", "gpu_fft", "gpu_sink",
                                          "gpu_auto_tune", "n_cuda_streams", "static", "debug"});
  schema.add_unimplemented("AMR_PARAMS", {"nsinkmax", "mem_weight_sink"});
  schema.add_unimplemented("INIT_PARAMS", {"multiple", "condinit_kind"});
  schema.add_unimplemented("HYDRO_PARAMS", {"riemann2d", "difmag", "strict_equilibrium"});
  schema.add_unimplemented("REFINE_PARAMS",
                           {"jeans_refine", "q_refine_holdback", "ivar_refine", "var_cut_refine", "mass_cut_refine"});
  schema.add_unimplemented("BOUNDARY_PARAMS", {"no_inflow", "var_bound"});
  schema.add_unimplemented("OUTPUT_PARAMS", {"varcpu_chunk_nfile", "output_mode"});
  // Well-known keys of the unimplemented blocks, so a misplaced key can be sent to its block.
  schema.add_unimplemented("POISSON_PARAMS", {"cg_levelmin", "cic_levelmax"});
  schema.add_unimplemented(
      "PHYSICS_PARAMS",
      {"t_star", "n_star", "eps_star", "g_star", "del_star", "t2_star", "eta_sn", "yield", "f_w", "f_ek", "rbubble",
       "cooling_method", "grackle_table"});
  // &COOLING_PARAMS is the hydro module's block (its barotropic equations of state); cooling is not.
  schema.add_unimplemented("COOLING_PARAMS", {"cooling", "metal", "haardt_madau", "j21", "a_spec", "self_shielding",
                                              "z_ave", "z_reion", "ind_rsink", "t2max", "neq_chem", "cooling_ism"});
  schema.add_unimplemented("SINK_PARAMS", {"create_sinks", "mass_sink_seed", "accretion_scheme", "merging_timescale",
                                           "ir_cloud", "sink_soft"});
  schema.add_unimplemented("CLUMPFIND_PARAMS",
                           {"relevance_threshold", "density_threshold", "saddle_threshold", "mass_threshold"});
  schema.add_unimplemented("RT_PARAMS",
                           {"rt_flux_scheme", "rt_c_fraction", "rt_otsa", "rt_smooth", "rt_courant_factor"});
  schema.add_unimplemented("MOVIE_PARAMS", {"movie", "imovout", "imov", "tendmov", "aendmov", "nw_frame", "nh_frame"});
  schema.add_unimplemented("LIGHTCONE_PARAMS", {"thetay_cone", "thetaz_cone", "zmax_cone"});
}

}  // namespace kosmo::driver
