#pragma once
// Run-time choices of the Euler solver, with RAMSES' names and defaults (hydro/read_hydro_params.f90,
// &HYDRO_PARAMS: gamma, smallr, smallc, slope_type, riemann, niter_riemann). The kernels read these
// once per call and dispatch to templated code (ARCHITECTURE §6): nothing here is consulted per cell.
#include <cctype>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace kosmo::hydro {

enum class RiemannSolver { llf, hll, hllc, exact };

// RAMSES' slope_type integers (hydro/slope_types.f90, uslope in hydro/umuscl.f90).
enum class SlopeType : int { first_order = 0, minmod = 1, moncen = 2, positivity = 3 };

struct SchemeSettings {
  double gamma = 1.4;
  double smallr = 1e-10;  // density floor
  double smallc = 1e-10;  // sound-speed floor; the pressure floor is rho * smallc^2 / gamma
  SlopeType slope_type = SlopeType::minmod;
  RiemannSolver riemann = RiemannSolver::llf;
  int npassive = 0;        // passive scalars carried after the energy
  bool metallicity = false;  // &COOLING_PARAMS metal: the first passive scalar is the gas metallicity
  int niter_riemann = 10;  // Newton iterations of the exact solver (RAMSES' niter_riemann)
  // RAMSES' pressure_fix / beta_fix (docs/hydro.md, "Pressure fix"): the internal energy is also
  // evolved non-conservatively, and replaces the conservative one where that falls below beta_fix
  // times the kinetic energy of the local velocity jumps.
  bool pressure_fix = false;
  double beta_fix = 0.0;
  // The energy-conserving internal-energy floor (docs/hydro.md, "Positive pressure"), on with the
  // pressure fix: off, results are bit-identical to RAMSES' scheme without it.
  bool energy_floor = false;
};

// Most passive scalars a run carries (the second extent of &INIT_PARAMS var_region).
inline constexpr int kMaxPassive = 8;

// Number of conservative (and primitive) variables: rho, D momenta, E, passive scalars.
constexpr int nvar(int D, int npassive) { return D + 2 + npassive; }

// Values per face in the kernel's flux array: the nvar conservative fluxes, then with the pressure
// fix RAMSES' two extra face quantities (its tmp array in hydro/umuscl.f90): the mean normal
// velocity of the two face states and the flux of internal energy, both times dt/dx.
constexpr int flux_width(int D, int npassive, bool pressure_fix) { return nvar(D, npassive) + (pressure_fix ? 2 : 0); }
inline int flux_width(int D, const SchemeSettings& s) { return flux_width(D, s.npassive, s.pressure_fix); }

inline const char* riemann_solver_name(RiemannSolver r) {
  switch (r) {
    case RiemannSolver::llf:
      return "llf";
    case RiemannSolver::hll:
      return "hll";
    case RiemannSolver::hllc:
      return "hllc";
    case RiemannSolver::exact:
      return "exact";
  }
  return "unknown";
}

// RAMSES spells the solvers 'llf', 'hll', 'hllc', 'exact' in &HYDRO_PARAMS; case and surrounding
// blanks are forgiven because Fortran namelists are case-insensitive and blank-padded.
inline RiemannSolver riemann_solver_from_name(std::string_view name) {
  std::string key;
  for (char ch : name) {
    if (!std::isspace(static_cast<unsigned char>(ch)))
      key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
  }
  if (key == "llf") return RiemannSolver::llf;
  if (key == "hll") return RiemannSolver::hll;
  if (key == "hllc") return RiemannSolver::hllc;
  if (key == "exact") return RiemannSolver::exact;
  KOSMO_FAIL("hydro: unknown Riemann solver '" << name << "' (valid: llf, hll, hllc, exact)");
}

inline SlopeType slope_type_from_int(int slope_type) {
  KOSMO_REQUIRE(slope_type >= 0 && slope_type <= 3, "hydro: unsupported slope_type "
                                                        << slope_type
                                                        << " (valid: 0 first order, 1 minmod, 2 moncen, 3 positivity)");
  return static_cast<SlopeType>(slope_type);
}

}  // namespace kosmo::hydro
