#pragma once
// The radiative cooling of hot gas of solar abundances in collisional ionisation equilibrium:
// Sutherland & Dopita (1993, ApJS 88, 253) Table 6, the solar ([Fe/H] = 0) CIE curve, its net cooling
// function at n_H = 1 cm^-3 (so Lambda_net / n_H^2) for log T = 4.2 ... 8.5 in steps of 0.05.
// The ISM cooling function (ism_cooling.hpp) uses it above 10^4.2 K, where Koyama & Inutsuka's fit
// no longer holds (it is a fit for T <= 10^4 K and, extended, radiates ~1000 times too much at
// 10^6 K). Kim & Ostriker (2015, ApJ 802, 99, §2) join the two curves at the same temperature;
// RAMSES' cooling_module_ism switches to a fit of the same Sutherland & Dopita curve above 10^4 K.

namespace kosmo::cooling {

inline constexpr double collisional_equilibrium_minimum_temperature = 15848.931924611134;  // 10^4.2 K

// Lambda_net / n_H^2 [erg cm^3 / s] at T [K] >= 10^4.2 K: the table interpolated linearly in
// log T - log Lambda; above 10^8.5 K, free-free emission's Lambda proportional to sqrt(T).
double collisional_equilibrium_cooling(double temperature);

}  // namespace kosmo::cooling
