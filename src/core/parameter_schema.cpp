// The parameter table. One row per key; RAMSES names, defaults and array lengths (amr_parameters.f90,
// read_params.f90) unless the description says "kosmo". cuRAMSES keys: seeds/000 Appendix F.
#include "core/parameter_schema.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <numeric>
#include <sstream>

namespace kosmo::core {
namespace {

struct Range {
  std::optional<Bound> lower, upper;
};
Range any_value() { return {}; }
Range at_least(double v) { return {Bound{v, true}, std::nullopt}; }
Range above(double v) { return {Bound{v, false}, std::nullopt}; }
Range between(double lo, double hi) { return {Bound{lo, true}, Bound{hi, true}}; }
Range above_up_to(double lo, double hi) { return {Bound{lo, false}, Bound{hi, true}}; }

ParameterSpec make(std::string block, std::string name, ParameterType type, int length, ParameterValue default_value,
                   Range range, std::string description) {
  ParameterSpec spec;
  spec.block = std::move(block);
  spec.name = std::move(name);
  spec.type = type;
  spec.length = length;
  spec.default_value = std::move(default_value);
  spec.lower = range.lower;
  spec.upper = range.upper;
  spec.description = std::move(description);
  return spec;
}

ParameterSpec integer_key(std::string block, std::string name, long long def, Range range, std::string text) {
  return make(std::move(block), std::move(name), ParameterType::Integer, 0, def, range, std::move(text));
}
ParameterSpec integer_array_key(std::string block, std::string name, int length, long long def, Range range,
                                std::string text) {
  return make(std::move(block), std::move(name), ParameterType::Integer, length, def, range, std::move(text));
}
ParameterSpec real_key(std::string block, std::string name, double def, Range range, std::string text) {
  return make(std::move(block), std::move(name), ParameterType::Real, 0, def, range, std::move(text));
}
ParameterSpec real_array_key(std::string block, std::string name, int length, double def, Range range,
                             std::string text) {
  return make(std::move(block), std::move(name), ParameterType::Real, length, def, range, std::move(text));
}
ParameterSpec string_array_key(std::string block, std::string name, int length, std::string def,
                               std::vector<std::string> choices, std::string text) {
  ParameterSpec spec = make(std::move(block), std::move(name), ParameterType::String, length, std::move(def),
                            any_value(), std::move(text));
  spec.choices = std::move(choices);
  return spec;
}
ParameterSpec logical_key(std::string block, std::string name, bool def, std::string text) {
  return make(std::move(block), std::move(name), ParameterType::Logical, 0, def, any_value(), std::move(text));
}
ParameterSpec string_key(std::string block, std::string name, std::string def, std::vector<std::string> choices,
                         std::string text) {
  ParameterSpec spec =
      make(std::move(block), std::move(name), ParameterType::String, 0, std::move(def), any_value(), std::move(text));
  spec.choices = std::move(choices);
  return spec;
}

// clang-format off: the table is laid out by hand, one key per row.
std::vector<ParameterSpec> build_schema() {
  return {
      // &RUN_PARAMS
      integer_key("RUN_PARAMS", "ndim", 3, between(1, 3),
                  "number of space dimensions; kosmo picks its 1-, 2- or 3-D build at run time (--ndim overrides)"),
      string_key("RUN_PARAMS", "problem", "regions", {"regions", "refined_sphere"},
                 "kosmo: what to set up. 'regions' (RAMSES' behaviour): the gas from the &INIT_PARAMS regions, "
                 "needs hydro=.true.; 'refined_sphere': kosmo's mesh-only demo, no hydro"),
      logical_key("RUN_PARAMS", "hydro", false, "solve the hydrodynamics (&HYDRO_PARAMS)"),
      logical_key("RUN_PARAMS", "pic", false,
                  "collisionless particles (dark matter): cloud-in-cell deposit into the Poisson source and "
                  "kick-drift-kick on their level; needs poisson=.true."),
      logical_key("RUN_PARAMS", "cosmo", false,
                  "cosmological run: super-comoving units and time (RAMSES), initial conditions from "
                  "&INIT_PARAMS filetype='grafic' or 'gaussian', outputs at aout; ndim=3, periodic, boxlen=1"),
      logical_key("RUN_PARAMS", "poisson", false,
                  "gravity (&POISSON_PARAMS): self-gravity of the gas solved level by level, or the analytic field of "
                  "gravity_type > 0; needs hydro=.true."),
      logical_key("RUN_PARAMS", "use_fftw", true,
                  "cuRAMSES (seeds/000 §5.2): solve the fully refined base level (levelmin) by FFTW in one shot instead "
                  "of by multigrid V-cycles; periodic boxes by FFT, non-periodic ones by the zero-padded isolated FFT. "
                  ".false. keeps RAMSES' multigrid at the base level (the reference path)"),
      logical_key("RUN_PARAMS", "verbose", false, "print detailed progress messages"),
      integer_key("RUN_PARAMS", "nstepmax", 1000000, at_least(0), "maximum number of coarse time steps"),
      // RAMSES amr_step: level l+1 takes nsubcycle(l) steps per step of level l; read_params shifts the
      // array so that element 1 is levelmin.
      integer_array_key("RUN_PARAMS", "nsubcycle", kMaxLevel, 2, between(1, 2),
                        "per level from levelmin on: time steps of the next finer level per step of this level "
                        "(1 = same time step, 2 = adaptive time stepping)"),

      integer_key("RUN_PARAMS", "nrestart", 0, at_least(0),
                  "restart from output_NNNNN of the working directory (0 = start from the initial conditions); any "
                  "number of ranks may have written it; outputs continue at NNNNN + 1"),
      real_key("RUN_PARAMS", "walltime_hrs", -1.0, any_value(),
               "wall-clock limit of the job in hours (< 0: none); a snapshot is written minutes_dump before it and "
               "the run stops"),
      real_key("RUN_PARAMS", "minutes_dump", 1.0, at_least(0), "minutes before walltime_hrs at which the last snapshot is written"),
      string_key("RUN_PARAMS", "jobcontrolfile", "", {},
                 "a file checked after every coarse step: a line 'output' writes a snapshot, 'stop' writes one and ends "
                 "the run; the file is renamed <name>.done once read"),
      logical_key("RUN_PARAMS", "memory_balance", true,
                  "load balance on the memory cost of seeds/000 eq. 5 (w_grid per oct); .false. balances cell counts "
                  "(RAMSES' classic cost). Without particles or sinks the two place the same walls"),
      integer_key("RUN_PARAMS", "nremap", 0, at_least(0),
                  "load balance every nremap coarse steps (0 = only once, after the initial mesh); octs migrate "
                  "to the owners of the new k-section walls"),
      string_key("RUN_PARAMS", "ordering", "ksection", {"ksection", "hilbert"},
                 "domain decomposition: 'ksection' (seeds/000 §2, recursive k-section tree) or 'hilbert' (RAMSES' "
                 "Hilbert-curve key ranges of equal cost), kept so the two can be compared"),
      string_key("RUN_PARAMS", "exchange_method", "auto", {"auto", "p2p", "ksection", "alltoall"},
                 "ghost-exchange transport (seeds/000 §3.1): 'auto' tunes each exchange component between p2p and "
                 "ksection (§3.2.2: trials, EMA alpha = 0.05, probe every 50 calls, switch when > 20 % faster) and "
                 "logs its choices; 'p2p' Isend/Irecv with the known partners, 'ksection' hierarchical routing "
                 "through the k-section tree, 'alltoall' MPI_Alltoallv force one backend"),

      // &AMR_PARAMS
      integer_key("AMR_PARAMS", "levelmin", 1, between(1, kMaxLevel),
                  "coarsest level: the mesh is refined everywhere down to it"),
      integer_key("AMR_PARAMS", "levelmax", 1, between(1, kMaxLevel),
                  "finest level refinement may reach; must be >= levelmin"),
      integer_key("AMR_PARAMS", "ngridmax", 0, at_least(0),
                  "accepted for compatibility, no effect: kosmo's oct pools grow on demand"),
      integer_key("AMR_PARAMS", "ngridtot", 0, at_least(0),
                  "accepted for compatibility, no effect: kosmo's oct pools grow on demand"),
      integer_array_key("AMR_PARAMS", "nexpand", kMaxLevel, 1, at_least(0),
                        "per level: number of buffer-cell expansions around cells flagged for refinement"),
      real_key("AMR_PARAMS", "mem_weight_grid", 0.0, at_least(0),
               "load-balance cost of one oct in bytes (seeds/000 eq. 5); 0 = automatic from the number of variables"),
      real_key("AMR_PARAMS", "mem_weight_part", 12.0, at_least(0),
               "load-balance cost of one particle in bytes (seeds/000 eq. 4), with memory_balance; with "
               "memory_balance=.false. a particle costs 1/80 of an oct, as RAMSES' 80 + n_part per grid"),
      integer_key("AMR_PARAMS", "npartmax", 0, at_least(0),
                  "accepted for compatibility, no effect: kosmo's particle arrays grow on demand"),
      real_key("AMR_PARAMS", "time_balance_alpha", 0.0, between(0, 1),
               "blend of measured work into the load-balance cost (seeds/000 eqs. 6, 12): each level's oct cost is "
               "multiplied by 1 + alpha (seconds per cell on this rank / average - 1), clamped to [0.5, 2]; 0 = memory only"),
      real_key("AMR_PARAMS", "boxlen", 1.0, above(0), "box size in code length units"),
      integer_key("AMR_PARAMS", "nx", 1, at_least(1), "coarse grid: number of root cells along x"),
      integer_key("AMR_PARAMS", "ny", 1, at_least(1), "coarse grid: number of root cells along y"),
      integer_key("AMR_PARAMS", "nz", 1, at_least(1), "coarse grid: number of root cells along z"),

      // &INIT_PARAMS: RAMSES' region initial conditions (hydro/init_flow_fine.f90 region_condinit),
      // positions and lengths in code units within [0, boxlen]
      integer_key("INIT_PARAMS", "nregion", 0, between(0, kMaxRegion), "number of initial-condition regions used"),
      string_array_key("INIT_PARAMS", "region_type", kMaxRegion, "square", {"square", "point"},
                       "per region: 'square' sets the gas state inside the region; 'point' adds mass, velocity "
                       "and energy, spread over the cells around the point (cloud-in-cell)"),
      real_array_key("INIT_PARAMS", "x_center", kMaxRegion, 0.0, any_value(), "per region: x of the centre"),
      real_array_key("INIT_PARAMS", "y_center", kMaxRegion, 0.0, any_value(), "per region: y of the centre"),
      real_array_key("INIT_PARAMS", "z_center", kMaxRegion, 0.0, any_value(), "per region: z of the centre"),
      real_array_key("INIT_PARAMS", "length_x", kMaxRegion, 1e10, above(0),
                     "per 'square' region: full extent along x"),
      real_array_key("INIT_PARAMS", "length_y", kMaxRegion, 1e10, above(0),
                     "per 'square' region: full extent along y"),
      real_array_key("INIT_PARAMS", "length_z", kMaxRegion, 1e10, above(0),
                     "per 'square' region: full extent along z"),
      real_array_key("INIT_PARAMS", "exp_region", kMaxRegion, 2.0, above(0),
                     "per 'square' region: exponent of the norm (2 = ellipsoid, >= 10 = box)"),
      real_array_key("INIT_PARAMS", "d_region", kMaxRegion, 0.0, at_least(0),
                     "per region: density ('square'); mass added ('point')"),
      real_array_key("INIT_PARAMS", "u_region", kMaxRegion, 0.0, any_value(),
                     "per region: x velocity ('square'); velocity added ('point')"),
      real_array_key("INIT_PARAMS", "v_region", kMaxRegion, 0.0, any_value(),
                     "per region: y velocity ('square'); velocity added ('point')"),
      real_array_key("INIT_PARAMS", "w_region", kMaxRegion, 0.0, any_value(),
                     "per region: z velocity ('square'); velocity added ('point')"),
      real_array_key("INIT_PARAMS", "p_region", kMaxRegion, 0.0, at_least(0),
                     "per region: pressure ('square'); (gamma - 1) times the thermal energy added ('point')"),

      // &INIT_PARAMS: particle and cosmological initial conditions (RAMSES init_part / init_file)
      string_key("INIT_PARAMS", "filetype", "ascii", {"ascii", "grafic", "gaussian"},
                 "particle initial conditions: 'ascii' reads initfile(1)/ic_part (one particle per line: ndim "
                 "positions, ndim velocities, mass, code units; RAMSES); 'grafic' the single-level grafic files "
                 "of initfile(1) (cosmo); 'gaussian' kosmo's Gaussian random field with Zel'dovich displacements "
                 "(cosmo, the keys below)"),
      string_array_key("INIT_PARAMS", "initfile", kMaxLevel, "", {},
                       "per level: directory of the initial-condition files (kosmo reads initfile(1) only)"),
      real_key("INIT_PARAMS", "aexp_ini", 10.0, above(0),
               "starting expansion factor; RAMSES' default 10 means: that of the grafic header (filetype='grafic') "
               "or 1/51 (filetype='gaussian')"),
      real_key("INIT_PARAMS", "omega_b", 0.045, at_least(0),
               "kosmo: baryon density parameter (the grafic header has none; the gas carries omega_b/omega_m of "
               "the mass)"),
      real_key("INIT_PARAMS", "omega_m", 0.3, above(0), "kosmo, filetype='gaussian': matter density parameter"),
      real_key("INIT_PARAMS", "omega_l", 0.7, at_least(0), "kosmo, filetype='gaussian': cosmological constant"),
      real_key("INIT_PARAMS", "h0", 70.0, above(0), "kosmo, filetype='gaussian': Hubble constant in km/s/Mpc"),
      real_key("INIT_PARAMS", "boxlen_ini", 100.0, above(0),
               "kosmo, filetype='gaussian': comoving box size in Mpc/h (RAMSES' boxlen_ini)"),
      real_key("INIT_PARAMS", "sigma8", 0.8, above(0),
               "kosmo, filetype='gaussian': rms linear overdensity in 8 Mpc/h spheres today"),
      real_key("INIT_PARAMS", "n_s", 0.96, any_value(), "kosmo, filetype='gaussian': primordial spectral index"),
      integer_key("INIT_PARAMS", "ic_lattice", 0, at_least(0),
                  "kosmo, filetype='gaussian': particles per axis of the initial lattice; 0 = one per levelmin cell "
                  "(RAMSES); levelmin cells / 2 gives a PM mesh twice as fine as the particle grid"),
      integer_key("INIT_PARAMS", "seed", 1, at_least(0),
                  "kosmo, filetype='gaussian': seed of the random phases (each mode seeded from its wave vector)"),
      logical_key("INIT_PARAMS", "ic_invert_phases", false,
                  "kosmo, filetype='gaussian': flip the sign of every mode (phases shifted by pi), the partner run "
                  "of a paired simulation (Angulo & Pontzen 2016; GADGET-4's NGENIC_MIRROR_PHASES)"),
      logical_key("INIT_PARAMS", "ic_fix_amplitudes", false,
                  "kosmo, filetype='gaussian': every mode's amplitude set to sqrt(P(k)/V), random phases only "
                  "(Angulo & Pontzen 2016; GADGET-4's NGENIC_FIX_MODE_AMPLITUDES)"),

      // &HYDRO_PARAMS (hydro/hydro_parameters.f90)
      real_key("HYDRO_PARAMS", "gamma", 1.4, above(1), "adiabatic index of the ideal gas"),
      real_key("HYDRO_PARAMS", "courant_factor", 0.5, above_up_to(0, 1),
               "time step as a fraction of the Courant limit"),
      real_key("HYDRO_PARAMS", "smallr", 1e-10, above(0), "density floor (code units)"),
      real_key("HYDRO_PARAMS", "smallc", 1e-10, above(0), "sound speed floor (code units)"),
      integer_key("HYDRO_PARAMS", "slope_type", 1, between(0, 3),
                  "MUSCL slope limiter: 0 first order, 1 MinMod, 2 MonCen, 3 positivity-preserving unsplit "
                  "(multi-dimensional)"),
      string_key("HYDRO_PARAMS", "riemann", "llf", {"llf", "hll", "hllc", "exact"},
                 "Riemann solver: local Lax-Friedrichs, HLL, HLLC, or 'exact' (Toro's exact iterative solver)"),
      string_key("HYDRO_PARAMS", "scheme", "muscl", {"muscl"}, "hydro scheme: unsplit MUSCL-Hancock"),
      integer_key("HYDRO_PARAMS", "niter_riemann", 10, at_least(1),
                  "Newton iterations of the 'exact' Riemann solver"),
      integer_key("HYDRO_PARAMS", "npassive", 0, between(0, 8),
                  "kosmo: number of passive scalars advected with the gas (RAMSES fixes it at compile time "
                  "with NVAR)"),

      // &REFINE_PARAMS: the geometric criterion of RAMSES (refine inside a region per level)
      real_array_key("REFINE_PARAMS", "x_refine", kMaxLevel, 0.0, any_value(),
                     "per level: x centre of the geometric refinement region (code units)"),
      real_array_key("REFINE_PARAMS", "y_refine", kMaxLevel, 0.0, any_value(),
                     "per level: y centre of the geometric refinement region (code units)"),
      real_array_key("REFINE_PARAMS", "z_refine", kMaxLevel, 0.0, any_value(),
                     "per level: z centre of the geometric refinement region (code units)"),
      real_array_key("REFINE_PARAMS", "r_refine", kMaxLevel, -1.0, any_value(),
                     "per level: radius of the refinement region; negative = no geometric criterion at that level"),
      real_array_key("REFINE_PARAMS", "a_refine", kMaxLevel, 1.0, any_value(),
                     "per level: axis ratio of the region along y"),
      real_array_key("REFINE_PARAMS", "b_refine", kMaxLevel, 1.0, any_value(),
                     "per level: axis ratio of the region along z"),
      real_array_key("REFINE_PARAMS", "exp_refine", kMaxLevel, 2.0, above(0),
                     "per level: exponent of the region norm (2 = ellipsoid, large = box)"),
      integer_key("REFINE_PARAMS", "interpol_type", 1, between(0, 4),
                  "prolongation: 0 injection, 1 linear MinMod, 2 linear MonCen, 3 linear unlimited central, "
                  "4 central for velocities and MonCen for the rest"),
      integer_key("REFINE_PARAMS", "interpol_var", 0, between(0, 2),
                  "variables interpolated: 0 conservative, 1 primitive, 2 primitive with velocities"),
      // RAMSES hydro_flag / hydro_refine (hydro/godunov_utils.f90): refine where the jump to a neighbour,
      // normalised by the sum of both values plus the floor, exceeds err_grad; negative = off
      real_key("REFINE_PARAMS", "err_grad_d", -1.0, any_value(),
               "refine where the density jump to a neighbour, 2 abs(d1 - d2) / (d1 + d2 + floor_d), exceeds it; "
               "negative = off"),
      real_key("REFINE_PARAMS", "err_grad_u", -1.0, any_value(),
               "refine where a velocity jump to a neighbour, relative to the sum of sound speeds and speeds, "
               "exceeds it; negative = off"),
      real_key("REFINE_PARAMS", "err_grad_p", -1.0, any_value(),
               "refine where the pressure jump to a neighbour, 2 abs(p1 - p2) / (p1 + p2 + floor_p), exceeds it; "
               "negative = off"),
      real_key("REFINE_PARAMS", "floor_d", 1e-10, at_least(0), "density floor of the err_grad_d criterion"),
      real_key("REFINE_PARAMS", "floor_u", 1e-10, at_least(0), "velocity floor of the err_grad_u criterion"),
      real_key("REFINE_PARAMS", "floor_p", 1e-10, at_least(0), "pressure floor of the err_grad_p criterion"),
      // RAMSES poisson_refine (amr/flag_utils.f90), hydro without gravity: density >= m_refine * mass_sph / dx^3
      real_array_key("REFINE_PARAMS", "m_refine", kMaxLevel, -1.0, any_value(),
                     "per level from levelmin on: refine cells whose gas mass reaches m_refine * mass_sph "
                     "(-1 = off)"),
      real_key("REFINE_PARAMS", "mass_sph", 0.0, at_least(0), "mass unit of m_refine (code units)"),

      // &BOUNDARY_PARAMS: RAMSES boundary regions (hydro/read_hydro_params.f90); kosmo takes whole faces
      integer_key("BOUNDARY_PARAMS", "nboundary", 0, between(0, kMaxBound),
                  "number of boundary regions used; an axis without any stays periodic"),
      integer_array_key("BOUNDARY_PARAMS", "bound_type", kMaxBound, 0, between(0, 3),
                        "per boundary: 1 reflecting, 2 outflow (zero gradient), 3 inflow (imposed d/u/v/w/p_bound)"),
      integer_array_key("BOUNDARY_PARAMS", "ibound_min", kMaxBound, 0, any_value(),
                        "per boundary: first coarse cell along x, relative to the box (-1 = the layer left of "
                        "the box, +1 = right of it, 0 = first cell)"),
      integer_array_key("BOUNDARY_PARAMS", "ibound_max", kMaxBound, 0, any_value(),
                        "per boundary: last coarse cell along x, relative to the box (0 = last cell)"),
      integer_array_key("BOUNDARY_PARAMS", "jbound_min", kMaxBound, 0, any_value(),
                        "per boundary: first coarse cell along y, as ibound_min"),
      integer_array_key("BOUNDARY_PARAMS", "jbound_max", kMaxBound, 0, any_value(),
                        "per boundary: last coarse cell along y, as ibound_max"),
      integer_array_key("BOUNDARY_PARAMS", "kbound_min", kMaxBound, 0, any_value(),
                        "per boundary: first coarse cell along z, as ibound_min"),
      integer_array_key("BOUNDARY_PARAMS", "kbound_max", kMaxBound, 0, any_value(),
                        "per boundary: last coarse cell along z, as ibound_max"),
      real_array_key("BOUNDARY_PARAMS", "d_bound", kMaxBound, 0.0, at_least(0), "per inflow boundary: density"),
      real_array_key("BOUNDARY_PARAMS", "u_bound", kMaxBound, 0.0, any_value(), "per inflow boundary: x velocity"),
      real_array_key("BOUNDARY_PARAMS", "v_bound", kMaxBound, 0.0, any_value(), "per inflow boundary: y velocity"),
      real_array_key("BOUNDARY_PARAMS", "w_bound", kMaxBound, 0.0, any_value(), "per inflow boundary: z velocity"),
      real_array_key("BOUNDARY_PARAMS", "p_bound", kMaxBound, 0.0, at_least(0), "per inflow boundary: pressure"),

      // &POISSON_PARAMS (poisson/poisson_parameters.f90, read_poisson_params.f90)
      integer_key("POISSON_PARAMS", "gravity_type", 0, between(-2, 2),
                  "0: self-gravity; 1: constant acceleration gravity_params(1:ndim); 2: point mass, gravity_params = "
                  "(GM, softening, x, y, z); negative: self-gravity plus the analytic field of -gravity_type"),
      real_array_key("POISSON_PARAMS", "gravity_params", 10, 0.0, any_value(), "parameters of the analytic field (gravity_type)"),
      real_key("POISSON_PARAMS", "epsilon", 1e-4, above_up_to(0, 1),
               "multigrid convergence: stop when the residual norm falls below epsilon times the initial one "
               "(RAMSES multigrid_fine)"),
      logical_key("POISSON_PARAMS", "mg_merged_rb", true,
                  "cuRAMSES (seeds/000 §5.1.1, App. D.2): red and black Gauss-Seidel half sweeps without a ghost "
                  "exchange between them; .false. is RAMSES' sequence (results then equal on any rank count)"),
      logical_key("POISSON_PARAMS", "mg_fused_norm", true,
                  "cuRAMSES (seeds/000 §5.1.1): residual and its norm in one loop, norm reductions batched"),
      integer_key("POISSON_PARAMS", "fft_slab_threshold", 16777216, at_least(1),
                  "kosmo (seeds/000 §5.2.1): base levels of at most this many cells are gathered to every rank and "
                  "solved locally; larger ones by FFTW-MPI slabs"),

      // &OUTPUT_PARAMS
      integer_key("OUTPUT_PARAMS", "noutput", 1, between(0, kMaxOut),
                  "number of outputs listed in tout (or aout in cosmological runs)"),
      real_array_key("OUTPUT_PARAMS", "tout", kMaxOut, 0.0, any_value(),
                     "output times in code units; non-decreasing over the first noutput entries"),
      real_array_key("OUTPUT_PARAMS", "aout", kMaxOut, 1.1, any_value(),
                     "output expansion factors (cosmological runs); non-decreasing over the first noutput entries"),
      integer_key("OUTPUT_PARAMS", "foutput", 1000000, at_least(1), "also write an output every foutput coarse steps"),
      real_key("OUTPUT_PARAMS", "delta_tout", 0.0, at_least(0),
               "interval between outputs in code time units (0 = use tout only)"),
      real_key("OUTPUT_PARAMS", "tend", 0.0, at_least(0), "end time in code units (0 = last entry of tout)"),
      real_key("OUTPUT_PARAMS", "delta_aout", 0.0, any_value(),
               "interval between outputs in expansion factor (0 = use aout only)"),
      string_key("OUTPUT_PARAMS", "outformat", "hdf5", {"hdf5", "ramses", "both"},
                 "snapshot format: 'hdf5' (kosmo's single file, read by restarts and kosmo.load), 'ramses' (RAMSES' "
                 "binary amr_/hydro_ files, for yt, osyris, pynbody; restarts read it with informat='ramses') or 'both'"),
      string_key("OUTPUT_PARAMS", "informat", "hdf5", {"hdf5", "ramses"},
                 "format nrestart reads: 'hdf5' (kosmo_NNNNN.h5, bit for bit) or 'ramses' (the amr_/hydro_NNNNN.outCCCCC "
                 "files of kosmo or of a RAMSES hydro run, any number of files onto any number of ranks; primitive "
                 "variables, so equal to the HDF5 restart to round-off)"),
      string_key("OUTPUT_PARAMS", "output_precision", "double", {"double", "single"},
                 "kosmo: precision of the HDF5 snapshot's fields/* datasets; 'single' halves them for analysis, while "
                 "the restart data stays double (restarts remain exact) and RAMSES files stay double (their readers "
                 "expect it)"),
      real_key("OUTPUT_PARAMS", "aend", 0.0, any_value(), "final expansion factor (0 = last entry of aout)"),

      // &UNITS_PARAMS: the cgs value of one code unit
      real_key("UNITS_PARAMS", "units_density", 1.0, above(0), "code density unit in g/cm^3"),
      real_key("UNITS_PARAMS", "units_time", 1.0, above(0), "code time unit in s"),
      real_key("UNITS_PARAMS", "units_length", 1.0, above(0), "code length unit in cm"),
  };
}

std::vector<UnimplementedParameter> keys_of(const std::string& block, std::initializer_list<const char*> names) {
  std::vector<UnimplementedParameter> out;
  for (const char* name : names) out.push_back({block, name});
  return out;
}

std::vector<UnimplementedParameter> build_unimplemented() {
  std::vector<UnimplementedParameter> all;
  auto add = [&all](std::vector<UnimplementedParameter> more) { all.insert(all.end(), more.begin(), more.end()); };
  add(keys_of("RUN_PARAMS", {"sink",
                             "rt",
                             "dump_pk",
                             "gpu_hydro",
                             "gpu_poisson",
                             "gpu_fft",
                             "gpu_sink",
                             "gpu_auto_tune",
                             "n_cuda_streams",
                             "static",
                             "debug"}));
  add(keys_of("AMR_PARAMS",
              {"nsinkmax", "mem_weight_sink"}));
  add(keys_of("INIT_PARAMS", {"var_region", "multiple", "condinit_kind"}));
  add(keys_of("HYDRO_PARAMS", {"riemann2d", "pressure_fix", "beta_fix", "difmag", "strict_equilibrium"}));
  add(keys_of("REFINE_PARAMS", {"jeans_refine", "q_refine_holdback", "ivar_refine", "var_cut_refine",
                                "mass_cut_refine"}));
  add(keys_of("BOUNDARY_PARAMS", {"no_inflow", "var_bound"}));
  add(keys_of("OUTPUT_PARAMS", {"varcpu_chunk_nfile", "output_mode"}));
  // Well-known keys of the unimplemented blocks, so a misplaced key can be sent to its block.
  add(keys_of("POISSON_PARAMS", {"cg_levelmin", "cic_levelmax"}));
  add(keys_of("PHYSICS_PARAMS", {"cooling", "metal", "haardt_madau", "z_ave", "z_reion", "t_star", "n_star", "eps_star",
                                 "g_star", "del_star", "t2_star", "eta_sn", "yield", "f_w", "f_ek", "rbubble",
                                 "isothermal", "cooling_method", "grackle_table"}));
  add(keys_of("SINK_PARAMS",
              {"create_sinks", "mass_sink_seed", "accretion_scheme", "merging_timescale", "ir_cloud", "sink_soft"}));
  add(keys_of("CLUMPFIND_PARAMS", {"relevance_threshold", "density_threshold", "saddle_threshold", "mass_threshold"}));
  add(keys_of("RT_PARAMS", {"rt_flux_scheme", "rt_c_fraction", "rt_otsa", "rt_smooth", "rt_courant_factor"}));
  add(keys_of("MOVIE_PARAMS", {"movie", "imovout", "imov", "tendmov", "aendmov", "nw_frame", "nh_frame"}));
  add(keys_of("LIGHTCONE_PARAMS", {"thetay_cone", "thetaz_cone", "zmax_cone"}));
  add(keys_of("TRACER_PARAMS", {"tracer_feed", "tracer_feed_fmt", "tracer_mass"}));
  return all;
}
// clang-format on

std::string canonical(std::string_view s, bool to_upper) {
  if (!s.empty() && s[0] == '&') s.remove_prefix(1);
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [to_upper](unsigned char c) {
    return static_cast<char>(to_upper ? std::toupper(c) : std::tolower(c));
  });
  return out;
}

std::string format_bound(const ParameterSpec& spec, double v) {
  if (spec.type == ParameterType::Integer) return format_value(static_cast<long long>(v));
  return format_value(v);
}

std::string markdown_default(const ParameterSpec& spec) {
  std::string value = format_value(spec.default_value);
  // Readers expect a real to look like one; "1.0" also parses back to the same value.
  if (spec.type == ParameterType::Real && value.find_first_of(".en") == std::string::npos) value += ".0";
  return "`" + value + "`" + (spec.is_array() ? " (each)" : "");
}

}  // namespace

