#pragma once
// The interstellar-medium cooling function of non-cosmological runs (&COOLING_PARAMS
// cooling_ism=.true.; RAMSES cooling_module_ism after Audit & Hennebelle 2005). kosmo uses the
// published fit of Koyama & Inutsuka (2002, ApJ 564, L97, eq. 4, with the typographical correction of
// Vazquez-Semadeni et al. 2007): photoelectric heating Gamma = 2e-26 erg/s per hydrogen atom and
//     Lambda / Gamma = 1e7 exp(-118400 / (T + 1000)) + 1.4e-2 sqrt(T) exp(-92 / T)  cm^3,
// the net loss per volume being n (n Lambda - Gamma). That fit holds below ~10^4 K; above 10^4.2 K
// Lambda is Sutherland & Dopita's (1993) solar collisional-equilibrium curve instead
// (collisional_equilibrium_cooling.hpp), the two joined as in Kim & Ostriker (2015, ApJ 802, 99,
// §2). Its thermal equilibrium has the two stable phases of the neutral ISM (a warm one near 8000 K
// below n ~ 1 cm^-3, a cold one below 100 K).
// As RAMSES, the temperature is T = mu_gas T2 and the gas holds n_H k T / (gamma - 1) per volume.
#include "cooling/cooling_solver.hpp"

namespace kosmo::cooling {

// Net cooling n Lambda - Gamma per hydrogen atom [erg/s] at n_H [1/cm^3] and T [K].
double ism_net_cooling(double n_h, double temperature);

TemperatureRate ism_temperature_rate(double gamma, double mu_gas, double n_h, double t2);

}  // namespace kosmo::cooling
