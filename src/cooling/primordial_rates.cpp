// The rate coefficients of primordial_rates.hpp, written from the cited papers' formulas.
#include "cooling/primordial_rates.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace kosmo::cooling {
namespace {

// Cen (1992) high-temperature correction of collisional rates.
double cen_factor(double t) { return 1.0 / (1.0 + std::sqrt(t / 1e5)); }

// The temperature-only coefficients of Katz, Weinberg & Hernquist (1996, Table 2) [cm^3/s].
struct CollisionalCoefficients {
  double recombination_hii, recombination_heii, dielectronic_heii, recombination_heiii;
  double ionisation_hi, ionisation_hei, ionisation_heii;
};

CollisionalCoefficients collisional_coefficients(double t) {
  const double root = std::sqrt(t), t3 = t * 1e-3, t6 = t * 1e-6, cen = cen_factor(t);
  const double hydrogenic = 1.0 / root / std::pow(t3, 0.2) / (1.0 + std::pow(t6, 0.7));
  CollisionalCoefficients c{};
  c.recombination_hii = 8.40e-11 * hydrogenic;
  c.recombination_heii = 1.50e-10 * std::pow(t, -0.6353);
  c.dielectronic_heii = 1.9e-3 * std::pow(t, -1.5) * std::exp(-470000.0 / t) * (1.0 + 0.3 * std::exp(-94000.0 / t));
  c.recombination_heiii = 3.36e-10 * hydrogenic;
  c.ionisation_hi = 5.85e-11 * root * cen * std::exp(-157809.1 / t);
  c.ionisation_hei = 2.38e-11 * root * cen * std::exp(-285335.4 / t);
  c.ionisation_heii = 5.68e-12 * root * cen * std::exp(-631515.0 / t);
  return c;
}

// Abundances at temperature t and electron fraction x = n_e / n_H: each species' ionisation per
// electron (collisional plus photo-ionisation divided by n_e) against its recombination.
IonisationState abundances_at(double t, double x, double n_h, const UvBackground& uv) {
  const CollisionalCoefficients c = collisional_coefficients(t);
  const double n_e = std::max(x, 1e-15) * n_h;
  const double ionise_hi = c.ionisation_hi + uv.ionisation[hydrogen] / n_e;
  const double ionise_hei = c.ionisation_hei + uv.ionisation[helium] / n_e;
  const double ionise_heii = c.ionisation_heii + uv.ionisation[helium_ion] / n_e;
  const double recombine_heii = c.recombination_heii + c.dielectronic_heii;
  IonisationState s;
  s.temperature = t;
  s.hi = c.recombination_hii / (c.recombination_hii + ionise_hi);
  s.hii = ionise_hi / (c.recombination_hii + ionise_hi);
  const double denominator = recombine_heii * c.recombination_heiii + ionise_hei * c.recombination_heiii + ionise_hei * ionise_heii;
  s.hei = helium_per_hydrogen * recombine_heii * c.recombination_heiii / denominator;
  s.heii = helium_per_hydrogen * ionise_hei * c.recombination_heiii / denominator;
  s.heiii = helium_per_hydrogen * ionise_hei * ionise_heii / denominator;
  s.electrons = s.hii + s.heii + 2.0 * s.heiii;
  return s;
}

// mu of a gas with x electrons per hydrogen atom: rho / (m_H n_total), rho = m_H n_H / X.
double mean_molecular_weight(double x) { return 1.0 / (hydrogen_mass_fraction * (1.0 + helium_per_hydrogen + x)); }

// RAMSES' J21 evolution (cooling_module J0simple), relative to J21: off before z_reion.
double power_law_evolution(double redshift, double z_reion) {
  if (redshift > z_reion) return 0.0;
  const double a = 1.0 / (1.0 + redshift);
  if (a < 0.25) return 4.0 * a;
  if (a < 1.0 / 3.0) return 1.0;
  return 1.0 / std::pow(3.0 * a, 3);
}

// Log-linear interpolation in a node list (log10 T, log10 Lambda).
struct CurveNode {
  double log_t, log_lambda;
};

// Solar-metallicity metal-line cooling in collisional ionisation equilibrium, H and He removed:
// nodes read off Sutherland & Dopita (1993) to about 0.15 dex (its peak of ~5e-22 erg cm^3/s near
// 2e5 K, the iron bump near 1e6 K, the fall to ~6e-24 above 3e7 K).
constexpr CurveNode sutherland_dopita_metals[] = {
    {3.9, -27.0}, {4.0, -24.0}, {4.2, -22.7}, {4.5, -22.3}, {5.0, -21.4}, {5.3, -21.3}, {5.5, -21.5}, {5.8, -21.7},
    {6.0, -21.75}, {6.3, -21.9}, {6.6, -22.4}, {7.0, -22.55}, {7.5, -23.05}, {8.0, -23.12}, {8.5, -23.2}};

}  // namespace