const std::vector<BlockSpec>& schema_blocks() {
  static const std::vector<BlockSpec> blocks = {
      {"RUN_PARAMS", "What to run and for how long."},
      {"AMR_PARAMS", "The mesh: coarse grid, refinement levels, box size."},
      {"INIT_PARAMS", "Initial conditions: regions of uniform gas and point deposits, applied in order."},
      {"HYDRO_PARAMS", "The hydrodynamics solver (used when hydro=.true. in &RUN_PARAMS)."},
      {"REFINE_PARAMS", "Refinement criteria and prolongation to new cells."},
      {"BOUNDARY_PARAMS", "Non-periodic boundaries, as RAMSES boxes of coarse cells outside the domain; kosmo "
                          "accepts boxes that cover a whole face of the box."},
      {"OUTPUT_PARAMS", "When outputs are written and when the run ends."},
      {"UNITS_PARAMS", "Code units, as the cgs value of one code unit."},
      {"POISSON_PARAMS", "Gravity (used when poisson=.true. in &RUN_PARAMS): self-gravity with G = 1 in code units, "
                         "or an analytic field."},
  };
  return blocks;
}

const std::vector<ParameterSpec>& parameter_schema() {
  static const std::vector<ParameterSpec> schema = build_schema();
  return schema;
}

