"""kosmo.cosmology (numpy only) against closed forms and the C++ values of src/cosmology/friedmann.cpp.

The reference numbers marked "C++" were printed by the C++ implementation (tests/unit/test_friedmann.cpp
checks that one against ODE integration, closed forms and colossus); the same quantities are also
checked here analytically in the Einstein-de Sitter and flat Lambda-CDM limits.
"""
import math

import numpy as np
import pytest

from kosmo.cosmology import Cosmology, LinearPowerSpectrum, hubble_time_in_gyr, top_hat_variance, top_hat_window

FLAT = dict(omega_m=0.3, omega_l=0.7, omega_k=0.0, omega_b=0.045, h0=70.0)
CURVED = dict(omega_m=0.3, omega_l=0.6, omega_k=0.1, omega_b=0.045, h0=70.0)


def test_einstein_de_sitter_limits():
    c = Cosmology(omega_m=1.0, omega_l=0.0, omega_k=0.0, omega_b=0.05, h0=70.0)
    a = np.array([1e-6, 1e-3, 0.02, 0.3, 1.0, 2.5])
    np.testing.assert_allclose(c.hubble_ratio(a), a ** -1.5, rtol=1e-14)
    np.testing.assert_allclose(c.cosmic_time(a), 2.0 / 3.0 * a ** 1.5, rtol=1e-13)
    np.testing.assert_allclose(c.super_comoving_time(a), 2.0 * (1.0 - a ** -0.5), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(c.growth_factor(a), a, rtol=1e-13)
    np.testing.assert_allclose(c.growth_rate(a), 1.0, rtol=1e-12)
    np.testing.assert_allclose(c.expansion_factor_at_time(2.0 / 3.0 * a ** 1.5), a, rtol=1e-12)
    np.testing.assert_allclose(c.expansion_factor_at_super_comoving_time(2.0 * (1.0 - a ** -0.5)), a, rtol=1e-11)
    assert c.age == pytest.approx(2.0 / 3.0, rel=1e-14)


def test_flat_lcdm_closed_form_and_cpp_values():
    c = Cosmology(**FLAT)
    # H0 t0 = 0.9641 for (0.3, 0.7); closed form 2 / (3 sqrt(OL)) asinh(sqrt(OL / Om) a^1.5).
    assert c.age == pytest.approx(0.9641, abs=5e-5)
    a = np.array([1e-4, 0.02, 0.5, 1.0, 3.0])
    exact = 2.0 / (3.0 * math.sqrt(0.7)) * np.arcsinh(math.sqrt(0.7 / 0.3) * a ** 1.5)
    np.testing.assert_allclose(c.cosmic_time(a), exact, rtol=1e-13)
    assert c.age * hubble_time_in_gyr(70.0) == pytest.approx(13.467, abs=1e-3)
    # C++ values.
    assert c.age == pytest.approx(0.96409938163946907, rel=1e-13)
    assert float(c.super_comoving_time(0.02)) == pytest.approx(-21.63879032457729, rel=1e-12)
    assert float(c.super_comoving_time(0.5)) == pytest.approx(-1.1204577889651595, rel=1e-12)
    assert float(c.growth_factor(0.02)) == pytest.approx(0.025674479468982079, rel=1e-12)
    assert float(c.growth_factor(0.5)) == pytest.approx(0.61180575330060716, rel=1e-12)
    assert float(c.growth_rate(0.5)) == pytest.approx(0.86928512118500567, rel=1e-12)
    # Round trip of tau.
    for value in (1e-3, 0.05, 0.7, 1.7):
        assert float(c.expansion_factor_at_super_comoving_time(c.super_comoving_time(value))) == pytest.approx(
            value, rel=1e-11)


def test_curved_and_open():
    c = Cosmology(**CURVED)
    assert c.age == pytest.approx(0.93508483626818917, rel=1e-13)  # C++
    assert float(c.growth_factor(0.5)) == pytest.approx(0.62336919353941378, rel=1e-12)  # C++
    assert float(c.growth_rate(0.5)) == pytest.approx(0.82292035028295984, rel=1e-12)  # C++
    assert float(c.super_comoving_time(0.02)) == pytest.approx(-21.311696213773054, rel=1e-12)  # C++
    # Open, no Lambda: H0 t0 = 1/(1 - Om) - Om / (2 (1 - Om)^1.5) arccosh(2/Om - 1).
    om = 0.3
    exact = 1.0 / (1.0 - om) - om / (2.0 * (1.0 - om) ** 1.5) * math.acosh(2.0 / om - 1.0)
    assert Cosmology(omega_m=om, omega_l=0.0, omega_k=0.7).age == pytest.approx(exact, rel=1e-13)
    with pytest.raises(ValueError):
        Cosmology(omega_m=0.3, omega_l=0.6, omega_k=0.0)


def test_growth_against_ode_and_carroll_press_turner():
    c = Cosmology(**FLAT)

    def rhs(log_a, y):
        a = math.exp(log_a)
        return np.array([y[1], -(2.0 + float(c.hubble_ratio_log_slope(a))) * y[1] + 1.5 * float(c.omega_matter_at(a)) * y[0]])

    def integrate_to(log_end, steps=4000):
        log_a, y = math.log(1e-5), np.array([1e-5, 1e-5])
        h = (log_end - log_a) / steps
        for _ in range(steps):
            k1 = rhs(log_a, y)
            k2 = rhs(log_a + h / 2, y + h / 2 * k1)
            k3 = rhs(log_a + h / 2, y + h / 2 * k2)
            k4 = rhs(log_a + h, y + h * k3)
            y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            log_a += h
        return y[0]

    today = integrate_to(0.0)
    for a in (0.1, 0.5):
        assert float(c.growth_factor(a)) == pytest.approx(integrate_to(math.log(a)) / today, rel=1e-6)

    def g(om, ol):  # Carroll, Press & Turner 1992 eq. 29
        return 2.5 * om / (om ** (4 / 7) - ol + (1 + om / 2) * (1 + ol / 70))

    for a in (0.01, 0.3, 0.8):
        e2 = float(c.hubble_ratio(a)) ** 2
        fit = a * g(0.3 / a ** 3 / e2, 0.7 / e2) / g(0.3, 0.7)
        assert float(c.growth_factor(a)) == pytest.approx(fit, rel=0.01)


def test_eisenstein_hu_transfer():
    c = Cosmology(**FLAT)
    k = np.array([1e-4, 0.01, 0.1, 0.5, 10.0, 100.0])
    # C++ values (identical to colossus 1.4.0 with the two tf_fit.c conventions, see test_friedmann.cpp).
    np.testing.assert_allclose(
        c.transfer_eisenstein_hu(k),
        [0.99990692014155269, 0.78026021396070122, 0.13255084098644149, 0.014363278747004823, 9.1717548618481837e-05,
         1.3723886271554264e-06], rtol=1e-12)
    np.testing.assert_allclose(
        c.transfer_no_wiggle(k),
        [0.99989938557128599, 0.78620019399253749, 0.135176248904675, 0.014360213908536668, 9.0750659067062844e-05,
         1.3570495501483176e-06], rtol=1e-12)
    # T -> 1 on large scales; wiggle and no-wiggle agree on average over the BAO range.
    assert float(c.transfer_eisenstein_hu(1e-6)) == pytest.approx(1.0, abs=1e-6)
    assert float(c.transfer_no_wiggle(1e-6)) == pytest.approx(1.0, abs=1e-6)
    kb = np.geomspace(0.02, 0.4, 2000)
    ratio = c.transfer_eisenstein_hu(kb) / c.transfer_no_wiggle(kb)
    assert np.mean(ratio) == pytest.approx(1.0, abs=0.05)
    assert 0.02 < np.max(np.abs(ratio - 1.0)) < 0.1
    assert c.sound_horizon == pytest.approx(150.01468924833796, rel=1e-12)
    with pytest.raises(ValueError):
        Cosmology(omega_m=0.3, omega_l=0.7, omega_b=0.0).transfer_eisenstein_hu(0.1)


def test_top_hat_variance_of_power_laws():
    # int x W^2 dx = 9/4 (P = 1/k) and int x^2 W^2 dx = 3 pi / 2 (white noise, sigma^2 = 1 / V_tophat).
    r = 8.0
    assert top_hat_variance(lambda k: 1.0 / k, r) == pytest.approx(9.0 / 4.0 / (2 * math.pi ** 2 * r ** 2), rel=1e-7)
    # (the white-noise integrand decays as 9 cos^2 x / x^2: the part beyond x_max = 1e5 is 1e-5 of the total)
    assert top_hat_variance(lambda k: np.ones_like(k), r, x_max=1e5) == pytest.approx(
        3.0 / (4.0 * math.pi * r ** 3), rel=2e-5)
    assert float(top_hat_window(2.0)) == pytest.approx(3.0 * (math.sin(2.0) - 2.0 * math.cos(2.0)) / 8.0, rel=1e-15)


@pytest.mark.parametrize("model, amplitude, powers", [
    ("eisenstein_hu", 2815849.1252467646, [20610.489495929069, 5424.6828977914638, 64.297083492520514]),
    ("no_wiggle", 2798792.7552173571, [20798.740402331732, 5607.5289262215983, 63.070077144348687]),
])
def test_sigma8_normalisation(model, amplitude, powers):
    spectrum = LinearPowerSpectrum(Cosmology(**FLAT), n_s=0.96, sigma8=0.8, model=model)
    assert spectrum.sigma(8.0) == pytest.approx(0.8, rel=1e-10)
    # Independent quadrature: trapezoid in ln k.
    k = np.geomspace(1e-7, 2e3, 400001)
    integrand = k ** 3 * spectrum.power(k) * top_hat_window(8.0 * k) ** 2
    variance = np.sum(0.5 * (integrand[1:] + integrand[:-1]) * np.diff(np.log(k))) / (2 * math.pi ** 2)
    assert math.sqrt(variance) == pytest.approx(0.8, rel=1e-8)
    # C++ values.
    assert spectrum.amplitude == pytest.approx(amplitude, rel=1e-8)
    np.testing.assert_allclose(spectrum.power(np.array([0.01, 0.1, 1.0])), powers, rtol=1e-8)
    d = float(spectrum.cosmology.growth_factor(0.5))
    assert spectrum.power(0.1, a=0.5) == pytest.approx(powers[1] * d * d, rel=1e-12)
    assert spectrum.sigma(8.0, a=0.5) == pytest.approx(0.8 * d, rel=1e-10)