UvBackground uv_background(const UvSettings& settings, double redshift) {
  UvBackground uv;
  if (redshift > settings.z_reion) return uv;
  if (settings.haardt_madau) {
    if (redshift >= 15.0) return uv;
    // ln rate = a + b z + c z^2 (Theuns et al. 1998 fits to Haardt & Madau 1996), times 0.74627.
    constexpr double normalisation = 0.74627;
    constexpr double ionisation_fit[3][3] = {{-31.04, 2.795, -0.5589}, {-31.08, 2.822, -0.5664}, {-34.30, 1.826, -0.3899}};
    constexpr double heating_fit[3][3] = {{-56.62, 2.788, -0.5594}, {-56.06, 2.800, -0.5532}, {-58.67, 1.888, -0.3947}};
    const double z = redshift;
    for (int s = 0; s < 3; ++s) {
      uv.ionisation[static_cast<std::size_t>(s)] = normalisation * std::exp(ionisation_fit[s][0] + ionisation_fit[s][1] * z + ionisation_fit[s][2] * z * z);
      uv.heating[static_cast<std::size_t>(s)] = normalisation * std::exp(heating_fit[s][0] + heating_fit[s][1] * z + heating_fit[s][2] * z * z);
    }
    return uv;
  }
  const double j = settings.j21 * 1e-21 * power_law_evolution(redshift, settings.z_reion);
  if (j <= 0.0) return uv;
  // Theuns et al. (1998): J(nu) = J (nu / nu_HI)^-alpha over hydrogenic (HI, HeII) and the Osterbrock
  // fit (HeI) cross-sections; the HeI and HeII thresholds lie at 0.553^-1 and 0.249^-1 nu_HI.
  const double alpha = settings.a_spec;
  const double hei_shift = std::pow(0.553, alpha), heii_shift = std::pow(0.249, alpha);
  uv.ionisation[hydrogen] = 1.26e10 * j / (3.0 + alpha);
  uv.ionisation[helium] = 1.48e10 * j * hei_shift * (1.66 / (alpha + 2.05) - 0.66 / (alpha + 3.05));
  uv.ionisation[helium_ion] = 3.34e9 * j * heii_shift / (3.0 + alpha);
  uv.heating[hydrogen] = 2.91e-1 * j / ((2.0 + alpha) * (3.0 + alpha));
  uv.heating[helium] = 5.84e-1 * j * hei_shift * (1.66 / (alpha + 1.05) - 2.32 / (alpha + 2.05) + 0.66 / (alpha + 3.05));
  uv.heating[helium_ion] = 2.92e-1 * j * heii_shift / ((2.0 + alpha) * (3.0 + alpha));
  return uv;
}

IonisationState ionisation_equilibrium(double n_h, double t2, const UvBackground& uv) {
  // The electron fraction x is the root of g(x) = x_equilibrium(T(x)) - x, T(x) = mu(x) T2, on
  // [x_min, 1 + 2 y]: g > 0 at the low end (anything ionised gives electrons), g <= 0 at full
  // ionisation. Brent's method in ln x, so that a nearly neutral gas is resolved relatively.
  const double x_max = 1.0 + 2.0 * helium_per_hydrogen;
  auto g = [&](double log_x) {
    const double x = std::exp(log_x);
    return abundances_at(t2 * mean_molecular_weight(x), x, n_h, uv).electrons - x;
  };
  double a = std::log(1e-15), b = std::log(x_max);
  double fa = g(a), fb = g(b);
  double root = b;
  if (fa <= 0.0) {
    root = a;
  } else if (fb < 0.0) {
    double c = a, fc = fa, d = b - a, e = d;
    for (int iteration = 0; iteration < 200; ++iteration) {
      if ((fb > 0.0) == (fc > 0.0)) {
        c = a;
        fc = fa;
        d = e = b - a;
      }
      if (std::fabs(fc) < std::fabs(fb)) {
        a = b, b = c, c = a;
        fa = fb, fb = fc, fc = fa;
      }
      const double tolerance = 1e-13, half = 0.5 * (c - b);
      if (std::fabs(half) <= tolerance || fb == 0.0) break;
      if (std::fabs(e) >= tolerance && std::fabs(fa) > std::fabs(fb)) {
        double p, q;
        const double s = fb / fa;
        if (a == c) {
          p = 2.0 * half * s;
          q = 1.0 - s;
        } else {
          const double qa = fa / fc, r = fb / fc;
          p = s * (2.0 * half * qa * (qa - r) - (b - a) * (r - 1.0));
          q = (qa - 1.0) * (r - 1.0) * (s - 1.0);
        }
        if (p > 0.0) q = -q;
        p = std::fabs(p);
        if (2.0 * p < std::min(3.0 * half * q - std::fabs(tolerance * q), std::fabs(e * q))) {
          e = d;
          d = p / q;
        } else {
          d = e = half;
        }
      } else {
        d = e = half;
      }
      a = b;
      fa = fb;
      b += std::fabs(d) > tolerance ? d : (half > 0.0 ? tolerance : -tolerance);
      fb = g(b);
    }
    root = b;
  }
  const double x = std::exp(root);
  IonisationState s = abundances_at(t2 * mean_molecular_weight(x), x, n_h, uv);
  s.mu = mean_molecular_weight(s.electrons);
  return s;
}