const std::vector<BlockSpec>& unimplemented_blocks() {
  static const std::vector<BlockSpec> blocks = {
      {"PHYSICS_PARAMS", "cooling, star formation, feedback (RAMSES classic)"},
      {"COOLING_PARAMS", "cooling (newer RAMSES)"},
      {"SF_PARAMS", "star formation (newer RAMSES)"},
      {"FEEDBACK_PARAMS", "stellar feedback (newer RAMSES)"},
      {"SINK_PARAMS", "sink particles"},
      {"CLUMPFIND_PARAMS", "clump finder"},
      {"RT_PARAMS", "radiative transfer"},
      {"MOVIE_PARAMS", "movie frames"},
      {"LIGHTCONE_PARAMS", "light cones"},
      {"TRACER_PARAMS", "tracer particles"},
  };
  return blocks;
}

const std::vector<UnimplementedParameter>& unimplemented_parameters() {
  static const std::vector<UnimplementedParameter> keys = build_unimplemented();
  return keys;
}

const BlockSpec* find_block(std::string_view block) {
  const std::string b = canonical(block, true);
  for (const BlockSpec& spec : schema_blocks())
    if (spec.name == b) return &spec;
  return nullptr;
}

const BlockSpec* find_unimplemented_block(std::string_view block) {
  const std::string b = canonical(block, true);
  for (const BlockSpec& spec : unimplemented_blocks())
    if (spec.name == b) return &spec;
  return nullptr;
}

