"""Non-linear matter power spectrum with halofit (numpy only).

The fitting formula of Smith et al. (2003, MNRAS 341, 1311; "S03"), appendix C, with the revised
coefficients of Takahashi et al. (2012, ApJ 761, 152; "T12"), appendix, eqs. (A4)-(A13), for a
cosmological constant (w = -1, so T12's Omega_de (1 + w) terms vanish), with or without curvature,
and without massive neutrinos. Given the linear spectrum P_lin(k) at expansion factor a:

* sigma^2(R) = int Delta^2_L(k) exp(-k^2 R^2) d ln k, Delta^2_L = k^3 P_lin / (2 pi^2) (S03 eq. C5);
  the non-linear scale k_sigma = 1 / R with sigma(R) = 1 (Gaussian filter);
* n_eff = -3 - d ln sigma^2 / d ln R and C = -d^2 ln sigma^2 / d ln R^2 at R = 1/k_sigma (S03 C6-C7);
* Delta^2_NL = Delta^2_Q + Delta^2_H (S03 C1), y = k / k_sigma, f(y) = y/4 + y^2/8:
  Delta^2_Q = Delta^2_L (1 + Delta^2_L)^beta_n / (1 + alpha_n Delta^2_L) exp(-f(y))      (S03 C2)
  Delta^2_H = Delta^2_H' / (1 + mu_n / y + nu_n / y^2),                                   (S03 C3)
  Delta^2_H' = a_n y^(3 f1) / (1 + b_n y^f2 + (c_n f3 y)^(3 - gamma_n))                 (S03 C4)
  with the coefficients of T12 (A6)-(A13) and f1, f2, f3 of Omega_m(a) from S03 (C17)-(C18),
  interpolated in Omega_Lambda(a) / (1 - Omega_m(a)) between the open and the flat forms (as S03
  prescribe for Omega_m + Omega_Lambda != 1, and as CAMB's halofit.f90 does).

Units as in kosmo.cosmology: k in h/Mpc, P in (Mpc/h)^3, R in Mpc/h.

    >>> from kosmo.cosmology import Cosmology, LinearPowerSpectrum
    >>> from kosmo.halofit import halofit_power, nonlinear_ratio
    >>> linear = LinearPowerSpectrum(Cosmology(omega_m=0.3, omega_l=0.7), n_s=0.96, sigma8=0.8)
    >>> p_nl = halofit_power([0.1, 1.0], 1.0, linear)          # (Mpc/h)^3
    >>> ratio = nonlinear_ratio([0.1, 1.0], 1.0, linear)       # P_nl / P_lin

The linear spectrum may also be any vectorised callable P_lin(k) (already at expansion factor a;
e.g. CAMB's), with ``cosmology=`` giving Omega_m(a) and Omega_Lambda(a). Validated against CAMB's
``halofit_version='takahashi'`` (docs/cosmology.md, tests/python/test_halofit.py).

For the cosmological N-body acceptance test, :func:`measured_growth_ratio` forms
P(k, a_f) / [P(k, a_i) (D(a_f)/D(a_i))^2] from two measured spectra and
:func:`halofit_ratio_on_bins` the halofit P_nl / P_lin to compare it with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

from .cosmology import Cosmology, LinearPowerSpectrum

__all__ = [
    "GrowthRatio",
    "HalofitParameters",
    "gaussian_sigma_moments",
    "halofit_parameters",
    "halofit_parameters_at",
    "halofit_power",
    "halofit_ratio_on_bins",
    "measured_growth_ratio",
    "nonlinear_ratio",
    "nonlinear_scale",
]

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(16)

# Gaussian-filter integrals run over ln y, y = k R, from y = 1e-8 to y = 9 (exp(-81) ~ 1e-35), in
# 16-point Gauss-Legendre panels of ~0.125 in ln y. The part below y = 1e-8 is ~1e-8 y^(n+3) of sigma^2
# for a local slope n >= -2 (below 1e-16 for Lambda-CDM spectra, whose slope there is n_s ~ 1).
_LOG_Y_EDGES = np.linspace(math.log(1e-8), math.log(9.0), 166)
_HALF = 0.5 * np.diff(_LOG_Y_EDGES)[:, None]
_LOG_Y = (0.5 * (_LOG_Y_EDGES[1:] + _LOG_Y_EDGES[:-1]))[:, None] + _HALF * _NODES[None, :]
_LOG_Y_WEIGHTS = (_HALF * _WEIGHTS[None, :]).ravel()
_LOG_Y = _LOG_Y.ravel()
_Y2 = np.exp(2.0 * _LOG_Y)

# Range searched for the non-linear scale: R = 1/k_sigma in [1e-5, 1e4] Mpc/h.
_LOG_R_MIN, _LOG_R_MAX = math.log(1e-5), math.log(1e4)


def _dimensionless(power: Callable, k: np.ndarray) -> np.ndarray:
    """Delta^2_L(k) = k^3 P(k) / (2 pi^2)."""
    return k ** 3 * np.asarray(power(k), dtype=float) / (2.0 * math.pi ** 2)


def gaussian_sigma_moments(power: Callable, radius: float) -> tuple[float, float, float]:
    """(S0, S2, S4) with S_j = int Delta^2_L(k) (kR)^j exp(-k^2 R^2) d ln k for a vectorised P(k):
    S0 = sigma^2(R) in a Gaussian filter (S03 eq. C5), and
    d ln sigma^2 / d ln R = -2 S2 / S0,
    d^2 ln sigma^2 / d ln R^2 = (4 S4 - 4 S2) / S0 - 4 (S2 / S0)^2."""
    k = np.exp(_LOG_Y) / radius
    delta2 = _dimensionless(power, k) * np.exp(-_Y2) * _LOG_Y_WEIGHTS
    return float(np.sum(delta2)), float(np.sum(delta2 * _Y2)), float(np.sum(delta2 * _Y2 * _Y2))


def nonlinear_scale(power: Callable) -> tuple[float, float, float]:
    """(k_sigma, n_eff, C) of a linear spectrum (S03 eqs. C5-C7): sigma(1/k_sigma) = 1 in a Gaussian
    filter, n_eff = -3 - d ln sigma^2/d ln R and C = -d^2 ln sigma^2/d ln R^2 there.

    Newton's method on ln sigma^2(ln R) = 0 (the slope -2 S2/S0 is exact), safeguarded by bisection.
    Returns (inf, nan, nan) when sigma < 1 at R = 1e-5 Mpc/h (no non-linear scale: the spectrum is
    linear wherever halofit applies); raises ValueError when sigma > 1 at R = 1e4 Mpc/h."""
    def log_variance(log_r: float) -> tuple[float, float, float, float]:
        s0, s2, s4 = gaussian_sigma_moments(power, math.exp(log_r))
        if not s0 > 0.0:
            raise ValueError(f"sigma^2(R = {math.exp(log_r):.3g}) = {s0}: the linear power must be positive")
        return math.log(s0), s0, s2, s4

    lo, hi = _LOG_R_MIN, _LOG_R_MAX
    if log_variance(lo)[0] < 0.0:
        return math.inf, math.nan, math.nan
    if log_variance(hi)[0] > 0.0:
        raise ValueError("sigma(R) > 1 even at R = 1e4 Mpc/h: the linear spectrum is not a realistic one")
    x = 0.0  # R = 1 Mpc/h
    for _ in range(200):
        value, s0, s2, s4 = log_variance(x)
        if value > 0.0:
            lo = x
        else:
            hi = x
        following = x + value / (2.0 * s2 / s0)  # Newton: d ln sigma^2 / d ln R = -2 S2 / S0
        if not lo < following < hi:
            following = 0.5 * (lo + hi)
        if abs(following - x) < 1e-12:
            x = following
            break
        x = following
    _, s0, s2, s4 = log_variance(x)
    n_eff = -3.0 + 2.0 * s2 / s0
    curvature = -((4.0 * s4 - 4.0 * s2) / s0 - 4.0 * (s2 / s0) ** 2)
    return math.exp(-x), n_eff, curvature


@dataclass(frozen=True)
class HalofitParameters:
    """The non-linear scale, spectral index and curvature (S03 C5-C7), the density parameters at a,
    and the T12 coefficients (A6-A13) and S03 functions f1, f2, f3 (C17-C18) they give."""

    k_sigma: float
    n_eff: float
    curvature: float
    omega_m: float
    omega_l: float
    a_n: float = math.nan
    b_n: float = math.nan
    c_n: float = math.nan
    gamma_n: float = math.nan
    alpha_n: float = math.nan
    beta_n: float = math.nan
    mu_n: float = 0.0
    nu_n: float = math.nan
    f1: float = 1.0
    f2: float = 1.0
    f3: float = 1.0

    @property
    def linear(self) -> bool:
        """True when there is no non-linear scale (sigma < 1 down to R = 1e-5 Mpc/h)."""
        return not math.isfinite(self.k_sigma)


def _omega_functions(omega_m: float, omega_l: float) -> tuple[float, float, float]:
    """S03 eqs. (C17) (open, Omega_Lambda = 0) and (C18) (flat), interpolated linearly in
    Omega_Lambda / (1 - Omega_m) (S03 sect. C; CAMB halofit.f90); 1 when |1 - Omega_m| <= 0.01."""
    if abs(1.0 - omega_m) <= 0.01:
        return 1.0, 1.0, 1.0
    open_ = (omega_m ** -0.0732, omega_m ** -0.1423, omega_m ** 0.0725)   # (C17)
    flat = (omega_m ** -0.0307, omega_m ** -0.0585, omega_m ** 0.0743)    # (C18)
    fraction = omega_l / (1.0 - omega_m)
    return tuple(fraction * b + (1.0 - fraction) * a for a, b in zip(open_, flat))


def halofit_parameters(power: Callable, omega_m: float, omega_l: float) -> HalofitParameters:
    """Halofit parameters for the linear spectrum ``power`` (a vectorised P_lin(k), k in h/Mpc, at the
    expansion factor of interest) and the density parameters Omega_m(a), Omega_Lambda(a) at that epoch."""
    k_sigma, n, c = nonlinear_scale(power)
    f1, f2, f3 = _omega_functions(omega_m, omega_l)
    if not math.isfinite(k_sigma):
        return HalofitParameters(k_sigma, n, c, omega_m, omega_l, f1=f1, f2=f2, f3=f3)
    # Takahashi et al. (2012) eqs. (A6)-(A13), w = -1.
    return HalofitParameters(
        k_sigma, n, c, omega_m, omega_l,
        a_n=10.0 ** (1.5222 + 2.8553 * n + 2.3706 * n ** 2 + 0.9903 * n ** 3 + 0.2250 * n ** 4 - 0.6038 * c),  # A6
        b_n=10.0 ** (-0.5642 + 0.5864 * n + 0.5716 * n ** 2 - 1.5474 * c),                                     # A7
        c_n=10.0 ** (0.3698 + 2.0404 * n + 0.8161 * n ** 2 + 0.5869 * c),                                      # A8
        gamma_n=0.1971 - 0.0843 * n + 0.8460 * c,                                                              # A9
        alpha_n=abs(6.0835 + 1.3373 * n - 0.1959 * n ** 2 - 5.5274 * c),                                       # A10
        beta_n=2.0379 - 0.7354 * n + 0.3157 * n ** 2 + 1.2490 * n ** 3 + 0.3980 * n ** 4 - 0.1682 * c,         # A11
        mu_n=0.0,                                                                                              # A12
        nu_n=10.0 ** (5.2105 + 3.6902 * n),                                                                    # A13
        f1=f1, f2=f2, f3=f3)


def _nonlinear_dimensionless(k: np.ndarray, delta2_linear: np.ndarray, p: HalofitParameters) -> np.ndarray:
    """Delta^2_NL = Delta^2_Q + Delta^2_H (S03 eqs. C1-C4)."""
    y = k / p.k_sigma
    quasi_linear = (delta2_linear * (1.0 + delta2_linear) ** p.beta_n / (1.0 + p.alpha_n * delta2_linear)
                    * np.exp(-(y / 4.0 + y * y / 8.0)))                                          # C2
    halo_prime = p.a_n * y ** (3.0 * p.f1) / (1.0 + p.b_n * y ** p.f2 + (p.c_n * p.f3 * y) ** (3.0 - p.gamma_n))  # C4
    halo = halo_prime / (1.0 + p.mu_n / y + p.nu_n / (y * y))                                    # C3
    return quasi_linear + halo


def _resolve(a: float, source, cosmology, n_s: float, sigma8: float) -> tuple[Callable, Cosmology]:
    """(P_lin(k) at a, Cosmology) from a LinearPowerSpectrum, a Cosmology or a callable."""
    if isinstance(source, LinearPowerSpectrum):
        if cosmology is not None and cosmology is not source.cosmology:
            raise ValueError("give the cosmology through the LinearPowerSpectrum only")
        return (lambda k: source.power(k, a)), source.cosmology
    if isinstance(source, Cosmology):
        linear = LinearPowerSpectrum(source, n_s=n_s, sigma8=sigma8)
        return (lambda k: linear.power(k, a)), source
    if callable(source):
        if not isinstance(cosmology, Cosmology):
            raise ValueError("a linear power callable needs cosmology= (a kosmo.cosmology.Cosmology) for "
                             "Omega_m(a) and Omega_Lambda(a)")
        return source, cosmology
    raise TypeError("expected a LinearPowerSpectrum, a Cosmology or a callable P_lin(k)")


def _density_parameters(cosmology: Cosmology, a: float) -> tuple[float, float]:
    """Omega_m(a) = Omega_m / (a^3 E^2), Omega_Lambda(a) = Omega_Lambda / E^2."""
    e2 = float(cosmology.hubble_ratio(a)) ** 2
    return float(cosmology.omega_matter_at(a)), cosmology.omega_l / e2


def _check_a(a) -> float:
    a = float(a)
    if not a > 0.0:
        raise ValueError(f"the expansion factor must be positive (got {a})")
    return a


def halofit_parameters_at(a: float, linear, cosmology: Cosmology | None = None, n_s: float = 0.96,
                          sigma8: float = 0.8) -> HalofitParameters:
    """:class:`HalofitParameters` at expansion factor ``a`` for ``linear`` as in :func:`halofit_power`."""
    a = _check_a(a)
    power, cosmo = _resolve(a, linear, cosmology, n_s, sigma8)
    return halofit_parameters(power, *_density_parameters(cosmo, a))


def halofit_power(k, a: float, cosmology_or_linear_power, cosmology: Cosmology | None = None,
                  n_s: float = 0.96, sigma8: float = 0.8) -> np.ndarray:
    """Non-linear P(k) in (Mpc/h)^3 at expansion factor ``a`` (halofit, Takahashi et al. 2012), for k in
    h/Mpc (any shape, positive).

    ``cosmology_or_linear_power`` is one of
      * a :class:`~kosmo.cosmology.LinearPowerSpectrum` (its ``power(k, a)`` and its cosmology);
      * a :class:`~kosmo.cosmology.Cosmology` (then the Eisenstein & Hu spectrum with ``n_s``, ``sigma8``);
      * a vectorised callable P_lin(k) **already at expansion factor a**, with ``cosmology=`` giving
        Omega_m(a) and Omega_Lambda(a).
    With no non-linear scale (sigma < 1 in a Gaussian of R = 1e-5 Mpc/h) the linear spectrum is returned.
    """
    a = _check_a(a)
    power, cosmo = _resolve(a, cosmology_or_linear_power, cosmology, n_s, sigma8)
    k = np.asarray(k, dtype=float)
    if np.any(~(k > 0.0)):
        raise ValueError("wavenumbers must be positive")
    parameters = halofit_parameters(power, *_density_parameters(cosmo, a))
    linear = np.asarray(power(k), dtype=float)
    if parameters.linear:
        return linear
    delta2 = k ** 3 * linear / (2.0 * math.pi ** 2)
    return _nonlinear_dimensionless(k, delta2, parameters) * 2.0 * math.pi ** 2 / k ** 3


def nonlinear_ratio(k, a: float, linear, cosmology: Cosmology | None = None, n_s: float = 0.96,
                    sigma8: float = 0.8) -> np.ndarray:
    """P_nl(k) / P_lin(k) at expansion factor ``a``; arguments as :func:`halofit_power`."""
    a = _check_a(a)
    power, cosmo = _resolve(a, linear, cosmology, n_s, sigma8)
    k = np.asarray(k, dtype=float)
    return halofit_power(k, a, power, cosmology=cosmo) / np.asarray(power(k), dtype=float)


# ------------------------------------------------------------------------------------------------
# Comparison with a cosmological N-body run
# ------------------------------------------------------------------------------------------------

class GrowthRatio(NamedTuple):
    """``k`` (mean |k| of each bin) and ``ratio`` = P_f / (P_i (D_f / D_i)^2)."""

    k: np.ndarray
    ratio: np.ndarray


def measured_growth_ratio(pk_final, pk_initial, a_initial: float, a_final: float,
                          cosmology: Cosmology) -> GrowthRatio:
    """The growth of a run's power beyond linear theory, P(k, a_f) / [P(k, a_i) (D(a_f) / D(a_i))^2],
    from two :class:`kosmo.spectra.PowerSpectrum` measured on the same bins (same edges and box), with
    the growth factor D of ``cosmology`` (Heath 1977 integral; kosmo.cosmology). Linear growth gives 1;
    non-linear evolution gives halofit's P_nl / P_lin (:func:`halofit_ratio_on_bins`).

    The spectra are used as given: subtract (or not) the shot noise consistently before calling. Bins
    empty in either spectrum, or where P_i is not positive, give NaN."""
    a_initial, a_final = _check_a(a_initial), _check_a(a_final)
    if not np.array_equal(np.asarray(pk_final.edges), np.asarray(pk_initial.edges)):
        raise ValueError("the two spectra must be binned on the same edges")
    if not math.isclose(float(pk_final.boxlen), float(pk_initial.boxlen), rel_tol=1e-12):
        raise ValueError(f"the two spectra are of different boxes ({pk_final.boxlen} and {pk_initial.boxlen})")
    growth = float(cosmology.growth_factor(a_final)) / float(cosmology.growth_factor(a_initial))
    final = np.asarray(pk_final.power, dtype=float)
    initial = np.asarray(pk_initial.power, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(initial > 0.0, final / (initial * growth ** 2), np.nan)
    return GrowthRatio(np.asarray(pk_final.k, dtype=float).copy(), ratio)


def halofit_ratio_on_bins(k, a_final: float, cosmology: Cosmology, n_s: float = 0.96, sigma8: float = 0.8,
                          model: str = "eisenstein_hu") -> np.ndarray:
    """Halofit P_nl / P_lin at ``a_final`` for the Eisenstein & Hu linear spectrum (``model``
    "eisenstein_hu" or "no_wiggle", with ``n_s`` and ``sigma8``) of ``cosmology``.

    ``k`` is an array of wavenumbers (h/Mpc), or a :class:`kosmo.spectra.PowerSpectrum`: then each
    bin's value is sum P_nl / sum P_lin over the grid modes of that bin (every mode of the n^3 grid
    with edge_i <= |k| < edge_{i+1}), the expectation of the ratio of bin-averaged spectra that
    :func:`measured_growth_ratio` measures; empty bins give NaN."""
    linear = LinearPowerSpectrum(cosmology, n_s=n_s, sigma8=sigma8, model=model)
    if not hasattr(k, "edges"):
        return nonlinear_ratio(k, a_final, linear)
    from .spectra import _bin_modes, _integer_frequencies
    spectrum = k
    n, boxlen = int(spectrum.n), float(spectrum.boxlen)
    mx, my, mz = _integer_frequencies(n)
    magnitude = (2.0 * math.pi / boxlen) * np.sqrt(mx * mx + my * my + mz * mz)
    # Only the distinct |k| values need the spectra: evaluate once per value, then scatter.
    values, inverse = np.unique(magnitude.ravel(), return_inverse=True)
    positive = values > 0.0
    p_lin = np.zeros_like(values)
    p_nl = np.zeros_like(values)
    p_lin[positive] = linear.power(values[positive], a_final)
    p_nl[positive] = halofit_power(values[positive], a_final, linear)
    shape = magnitude.shape
    _, _, (mean_nl, mean_lin) = _bin_modes([p_nl[inverse].reshape(shape), p_lin[inverse].reshape(shape)], n,
                                           boxlen, np.asarray(spectrum.edges, dtype=float))
    return mean_nl / mean_lin
