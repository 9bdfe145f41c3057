#pragma once
// Rates of a primordial hydrogen-helium gas in ionisation equilibrium (docs/galaxy.md, "Cooling").
//
// Collisional ionisation, recombination (radiative and dielectronic), collisional excitation and
// bremsstrahlung: Cen (1992, ApJS 78, 341) as tabulated by Katz, Weinberg & Hernquist (1996, ApJS
// 105, 19, Table 2), the set RAMSES' cooling_module uses, with the Cen (1992) 1/(1 + sqrt(T/1e5))
// high-temperature factors and the Hui & Gnedin (1997) Gaunt-factor form of bremsstrahlung. Compton
// cooling and heating off the cosmic microwave background at T_CMB = 2.726 (1 + z) K (Ikeuchi &
// Ostriker 1986). The UV background (photoionisation rates Gamma and photoheating rates epsilon per
// HI, HeI, HeII) is one of:
//   * a power law J(nu) = J21 1e-21 (nu / nu_HI)^-a_spec erg/s/cm^2/Hz/sr, whose rates are the
//     closed forms of Theuns et al. (1998, MNRAS 301, 478, appendix) for hydrogenic cross-sections,
//     with RAMSES' evolution of J21 in redshift (on at z_reion, growing as a until z = 3, constant
//     to z = 2, then falling as (1 + z)^3 / 27);
//   * Haardt & Madau (1996) as fitted by exp(a + b z + c z^2) per species (Theuns et al. 1998),
//     normalised by 0.746 (Dave et al. 1999), zero above z_reion and above z = 15.
// Equilibrium abundances solve ionisations = recombinations per species with the electron density
// found by a bracketed root search, the temperature following the electron fraction through the mean
// molecular weight (T = mu T2), so that one root search gives T, mu and the abundances of a T2.
#include <array>

namespace kosmo::cooling {

// RAMSES' physical constants (amr/constants.f90) and primordial mass fractions (cooling_module X, Y).
inline constexpr double boltzmann_cgs = 1.3806200e-16;
inline constexpr double hydrogen_mass_g = 1.6600000e-24;
inline constexpr double hydrogen_mass_fraction = 0.76;
inline constexpr double helium_mass_fraction = 0.24;
inline constexpr double cmb_temperature_today = 2.726;
// Helium atoms per hydrogen atom.
inline constexpr double helium_per_hydrogen = helium_mass_fraction / (4.0 * hydrogen_mass_fraction);

enum Species { hydrogen = 0, helium = 1, helium_ion = 2 };  // HI, HeI, HeII: the three ionisable states

// Photoionisation rates [1/s] and photoheating rates [erg/s] per atom of HI, HeI, HeII.
struct UvBackground {
  std::array<double, 3> ionisation{};
  std::array<double, 3> heating{};
};

struct UvSettings {
  bool haardt_madau = false;
  double j21 = 0.0;        // power-law intensity at the Lyman limit, 1e-21 erg/s/cm^2/Hz/sr
  double a_spec = 1.0;     // power-law slope
  double z_reion = 8.5;    // the background is off at higher redshift
};

// The background at redshift z (z = 0 in non-cosmological runs, as RAMSES' aexp = 1).
UvBackground uv_background(const UvSettings& settings, double redshift);

// Abundances per hydrogen atom (n_X / n_H) and the gas temperature of one equilibrium state.
struct IonisationState {
  double temperature = 0.0;  // K
  double mu = 0.0;           // mean molecular weight
  double electrons = 0.0, hi = 0.0, hii = 0.0, hei = 0.0, heii = 0.0, heiii = 0.0;
};

// Equilibrium at hydrogen density n_H [1/cm^3] and T2 = T / mu [K].
IonisationState ionisation_equilibrium(double n_h, double t2, const UvBackground& uv);

// Rates of one equilibrium state, each divided by n_H^2 [erg cm^3 / s] (Compton ones by n_H:
// [erg / s]), as RAMSES tabulates them: the net loss of internal energy per volume is
//   n_H^2 (cooling + Z metal - heating) + n_H (compton_cooling - compton_heating).
struct CoolingRates {
  double cooling = 0.0;          // collisional, recombination, excitation, bremsstrahlung
  double heating = 0.0;          // photoheating
  double compton_cooling = 0.0;  // off the CMB, T > T_CMB
  double compton_heating = 0.0;  // by the CMB
  double metal = 0.0;            // metal lines at solar metallicity (scaled by Z / Z_sun)
  double mu = 0.0;
};

CoolingRates cooling_rates(double n_h, double t2, double redshift, const UvBackground& uv);

// Metal-line cooling of solar-metallicity gas at temperature T [erg cm^3/s per n_H^2]: a
// collisional-ionisation-equilibrium curve approximating Sutherland & Dopita (1993, ApJS 88, 253)
// without its H/He part above 10^4 K, plus CII fine-structure cooling below (Koyama & Inutsuka 2002).
double solar_metal_cooling(double temperature);

}  // namespace kosmo::cooling