const ParameterSpec* find_parameter(std::string_view block, std::string_view name) {
  const std::string b = canonical(block, true);
  const std::string n = canonical(name, false);
  for (const ParameterSpec& spec : parameter_schema())
    if (spec.block == b && spec.name == n) return &spec;
  return nullptr;
}

const UnimplementedParameter* find_unimplemented_parameter(std::string_view block, std::string_view name) {
  const std::string b = canonical(block, true);
  const std::string n = canonical(name, false);
  for (const UnimplementedParameter& key : unimplemented_parameters())
    if (key.block == b && key.name == n) return &key;
  return nullptr;
}

std::string_view type_name(ParameterType type) {
  switch (type) {
    case ParameterType::Integer: return "integer";
    case ParameterType::Real: return "real";
    case ParameterType::Logical: return "logical";
    case ParameterType::String: return "string";
  }
  return "?";
}

std::string describe_allowed(const ParameterSpec& spec) {
  if (!spec.choices.empty()) {
    std::string out = "one of ";
    for (std::size_t i = 0; i < spec.choices.size(); ++i) out += (i ? ", " : "") + format_value(spec.choices[i]);
    return out;
  }
  const std::string& n = spec.name;
  if (spec.lower && spec.upper)
    return format_bound(spec, spec.lower->value) + (spec.lower->inclusive ? " <= " : " < ") + n +
           (spec.upper->inclusive ? " <= " : " < ") + format_bound(spec, spec.upper->value);
  if (spec.lower) return n + (spec.lower->inclusive ? " >= " : " > ") + format_bound(spec, spec.lower->value);
  if (spec.upper) return n + (spec.upper->inclusive ? " <= " : " < ") + format_bound(spec, spec.upper->value);
  return "";
}