double solar_metal_cooling(double temperature) {
  const double log_t = std::log10(std::max(temperature, 1e-10));
  // CII 158 micron fine-structure line: Koyama & Inutsuka (2002) 2e-26 x 14 sqrt(T) exp(-92 / T).
  const double fine_structure = 2.8e-28 * std::sqrt(temperature) * std::exp(-92.0 / temperature);
  const auto& nodes = sutherland_dopita_metals;
  const std::size_t n = std::size(nodes);
  double log_lambda;
  if (log_t < nodes[0].log_t) {
    return fine_structure;
  } else if (log_t >= nodes[n - 1].log_t) {
    log_lambda = nodes[n - 1].log_lambda + 0.5 * (log_t - nodes[n - 1].log_t);  // bremsstrahlung-like
  } else {
    std::size_t i = 0;
    while (nodes[i + 1].log_t <= log_t) ++i;
    const double w = (log_t - nodes[i].log_t) / (nodes[i + 1].log_t - nodes[i].log_t);
    log_lambda = nodes[i].log_lambda + w * (nodes[i + 1].log_lambda - nodes[i].log_lambda);
  }
  return fine_structure + std::pow(10.0, log_lambda);
}

CoolingRates cooling_rates(double n_h, double t2, double redshift, const UvBackground& uv) {
  const IonisationState s = ionisation_equilibrium(n_h, t2, uv);
  const double t = s.temperature, root = std::sqrt(t), t3 = t * 1e-3, t6 = t * 1e-6, cen = cen_factor(t);
  const double e = s.electrons;  // all per n_H: products of two are the rates per n_H^2
  const double hydrogenic = root / std::pow(t3, 0.2) / (1.0 + std::pow(t6, 0.7));
  // Katz, Weinberg & Hernquist (1996) Table 2 cooling rates [erg cm^3 / s].
  const double collisional_ionisation = (1.27e-21 * std::exp(-157809.1 / t) * s.hi + 9.38e-22 * std::exp(-285335.4 / t) * s.hei +
                                         4.95e-22 * std::exp(-631515.0 / t) * s.heii) * root * cen * e;
  const double recombination = (8.70e-27 * hydrogenic * s.hii + 1.55e-26 * std::pow(t, 0.3647) * s.heii + 3.48e-26 * hydrogenic * s.heiii) * e;
  const double dielectronic = 1.24e-13 * std::pow(t, -1.5) * std::exp(-470000.0 / t) * (1.0 + 0.3 * std::exp(-94000.0 / t)) * s.heii * e;
  // Collisional excitation: HI (n = 2), HeII, and HeI's triplet through He+ (n_e^2 n_He+).
  const double excitation = (7.50e-19 * std::exp(-118348.0 / t) * s.hi + 5.54e-17 * std::pow(t, -0.397) * std::exp(-473638.0 / t) * s.heii) * cen * e +
                            9.10e-27 * std::pow(t, -0.1687) * std::exp(-13179.0 / t) * cen * e * e * n_h * s.heii;
  // Bremsstrahlung with the Gaunt factor of Hui & Gnedin (1997).
  const double gaunt = 1.1 + 0.34 * std::exp(-std::pow(5.5 - std::log10(t), 2) / 3.0);
  const double bremsstrahlung = 1.42e-27 * gaunt * root * (s.hii + s.heii + 4.0 * s.heiii) * e;
  CoolingRates r;
  r.cooling = collisional_ionisation + recombination + dielectronic + excitation + bremsstrahlung;
  r.heating = uv.heating[hydrogen] * s.hi / n_h + uv.heating[helium] * s.hei / n_h + uv.heating[helium_ion] * s.heii / n_h;
  // Compton exchange with the CMB: 5.406e-36 (1 + z)^4 n_e (T - T_CMB) erg / cm^3 / s.
  const double compton = 5.406e-36 * std::pow(1.0 + redshift, 4) * e;
  r.compton_cooling = compton * t;
  r.compton_heating = compton * cmb_temperature_today * (1.0 + redshift);
  r.metal = solar_metal_cooling(t);
  r.mu = s.mu;
  return r;
}

}  // namespace kosmo::cooling
