"""Linear-theory cosmology helpers (numpy only), the Python twin of src/cosmology/friedmann.hpp.

``Cosmology`` gives the Lambda-CDM background with curvature (E(a) = H/H0, cosmic time, RAMSES'
super-comoving time tau with d tau = H0 dt / a^2 and tau(1) = 0 [Martel & Shapiro 1998; RAMSES
amr/init_time.f90 friedman]), the linear growth factor D(a) normalised to D(1) = 1 with its rate
f = d ln D / d ln a, and the Eisenstein & Hu (1998, ApJ 496, 605) transfer functions (with baryon
oscillations, and the "no-wiggle" shape). ``LinearPowerSpectrum`` is P(k, a) = A k^n_s T(k)^2 D(a)^2
with A fixed by sigma8 in a top hat of 8 Mpc/h.

Units: times in 1/H0, k in h/Mpc, lengths in Mpc/h, P in (Mpc/h)^3, a = 1 today.

    >>> from kosmo.cosmology import Cosmology, LinearPowerSpectrum
    >>> c = Cosmology(omega_m=0.3, omega_l=0.7, omega_b=0.045, h0=70.0)
    >>> round(c.age, 4), round(float(c.growth_factor(0.5)), 4)
    (0.9641, 0.6118)

The integrals are written in s = sqrt(a), where the integrands are smooth (see friedmann.hpp):
dt = 2 s^2 ds / sqrt(P), dtau = 2 ds / (s^2 sqrt(P)), da / (a E)^3 = 2 s^4 ds / P^1.5 with
P(s) = a^3 E^2 = omega_m + omega_k s^2 + omega_l s^6, and evaluated with composite Gauss-Legendre
rules; results agree with the C++ code to ~1e-13.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

__all__ = [
    "Cosmology",
    "LinearPowerSpectrum",
    "hubble_time_in_gyr",
    "top_hat_variance",
    "top_hat_window",
]

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(16)


def _gauss_legendre(f: Callable[[np.ndarray], np.ndarray], edges: np.ndarray) -> float:
    """Sum of the 16-point Gauss-Legendre rule over the panels between consecutive ``edges``."""
    lo, hi = edges[:-1, None], edges[1:, None]
    half = 0.5 * (hi - lo)
    x = 0.5 * (hi + lo) + half * _NODES[None, :]
    return float(np.sum(half * _WEIGHTS[None, :] * f(x)))


def hubble_time_in_gyr(h0: float) -> float:
    """1/H0 in Gyr for h0 in km/s/Mpc (Mpc / km over a Julian Gyr, 977.79 / h0)."""
    return 3.0856775814913673e19 / 3.15576e16 / h0


class Cosmology:
    """Lambda-CDM background, linear growth and Eisenstein & Hu transfer functions.

    ``omega_m + omega_l + omega_k`` must be 1 (as RAMSES friedman requires); ``h0`` is in km/s/Mpc
    (RAMSES h0); ``t_cmb`` (K) enters the transfer functions only.
    """

    def __init__(self, omega_m: float = 0.3, omega_l: float = 0.7, omega_k: float = 0.0,
                 omega_b: float = 0.045, h0: float = 70.0, t_cmb: float = 2.7255):
        if omega_m <= 0.0:
            raise ValueError(f"omega_m must be positive (got {omega_m})")
        if abs(omega_m + omega_l + omega_k - 1.0) > 1e-6:
            raise ValueError(f"omega_m + omega_l + omega_k must be 1 (got {omega_m} + {omega_l} + {omega_k})")
        if not 0.0 <= omega_b <= omega_m:
            raise ValueError(f"omega_b must be in [0, omega_m] (got {omega_b})")
        if h0 <= 0.0 or t_cmb <= 0.0:
            raise ValueError("h0 and t_cmb must be positive")
        self.omega_m, self.omega_l, self.omega_k = float(omega_m), float(omega_l), float(omega_k)
        self.omega_b, self.h0, self.t_cmb = float(omega_b), float(h0), float(t_cmb)
        self.age = self._cosmic_time(1.0)
        self._growth_today = self._growth_unnormalised(1.0)
        self._eisenstein_hu_constants()

    # ------------------------------------------------------------------------------------------
    # Background
    # ------------------------------------------------------------------------------------------
    def _polynomial(self, s: np.ndarray) -> np.ndarray:
        s2 = s * s
        value = self.omega_m + self.omega_k * s2 + self.omega_l * s2 ** 3
        if np.any(value <= 0.0):
            raise ValueError("H^2 <= 0 in the range integrated (the model turns around)")
        return value

    def hubble_ratio(self, a):
        """E(a) = H(a) / H0 = sqrt(omega_m a^-3 + omega_k a^-2 + omega_l)."""
        a = np.asarray(a, dtype=float)
        return np.sqrt(self.omega_m / a ** 3 + self.omega_k / a ** 2 + self.omega_l)

    def hubble_ratio_log_slope(self, a):
        """d ln E / d ln a."""
        a = np.asarray(a, dtype=float)
        return -(3.0 * self.omega_m / a ** 3 + 2.0 * self.omega_k / a ** 2) / (2.0 * self.hubble_ratio(a) ** 2)

    def omega_matter_at(self, a):
        a = np.asarray(a, dtype=float)
        return self.omega_m / (a ** 3 * self.hubble_ratio(a) ** 2)

    def _cosmic_time(self, a: float) -> float:
        s_max = math.sqrt(a)
        return _gauss_legendre(lambda s: 2.0 * s * s / np.sqrt(self._polynomial(s)), np.linspace(0.0, s_max, 33))

    def cosmic_time(self, a):
        """H0 t(a) = int_0^a da' / (a' E(a')) since the big bang (Einstein-de Sitter: 2/3 a^1.5)."""
        return np.vectorize(self._cosmic_time, otypes=[float])(a)

    def _super_comoving_time(self, a: float) -> float:
        if a <= 0.0:
            raise ValueError(f"expansion factor must be positive (got {a})")
        log_s = 0.5 * math.log(a)
        if log_s == 0.0:
            return 0.0
        # Panels of at most 0.05 in ln s: d tau = 2 / (s sqrt(P)) d ln s.
        edges = np.linspace(log_s, 0.0, int(abs(log_s) / 0.05) + 2)
        integral = _gauss_legendre(lambda u: 2.0 / (np.exp(u) * np.sqrt(self._polynomial(np.exp(u)))), edges)
        return -integral  # edges run from ln s to 0 (decreasing when a > 1): tau = -int_{ln s}^0

    def super_comoving_time(self, a):
        """RAMSES' tau(a) = -int_a^1 da' / (a'^3 E(a')), tau(1) = 0 (Einstein-de Sitter: 2 (1 - a^-1/2))."""
        return np.vectorize(self._super_comoving_time, otypes=[float])(a)

    @staticmethod
    def _invert(function, derivative, target, lo, hi, log_space):
        """Newton iteration on function(x) = target, safeguarded by the bracket [lo, hi]."""
        x = 0.5 * (lo + hi)
        for _ in range(200):
            value = math.exp(x) if log_space else x
            residual = function(value) - target
            if residual > 0.0:
                hi = x
            else:
                lo = x
            step = residual / derivative(value)
            following = x - step
            if not lo < following < hi:
                following = 0.5 * (lo + hi)
            if abs(following - x) <= 1e-15 * max(1.0, abs(x)):
                x = following
                break
            x = following
        return math.exp(x) if log_space else x

    def expansion_factor_at_time(self, t):
        """Inverse of cosmic_time."""
        def one(target: float) -> float:
            if target <= 0.0:
                return 0.0
            hi = max(1.0, (1.5 * target) ** (2.0 / 3.0))
            while self._cosmic_time(hi) < target:
                hi *= 2.0
            return self._invert(self._cosmic_time, lambda a: 1.0 / (a * float(self.hubble_ratio(a))), target, 0.0, hi,
                                False)
        return np.vectorize(one, otypes=[float])(t)

    def expansion_factor_at_super_comoving_time(self, tau):
        """Inverse of super_comoving_time (Newton in ln a, d tau / d ln a = 1 / (a^2 E))."""
        def one(target: float) -> float:
            log_lo, log_hi = -1.0, 0.0
            while self._super_comoving_time(math.exp(log_lo)) > target:
                log_hi, log_lo = log_lo, 2.0 * log_lo
            while self._super_comoving_time(math.exp(log_hi)) < target:
                log_lo, log_hi = log_hi, 2.0 * log_hi + 1.0
            return self._invert(self._super_comoving_time,
                                lambda a: 1.0 / (a * a * float(self.hubble_ratio(a))), target, log_lo, log_hi, True)
        return np.vectorize(one, otypes=[float])(tau)

    # ------------------------------------------------------------------------------------------
    # Linear growth (Heath 1977; Peebles 1980 eq. 10.12; RAMSES d1a / fpeebl)
    # ------------------------------------------------------------------------------------------
    def _growth_integral(self, a: float) -> float:
        def integrand(s):
            polynomial = self._polynomial(s)
            return 2.0 * s ** 4 / (polynomial * np.sqrt(polynomial))
        return _gauss_legendre(integrand, np.linspace(0.0, math.sqrt(a), 33))

    def _growth_unnormalised(self, a: float) -> float:
        return float(self.hubble_ratio(a)) * self._growth_integral(a)

    def growth_factor(self, a):
        """D(a) = E(a) int_0^a da'/(a'E)^3, normalised to D(1) = 1. Exact growing mode for matter, curvature
        and a cosmological constant; not valid with radiation or w != -1. Einstein-de Sitter: D = a."""
        return np.vectorize(lambda x: self._growth_unnormalised(x) / self._growth_today, otypes=[float])(a)

    def growth_rate(self, a):
        """f = d ln D / d ln a = d ln E / d ln a + 1 / (a^2 E^3 int_0^a da'/(a'E)^3) (RAMSES fpeebl)."""
        def one(x: float) -> float:
            e = float(self.hubble_ratio(x))
            return float(self.hubble_ratio_log_slope(x)) + 1.0 / (x * x * e ** 3 * self._growth_integral(x))
        return np.vectorize(one, otypes=[float])(a)

    # ------------------------------------------------------------------------------------------
    # Eisenstein & Hu (1998), following the authors' tf_fit.c conventions
    # ------------------------------------------------------------------------------------------
    def _eisenstein_hu_constants(self) -> None:
        h = self.h0 / 100.0
        omh2 = self.omega_m * h * h
        obh2 = self.omega_b * h * h
        fb = self.omega_b / self.omega_m
        theta = self.t_cmb / 2.7
        self._h, self._omh2, self._fb, self._theta = h, omh2, fb, theta
        self.redshift_equality = 2.50e4 * omh2 / theta ** 4             # eq. 2 (this is 1 + z_eq)
        self.wavenumber_equality = 7.46e-2 * omh2 / theta ** 2          # eq. 3, 1/Mpc
        b1 = 0.313 * omh2 ** -0.419 * (1.0 + 0.607 * omh2 ** 0.674)     # eq. 4
        b2 = 0.238 * omh2 ** 0.223
        self.redshift_drag = 1291.0 * omh2 ** 0.251 / (1.0 + 0.659 * omh2 ** 0.828) * (1.0 + b1 * obh2 ** b2)
        self.sound_horizon_fit = 44.5 * math.log(9.83 / omh2) / math.sqrt(1.0 + 10.0 * obh2 ** 0.75)  # eq. 26
        self._alpha_gamma = 1.0 - 0.328 * math.log(431.0 * omh2) * fb + 0.38 * math.log(22.3 * omh2) * fb * fb
        self.sound_horizon = 0.0
        if obh2 <= 0.0:
            return
        ratio_drag = 31.5 * obh2 / theta ** 4 * (1000.0 / (1.0 + self.redshift_drag))   # eq. 5
        ratio_equality = 31.5 * obh2 / theta ** 4 * (1000.0 / self.redshift_equality)
        keq = self.wavenumber_equality
        self.sound_horizon = (2.0 / (3.0 * keq) * math.sqrt(6.0 / ratio_equality)        # eq. 6, Mpc
                              * math.log((math.sqrt(1.0 + ratio_drag) + math.sqrt(ratio_drag + ratio_equality))
                                         / (1.0 + math.sqrt(ratio_equality))))
        self.silk_wavenumber = 1.6 * obh2 ** 0.52 * omh2 ** 0.73 * (1.0 + (10.4 * omh2) ** -0.95)  # eq. 7
        a1 = (46.9 * omh2) ** 0.670 * (1.0 + (32.1 * omh2) ** -0.532)                     # eq. 11
        a2 = (12.0 * omh2) ** 0.424 * (1.0 + (45.0 * omh2) ** -0.582)
        self._alpha_c = a1 ** -fb * a2 ** -(fb ** 3)
        bb1 = 0.944 / (1.0 + (458.0 * omh2) ** -0.708)                                     # eq. 12
        bb2 = (0.395 * omh2) ** -0.0266
        self._beta_c = 1.0 / (1.0 + bb1 * ((1.0 - fb) ** bb2 - 1.0))
        y = self.redshift_equality / (1.0 + self.redshift_drag)                            # eq. 15
        root = math.sqrt(1.0 + y)
        g_of_y = y * (-6.0 * root + (2.0 + 3.0 * y) * math.log((root + 1.0) / (root - 1.0)))
        self._alpha_b = 2.07 * keq * self.sound_horizon * (1.0 + ratio_drag) ** -0.75 * g_of_y  # eq. 14
        self._beta_b = 0.5 + fb + (3.0 - 2.0 * fb) * math.sqrt((17.2 * omh2) ** 2 + 1.0)    # eq. 24
        self._beta_node = 8.41 * omh2 ** 0.435                                              # eq. 23

    def transfer_eisenstein_hu(self, k):
        """EH98 T(k) with baryon acoustic oscillations (eqs. 16-24), k in h/Mpc; needs omega_b > 0."""
        if self.sound_horizon <= 0.0:
            raise ValueError("the Eisenstein & Hu transfer function with baryons needs omega_b > 0")
        k = np.asarray(k, dtype=float) * self._h  # 1/Mpc
        q = k / (13.41 * self.wavenumber_equality)
        ks = k * self.sound_horizon

        def pressureless(alpha, beta):  # eqs. 19-20
            logarithm = np.log(math.e + 1.8 * beta * q)
            c = 14.2 / alpha + 386.0 / (1.0 + 69.9 * q ** 1.08)
            return logarithm / (logarithm + c * q * q)

        f = 1.0 / (1.0 + (ks / 5.4) ** 4)  # eq. 18
        transfer_cdm = f * pressureless(1.0, self._beta_c) + (1.0 - f) * pressureless(self._alpha_c, self._beta_c)
        shifted_horizon = self.sound_horizon / np.cbrt(1.0 + (self._beta_node / ks) ** 3)  # eq. 22
        x = k * shifted_horizon
        transfer_baryon = np.sin(x) / x * (pressureless(1.0, 1.0) / (1.0 + (ks / 5.2) ** 2)      # eq. 21
                                           + self._alpha_b / (1.0 + (self._beta_b / ks) ** 3)
                                           * np.exp(-(k / self.silk_wavenumber) ** 1.4))
        return self._fb * transfer_baryon + (1.0 - self._fb) * transfer_cdm  # eq. 16

    def transfer_no_wiggle(self, k):
        """EH98 smooth T(k) without oscillations (eqs. 26-31), k in h/Mpc."""
        k = np.asarray(k, dtype=float) * self._h  # 1/Mpc
        gamma = self._omh2 * (self._alpha_gamma + (1.0 - self._alpha_gamma)
                              / (1.0 + (0.43 * k * self.sound_horizon_fit) ** 4))  # eq. 30
        q = k * self._theta ** 2 / gamma  # eq. 28
        logarithm = np.log(2.0 * math.e + 1.8 * q)  # eq. 29
        c = 14.2 + 731.0 / (1.0 + 62.5 * q)
        return logarithm / (logarithm + c * q * q)


def top_hat_window(x):
    """W(x) = 3 (sin x - x cos x) / x^3, the Fourier transform of the spherical top hat."""
    x = np.asarray(x, dtype=float)
    small = np.abs(x) < 1e-2
    safe = np.where(small, 1.0, x)
    x2 = x * x
    return np.where(small, 1.0 - x2 / 10.0 + x2 * x2 / 280.0, 3.0 * (np.sin(safe) - safe * np.cos(safe)) / safe ** 3)


def top_hat_variance(power: Callable[[np.ndarray], np.ndarray], radius: float, x_max: float = 1e4) -> float:
    """sigma^2(R) = 1/(2 pi^2) int k^2 P(k) W(kR)^2 dk for a vectorised P(k): Gauss-Legendre panels in ln x
    for x = kR < 1 and panels of width pi/4 in x beyond, up to x_max."""
    def per_log_x(u):
        x = np.exp(u)
        k = x / radius
        return k ** 3 * power(k) * top_hat_window(x) ** 2

    def per_x(x):
        k = x / radius
        return k * k * power(k) * top_hat_window(x) ** 2 / radius

    total = _gauss_legendre(per_log_x, np.linspace(math.log(1e-8), 0.0, 75))
    edges = np.append(np.arange(1.0, x_max, math.pi / 4.0), x_max)
    total += _gauss_legendre(per_x, edges)
    return total / (2.0 * math.pi ** 2)


class LinearPowerSpectrum:
    """P(k, a) = A k^n_s T(k)^2 D(a)^2 in (Mpc/h)^3, k in h/Mpc, with A such that sigma(8 Mpc/h, a=1) = sigma8.

    ``model`` is "eisenstein_hu" (with baryon oscillations) or "no_wiggle"."""

    def __init__(self, cosmology: Cosmology, n_s: float = 0.96, sigma8: float = 0.8, model: str = "eisenstein_hu"):
        if model not in ("eisenstein_hu", "no_wiggle"):
            raise ValueError(f"unknown transfer function model {model!r}")
        if sigma8 <= 0.0:
            raise ValueError("sigma8 must be positive")
        self.cosmology, self.n_s, self.sigma8, self.model = cosmology, float(n_s), float(sigma8), model
        self.amplitude = 1.0
        self.amplitude = sigma8 ** 2 / top_hat_variance(self.power, 8.0)

    def transfer(self, k):
        if self.model == "eisenstein_hu":
            return self.cosmology.transfer_eisenstein_hu(k)
        return self.cosmology.transfer_no_wiggle(k)

    def power(self, k, a: float = 1.0):
        k = np.asarray(k, dtype=float)
        growth = 1.0 if a == 1.0 else float(self.cosmology.growth_factor(a))
        return self.amplitude * k ** self.n_s * self.transfer(k) ** 2 * growth ** 2

    def sigma(self, radius: float, a: float = 1.0) -> float:
        """sigma(R) in a top hat of R Mpc/h at expansion factor a."""
        growth = 1.0 if a == 1.0 else float(self.cosmology.growth_factor(a))
        return growth * math.sqrt(top_hat_variance(self.power, radius))