bool value_allowed(const ParameterSpec& spec, const ParameterValue& value) {
  if (const auto* s = std::get_if<std::string>(&value))
    return spec.choices.empty() || std::find(spec.choices.begin(), spec.choices.end(), *s) != spec.choices.end();
  double v = 0.0;
  if (const auto* i = std::get_if<long long>(&value))
    v = static_cast<double>(*i);
  else if (const auto* d = std::get_if<double>(&value))
    v = *d;
  else
    return true;  // logicals have no range
  if (std::isnan(v)) return false;
  if (spec.lower && (spec.lower->inclusive ? v < spec.lower->value : v <= spec.lower->value)) return false;
  if (spec.upper && (spec.upper->inclusive ? v > spec.upper->value : v >= spec.upper->value)) return false;
  return true;
}

std::string format_value(const ParameterValue& value) {
  if (const auto* i = std::get_if<long long>(&value)) return std::to_string(*i);
  if (const auto* b = std::get_if<bool>(&value)) return *b ? ".true." : ".false.";
  if (const auto* s = std::get_if<std::string>(&value)) {
    std::string out = "'";
    for (char c : *s) out += (c == '\'') ? std::string("''") : std::string(1, c);
    return out + "'";
  }
  // Shortest decimal form that reads back to the same double (std::to_chars guarantees it).
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, std::get<double>(value));
  return std::string(buffer, result.ptr);
}

