#pragma once
// kosmo's user-patch interface (docs/patches.md): the only header a patch includes. A patch is a
// directory of C++ files that define some of the extern "C" hooks below; `kosmo run NAMELIST
// --patch DIR` (or patch='DIR' in &RUN_PARAMS) compiles them into a shared library and the run
// calls the hooks it finds there instead of kosmo's built-in behaviour. The hooks take plain
// arrays and a context, so a patch depends on nothing else of kosmo and needs no rebuild of it.
//
// Conventions, as RAMSES' patch routines (condinit, gravana, init_part):
//  - positions x are cell centres in code length units, the box being [0, boxlen]^ndim;
//  - arrays of several cells are column-major, RAMSES' (1:nvector, 1:n): the value of component k of
//    cell i is at [k * ncell + i] (x[d * ncell + i], q[v * ncell + i]); kosmo may call a hook with
//    any ncell >= 1, and from several threads at once: hooks must not keep state between calls
//    unless they protect it;
//  - primitive variables q: density, velocity (ndim components), thermal pressure, then the
//    npassive passive scalars (concentrations), in code units.
// Every hook is optional. Changing this header changes KOSMO_PATCH_ABI_VERSION, and kosmo refuses
// a library built against another version.

#define KOSMO_PATCH_ABI_VERSION 1

extern "C" {

// What a hook may read of the run. Units are &UNITS_PARAMS (cgs values of one code unit).
struct kosmo_patch_context {
  int abi_version;  // KOSMO_PATCH_ABI_VERSION of the kosmo that calls
  int ndim;
  int nvar;         // primitive variables per cell: ndim + 2 + npassive
  int npassive;
  double boxlen;    // &AMR_PARAMS boxlen, code length units
  double gamma;     // &HYDRO_PARAMS gamma
  double units_length, units_time, units_density;  // cm, s, g/cm^3 per code unit
  const void* run;  // kosmo's, for the look-ups below; do not use otherwise
  // Namelist look-ups: the value of BLOCK's KEY (element `index`, 1-based as in Fortran, of an
  // array; 1 for a scalar) as the run resolved it (file, command line, default). Each returns 1 and
  // sets *value when kosmo knows the key with that type (get_real for a real key, ...), 0 otherwise
  // (value unchanged): a patch reads the keys of blocks kosmo does not implement yet through its
  // own defaults.
  int (*get_real)(const struct kosmo_patch_context* context, const char* block, const char* key, int index, double* value);
  int (*get_int)(const struct kosmo_patch_context* context, const char* block, const char* key, int index, long long* value);
  int (*get_bool)(const struct kosmo_patch_context* context, const char* block, const char* key, int index, int* value);
  // Copies the string (truncated, always NUL-terminated) into buffer[0..size-1].
  int (*get_string)(const struct kosmo_patch_context* context, const char* block, const char* key, int index, char* buffer,
                    unsigned long size);
};

// Initial conditions of the gas (RAMSES condinit), on the cells of every level as the initial mesh
// is built: q[v * ncell + i] holds on entry the state of &INIT_PARAMS' regions (RAMSES calls
// region_condinit first), and on return the primitive state the patch wants. dx: the cells' size.
void kosmo_patch_condinit(const struct kosmo_patch_context* context, int ncell, const double* x, double dx, double* q);

// Analytic gravity (RAMSES gravana): the acceleration f[d * ncell + i] at x, in code units, used when
// &POISSON_PARAMS gravity_type != 0 (added to self-gravity when negative), instead of kosmo's
// built-in field of that type.
void kosmo_patch_gravana(const struct kosmo_patch_context* context, int ncell, const double* x, double dx, double* f);

// Initial particles (pic=.true.; RAMSES init_part with a patch): their number, then their
// positions x[d * n + p], velocities v[d * n + p] and masses m[p], in code units. Called on every
// rank with the same results expected; each rank keeps the particles it owns.
long long kosmo_patch_particle_count(const struct kosmo_patch_context* context);
void kosmo_patch_particles(const struct kosmo_patch_context* context, long long n, double* x, double* v, double* m);

}  // extern "C"

// RAMSES' physical constants (amr/constants.f90), cgs, for patches that convert units.
namespace kosmo_patch_constants {
inline constexpr double boltzmann = 1.3806490e-16;      // kB, erg/K
inline constexpr double hydrogen_mass = 1.6605390e-24;  // mH (atomic mass unit), g
inline constexpr double parsec = 3.0856776e18;          // cm
inline constexpr double kiloparsec = 3.0856776e21;      // cm
inline constexpr double megayear = 3.15576e13;          // s
}  // namespace kosmo_patch_constants
