// Every RAMSES namelist key and block that kosmo does not implement, by the feature it serves, and
// the RAMSES keys that have no effect on kosmo's results (accepted and ignored). Together with the
// modules' own tables this covers every key of RAMSES' readers (amr/read_params.f90,
// hydro/read_hydro_params.f90, pm/sink_particle.f90, pm/read_sink_feedback_params.f90,
// pm/clump_finder.f90, pm/unbinding.f90, pm/merger_tree.f90, rt/rt_init.f90, aton/rad_init.f90,
// turb/read_turb_params.f90), so a RAMSES namelist meets "not implemented yet: FEATURE" or
// "ignored", never "unknown parameter" (docs/namelist.md). Kept in one list, not spread over the
// modules, because most belong to modules that do not exist yet and the list shows the whole gap
// at a glance; a module that implements a key deletes its line here and declares the row in its
// own table (SchemaBuilder::build() rejects a key that is both, so the two cannot drift apart).
#include "driver/unimplemented_parameters.hpp"

#include <utility>

#include "core/schema_builder.hpp"

namespace kosmo::driver {
namespace {

// Feature names, as the "not implemented yet" lines print them.
constexpr const char* kSinks = "sink particles";  // the options beyond accretion and merging
constexpr const char* kFluxAccretion = "flux accretion onto sinks";
constexpr const char* kRadiativeTransfer = "radiative transfer (RAMSES-RT)";
constexpr const char* kAton = "radiative transfer on GPUs (ATON)";
constexpr const char* kStellar = "stellar objects";
constexpr const char* kClumps = "clump finder";
constexpr const char* kUnbinding = "clump unbinding";
constexpr const char* kMergerTrees = "merger trees";
constexpr const char* kLightCones = "light cones";
constexpr const char* kMovies = "movie frames";
constexpr const char* kTurbulence = "turbulence driving";
constexpr const char* kGrackle = "Grackle cooling";
constexpr const char* kStarFormation = "star formation and supernova feedback";
constexpr const char* kChemistry = "non-equilibrium chemistry";
constexpr const char* kMhd = "MHD";
constexpr const char* kNonThermal = "non-thermal energies (radiation pressure)";
constexpr const char* kPassiveScalars = "passive scalars per region";
constexpr const char* kScalarRefinement = "refinement on a passive scalar";
constexpr const char* kDiffusion = "artificial diffusion (difmag)";
constexpr const char* kStrictEquilibrium = "strict hydrostatic equilibrium";
constexpr const char* kMassCutRefinement = "refinement on particle mass (mass_cut_refine)";
constexpr const char* kMultipleFiles = "initial conditions split in one file per rank (multiple)";
constexpr const char* kGadget = "Gadget-format outputs";
constexpr const char* kCollapse = "levels following the dark matter collapse (nlevel_collapse)";
constexpr const char* kCicLevel = "particle deposit capped at a level (cic_levelmax)";
constexpr const char* kStaticRuns = "static (frozen) gas or particles";
constexpr const char* kScalarRemap = "passive-scalar remapping at restart";
constexpr const char* kRetiredPhysics = "the retired &PHYSICS_PARAMS (split into &COOLING_PARAMS, &SF_PARAMS, "
                                        "&FEEDBACK_PARAMS, &UNITS_PARAMS)";
constexpr const char* kPlmde = "the PLMDE hydro scheme";
constexpr const char* kAcoustic = "the acoustic Riemann solver";
constexpr const char* kPowerSpectrum = "power spectrum dumps (cuRAMSES)";
constexpr const char* kCuramsesInitialConditions = "cuRAMSES initial-condition kinds";
constexpr const char* kHoldback = "refinement hold-back (cuRAMSES)";
constexpr const char* kCuramsesOutputs = "cuRAMSES output layouts";

void declare_features(core::SchemaBuilder& schema) {
  schema.declare_feature(kSinks);
  schema.declare_feature(kRadiativeTransfer, "RUN_PARAMS", "rt");
  schema.declare_feature(kAton, "RUN_PARAMS", "aton");
  schema.declare_feature(kStellar, "RUN_PARAMS", "stellar");
  schema.declare_feature(kClumps, "RUN_PARAMS", "clumpfind");
  schema.declare_feature(kUnbinding, "RUN_PARAMS", "unbind");
  schema.declare_feature(kMergerTrees, "RUN_PARAMS", "make_mergertree");
  schema.declare_feature(kLightCones, "RUN_PARAMS", "lightcone");
  schema.declare_feature(kMovies, "MOVIE_PARAMS", "movie");
  schema.declare_feature(kTurbulence, "TURB_PARAMS", "turb");
  schema.declare_feature(kGrackle, "GRACKLE_PARAMS", "use_grackle");
  schema.declare_feature(kStarFormation);
  for (const char* feature :
       {kFluxAccretion, kChemistry, kMhd, kNonThermal, kPassiveScalars, kScalarRefinement,
        kDiffusion, kStrictEquilibrium, kMassCutRefinement, kMultipleFiles, kGadget,
        kCollapse, kCicLevel, kStaticRuns, kScalarRemap, kRetiredPhysics, kPowerSpectrum, kCuramsesInitialConditions,
        kHoldback, kCuramsesOutputs, kPlmde, kAcoustic})
    schema.declare_feature(feature);
}

void declare_blocks(core::SchemaBuilder& schema) {
  schema.declare_unimplemented_block("PHYSICS_PARAMS", "retired by RAMSES, which stops when it finds it",
                                     kRetiredPhysics);
  schema.declare_unimplemented_block("STELLAR_PARAMS", "stellar objects born in sinks", kStellar);
  schema.declare_unimplemented_block("CLUMPFIND_PARAMS", "clump finder", kClumps);
  schema.declare_unimplemented_block("UNBINDING_PARAMS", "unbinding of clump particles", kUnbinding);
  schema.declare_unimplemented_block("MERGERTREE_PARAMS", "merger trees", kMergerTrees);
  schema.declare_unimplemented_block("RT_PARAMS", "radiative transfer", kRadiativeTransfer);
  schema.declare_unimplemented_block("RT_GROUPS", "photon groups of radiative transfer", kRadiativeTransfer);
  schema.declare_unimplemented_block("RADIATION_PARAMS", "ATON radiative transfer", kAton);
  schema.declare_unimplemented_block("MOVIE_PARAMS", "movie frames", kMovies);
  schema.declare_unimplemented_block("LIGHTCONE_PARAMS", "light cones", kLightCones);
  schema.declare_unimplemented_block("TURB_PARAMS", "turbulence driving", kTurbulence);
  schema.declare_unimplemented_block("GRACKLE_PARAMS", "Grackle cooling library", kGrackle);
}

void declare_keys_of_implemented_blocks(core::SchemaBuilder& schema) {
  // The feature switches of &RUN_PARAMS: off (RAMSES' default) is never an obstacle.
  const std::pair<const char*, const char*> switches[] = {
      {"rt", kRadiativeTransfer}, {"aton", kAton},
      {"stellar", kStellar},      {"clumpfind", kClumps},
      {"unbind", kUnbinding},     {"make_mergertree", kMergerTrees}, {"lightcone", kLightCones}};
  for (const auto& [name, feature] : switches) schema.add_unimplemented_inert_at("RUN_PARAMS", feature, name, false);
  for (const char* name : {"static", "static_dm", "static_gas", "static_stars"})
    schema.add_unimplemented_inert_at("RUN_PARAMS", kStaticRuns, name, false);
  schema.add_unimplemented("RUN_PARAMS", kScalarRemap, {"remap_pscalar"});
  schema.add_unimplemented_inert_at("RUN_PARAMS", kPowerSpectrum, "dump_pk", false);
  schema.add_unimplemented("AMR_PARAMS", kSinks, {"mem_weight_sink"});
  schema.add_unimplemented_inert_at("AMR_PARAMS", kCollapse, "nlevel_collapse", 3LL);
  schema.add_unimplemented_inert_at("INIT_PARAMS", kMultipleFiles, "multiple", false);
  schema.add_unimplemented("INIT_PARAMS", kMhd, {"a_region", "b_region", "c_region", "b_ave"});
  schema.add_unimplemented("INIT_PARAMS", kNonThermal, {"prad_region"});
  schema.add_unimplemented("INIT_PARAMS", kCuramsesInitialConditions, {"condinit_kind"});
  schema.add_unimplemented_inert_at("HYDRO_PARAMS", kDiffusion, "difmag", 0.0);
  schema.add_unimplemented_inert_at("HYDRO_PARAMS", kStrictEquilibrium, "strict_equilibrium", 0LL);
  schema.add_unimplemented("HYDRO_PARAMS", kNonThermal, {"gamma_rad"});
  schema.add_unimplemented("HYDRO_PARAMS", kMhd,
                           {"riemann2d", "slope_mag_type", "eta_mag", "allow_switch_solver", "allow_switch_solver2d",
                            "switch_solv_b", "switch_solv_dens", "switch_solv_min_dens"});
  schema.add_unimplemented_inert_at("REFINE_PARAMS", kMassCutRefinement, "mass_cut_refine", -1.0);
  schema.add_unimplemented_inert_at("REFINE_PARAMS", kScalarRefinement, "ivar_refine", -1LL);
  schema.add_unimplemented_inert_at("REFINE_PARAMS", kScalarRefinement, "var_cut_refine", -1.0);
  schema.add_unimplemented("REFINE_PARAMS", kMhd,
                           {"err_grad_a", "err_grad_b", "err_grad_c", "err_grad_b2", "floor_a", "floor_b", "floor_c",
                            "floor_b2", "interpol_mag_type"});
  schema.add_unimplemented("REFINE_PARAMS", kHoldback, {"q_refine_holdback"});
  schema.add_unimplemented("BOUNDARY_PARAMS", kPassiveScalars, {"var_bound"});
  schema.add_unimplemented("BOUNDARY_PARAMS", kNonThermal, {"prad_bound"});
  schema.add_unimplemented("BOUNDARY_PARAMS", kMhd, {"a_bound", "b_bound", "c_bound"});
  schema.add_unimplemented_inert_at("OUTPUT_PARAMS", kGadget, "gadget_output", false);
  schema.add_unimplemented("OUTPUT_PARAMS", kCuramsesOutputs, {"varcpu_chunk_nfile", "output_mode"});
  schema.add_unimplemented_inert_at("POISSON_PARAMS", kCicLevel, "cic_levelmax", 0LL);
}

// RAMSES values of implemented keys that select a feature kosmo does not have.
void declare_unimplemented_values(core::SchemaBuilder& schema) {
  schema.add_unimplemented_value("HYDRO_PARAMS", "scheme", std::string("plmde"), kPlmde);
  schema.add_unimplemented_value("HYDRO_PARAMS", "riemann", std::string("acoustic"), kAcoustic);
  for (const char* mhd_solver : {"roe", "hlld", "upwind", "hydro"})
    schema.add_unimplemented_value("HYDRO_PARAMS", "riemann", std::string(mhd_solver), kMhd);
  schema.add_unimplemented_value("HYDRO_PARAMS", "scheme", std::string("induction"), kMhd);
  schema.add_unimplemented_value("SINK_PARAMS", "accretion_scheme", std::string("flux"), kFluxAccretion);
}

void declare_keys_of_unimplemented_blocks(core::SchemaBuilder& schema) {
  schema.add_unimplemented("PHYSICS_PARAMS", kRetiredPhysics, {"dummy"});
  // RAMSES reads the sinks' accretion radius in cells from &COOLING_PARAMS.
  schema.add_unimplemented("COOLING_PARAMS", kSinks, {"ind_rsink"});
  schema.add_unimplemented_inert_at("COOLING_PARAMS", kChemistry, "neq_chem", false);
  schema.add_unimplemented("SF_PARAMS", kStarFormation,
                           {"jeans_ncells", "sf_virial", "sf_trelax", "sf_tdiss", "sf_model", "sf_log_properties",
                            "sf_imf", "sf_compressive"});
  schema.add_unimplemented("FEEDBACK_PARAMS", kStarFormation,
                           {"eta_ssn", "ndebris", "f_esn", "mass_gmc", "kappa_ir",
                            "momentum_feedback", "ir_feedback", "ir_eff", "mass_star_max", "mass_sne_min"});
  schema.add_unimplemented(
      "SINK_PARAMS", kSinks,
      {"ir_cloud_massive", "sink_soft", "mass_sink_direct_force", "check_energies",
       "mass_smbh_seed", "nlevelmax_sink", "acc_sink_boost", "mass_merger_vel_check",
       "clump_core", "verbose_agn", "mass_halo_agn", "mass_clump_agn",
       "mass_star_agn", "boost_threshold_density", "smbh",
       "max_mass_nsc", "agn_acc_method", "sink_descent", "gamma_grad_descent", "fudge_graddescent"});
  schema.add_unimplemented("STELLAR_PARAMS", kStellar,
                           {"nstellarmax", "stellar_msink_th", "sn_direct", "imf_index", "imf_low", "imf_high",
                            "lt_t0", "lt_m0", "lt_a", "lt_b", "hii_t", "feedback_photon_group", "sn_feedback_sink",
                            "stellar_strategy", "iseed", "mstellarini", "tsat", "vsat", "sn_r_sat", "sn_p_ref",
                            "sn_e_ref", "vdisp", "stellar_info"});
  schema.add_unimplemented("CLUMPFIND_PARAMS", kClumps,
                           {"ivar_clump", "relevance_threshold", "density_threshold", "saddle_threshold",
                            "mass_threshold", "clinfo", "n_clfind", "rho_clfind", "age_cut_clfind",
                            "output_clump_field"});
  schema.add_unimplemented("UNBINDING_PARAMS", kUnbinding,
                           {"nmassbins", "logbins", "particlebased_clump_output", "saddle_pot", "iter_properties",
                            "conv_limit", "repeat_max"});
  schema.add_unimplemented("MERGERTREE_PARAMS", kMergerTrees,
                           {"nmost_bound", "max_past_snapshots", "use_exclusive_mass", "make_mock_galaxies"});
  schema.add_unimplemented(
      "RT_PARAMS", kRadiativeTransfer,
      {"rt_star", "rt_esc_frac", "rt_flux_scheme", "rt_smooth", "rt_is_outflow_bound", "rt_tconst",
       "rt_courant_factor", "rt_c_fraction", "rt_nsubcycle", "rt_otsa", "sedprops_update", "sed_dir", "uv_file",
       "rt_uvsrc_nhmax", "nuvgroups", "nsedgroups", "sed_isegy", "rt_output_coolstats", "hll_evals_file",
       "upload_equilibrium_x", "x", "y", "rt_is_init_xion", "rt_err_grad_n", "rt_floor_n", "rt_err_grad_xhii",
       "rt_floor_xhii", "rt_err_grad_xhi", "rt_floor_xhi", "rt_refine_aexp", "is_mu_h2", "ishe", "ish2", "rt_isir",
       "is_kir_t", "rt_t_rad", "rt_vc", "rt_pressboost", "rt_isopress", "rt_isirtrap", "ipeh_group",
       "heat_unresolved_hii", "cosmic_rays", "rt_nregion", "rt_region_type", "rt_reg_x_center", "rt_reg_y_center",
       "rt_reg_z_center", "rt_reg_length_x", "rt_reg_length_y", "rt_reg_length_z", "rt_exp_region", "rt_reg_group",
       "rt_n_region", "rt_u_region", "rt_v_region", "rt_w_region", "rt_nsource", "rt_source_type", "rt_src_x_center",
       "rt_src_y_center", "rt_src_z_center", "rt_src_length_x", "rt_src_length_y", "rt_src_length_z",
       "rt_exp_source", "rt_src_group", "rt_n_source", "rt_u_source", "rt_v_source", "rt_w_source", "rt_n_bound",
       "rt_u_bound", "rt_v_bound", "rt_w_bound", "rt_agn", "rt_sink"});
  schema.add_unimplemented("RT_GROUPS", kRadiativeTransfer,
                           {"group_csn", "group_cse", "group_egy", "spec2group", "groupl0", "groupl1", "kappaabs",
                            "kappasc", "group_egy_agnfrac"});
  schema.add_unimplemented("RADIATION_PARAMS", kAton,
                           {"allow_gpu_overload", "radiation_feedback", "rad_max_time_step", "rad_light_speed_factor",
                            "rad_num_sources", "rad_source_x", "rad_source_y", "rad_source_z", "rad_source_rate",
                            "rad_flux_x", "rad_flux_y", "rad_flux_z", "rad_density", "rad_flux_at_x_min_boundary",
                            "rad_boundary_condition", "rad_escape_fraction", "rad_aton_version"});
  schema.add_unimplemented_inert_at("MOVIE_PARAMS", kMovies, "movie", false);
  schema.add_unimplemented(
      "MOVIE_PARAMS", kMovies,
      {"levelmax_frame", "nw_frame", "nh_frame", "ivar_frame", "xcentre_frame", "ycentre_frame", "zcentre_frame",
       "deltax_frame", "deltay_frame", "deltaz_frame", "zoom_only_frame", "imovout", "imov", "tstartmov",
       "astartmov", "tendmov", "aendmov", "proj_axis", "movie_vars_txt", "theta_camera", "phi_camera",
       "dtheta_camera", "dphi_camera", "focal_camera", "dist_camera", "ddist_camera", "perspective_camera",
       "smooth_frame", "shader_frame", "tstart_theta_camera", "tstart_phi_camera", "tend_theta_camera",
       "tend_phi_camera", "method_frame", "varmin_frame", "varmax_frame"});
  schema.add_unimplemented("LIGHTCONE_PARAMS", kLightCones, {"thetay_cone", "thetaz_cone", "zmax_cone"});
  schema.add_unimplemented_inert_at("TURB_PARAMS", kTurbulence, "turb", false);
  schema.add_unimplemented("TURB_PARAMS", kTurbulence,
                           {"turb_seed", "turb_type", "instant_turb", "comp_frac", "forcing_power_spectrum", "turb_t",
                            "turb_ndt", "turb_rms", "turb_min_rho"});
  schema.add_unimplemented_inert_at("GRACKLE_PARAMS", kGrackle, "use_grackle", false);
}

// Keys whose value cannot change a kosmo result: what they tune does not exist in kosmo or does
// not reach the solution (logs, load balancing, memory sizes; kosmo's results are independent of
// the decomposition, docs/parallel.md).
void declare_ignored_keys(core::SchemaBuilder& schema) {
  schema.add_ignored("RUN_PARAMS", "how often RAMSES prints its step log", {"ncontrol"});
  schema.add_ignored("RUN_PARAMS", "RAMSES' debugging prints", {"debug"});
  schema.add_ignored("RUN_PARAMS", "load balancing: kosmo's results do not depend on the decomposition",
                     {"overload", "cost_weighting", "bisec_tol", "restart_remap", "nrestart_quad"});
  schema.add_ignored("RUN_PARAMS", "time convention of star particles, which kosmo does not have",
                     {"convert_birth_times", "use_proper_time"});
  schema.add_ignored("RUN_PARAMS", "GPU offload of cuRAMSES: the same results, computed elsewhere",
                     {"gpu_hydro", "gpu_poisson", "gpu_fft", "gpu_sink", "gpu_auto_tune", "n_cuda_streams"});
  schema.add_ignored("AMR_PARAMS", "particle memory: kosmo's particle arrays grow on demand", {"nparttot"});
  schema.add_ignored("POISSON_PARAMS",
                     "level from which RAMSES uses conjugate gradients instead of multigrid: kosmo picks its own "
                     "solver, converged to the same tolerance",
                     {"cg_levelmin"});
}

}  // namespace

void declare_unimplemented_parameters(core::SchemaBuilder& schema) {
  declare_features(schema);
  declare_blocks(schema);
  declare_keys_of_implemented_blocks(schema);
  declare_keys_of_unimplemented_blocks(schema);
  declare_ignored_keys(schema);
  declare_unimplemented_values(schema);
}

}  // namespace kosmo::driver