std::string format_values(const std::vector<ParameterValue>& values) {
  std::string out;
  std::size_t i = 0;
  while (i < values.size()) {
    const std::string text = format_value(values[i]);
    std::size_t run = 1;
    while (i + run < values.size() && format_value(values[i + run]) == text) ++run;
    if (!out.empty()) out += ", ";
    out += run > 1 ? std::to_string(run) + "*" + text : text;
    i += run;
  }
  return out;
}

int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const int substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
    }
  }
  return row[b.size()];
}

std::string schema_reference_markdown() {
  std::ostringstream md;
  for (const BlockSpec& block : schema_blocks()) {
    md << "### &" << block.name << "\n\n" << block.description << "\n\n";
    md << "| parameter | type | default | allowed | meaning |\n|---|---|---|---|---|\n";
    for (const ParameterSpec& spec : parameter_schema()) {
      if (spec.block != block.name) continue;
      md << "| `" << spec.name << "` | " << type_name(spec.type);
      if (spec.is_array()) md << " array(" << spec.length << ")";
      const std::string allowed = describe_allowed(spec);
      md << " | " << markdown_default(spec) << " | " << (allowed.empty() ? "any" : allowed) << " | " << spec.description
         << " |\n";
    }
    md << "\n";
    std::string pending;
    for (const UnimplementedParameter& key : unimplemented_parameters())
      if (key.block == block.name) pending += (pending.empty() ? "" : ", ") + ("`" + key.name + "`");
    if (!pending.empty()) md << "Recognised, not yet implemented: " << pending << ".\n\n";
  }
  md << "### Blocks recognised, not yet implemented\n\n";
  md << "Any of these blocks in a namelist stops the run with an error naming the block.\n\n";
  md << "| block | purpose | known RAMSES keys |\n|---|---|---|\n";
  for (const BlockSpec& block : unimplemented_blocks()) {
    std::string keys;
    for (const UnimplementedParameter& key : unimplemented_parameters())
      if (key.block == block.name) keys += (keys.empty() ? "" : ", ") + ("`" + key.name + "`");
    md << "| `&" << block.name << "` | " << block.description << " | " << (keys.empty() ? "-" : keys) << " |\n";
  }
  return md.str();
}

}  // namespace kosmo::core
