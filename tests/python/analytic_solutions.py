"""Exact solutions the RAMSES suite's set-ups are checked against (tests/ramses_suite/runs/):

* `riemann(left, right, gamma, x, t, x0)`: the exact solution of the 1-D Riemann problem for an ideal
  gas (Toro, "Riemann Solvers and Numerical Methods for Fluid Dynamics", 3rd ed., §4.2-4.5: the
  pressure function, Newton iteration for p*, then sampling the wave pattern).
* `SedovTaylor(dimension, gamma, rho0, energy)`: the point blast in a cold uniform medium, planar,
  cylindrical or spherical; the same construction as tests/support/sedov_taylor.cpp (Sedov 1959,
  ch. IV: the similarity ODEs integrated inward from the strong-shock values in ln lambda, U from
  Sedov's energy integral), tabulated and interpolated linearly.
"""
import math

import numpy as np


def riemann(left, right, gamma, x, t, x0=0.5):
    """Density, velocity and pressure at positions x (array) and time t > 0 of the Riemann problem
    with states left = (rho, u, p) for x < x0 and right for x > x0."""
    rho_l, u_l, p_l = left
    rho_r, u_r, p_r = right
    c_l, c_r = math.sqrt(gamma * p_l / rho_l), math.sqrt(gamma * p_r / rho_r)
    a_l, a_r = 2.0 / ((gamma + 1.0) * rho_l), 2.0 / ((gamma + 1.0) * rho_r)
    b_l, b_r = (gamma - 1.0) / (gamma + 1.0) * p_l, (gamma - 1.0) / (gamma + 1.0) * p_r

    def side(p, rho, pk, ck, a, b):  # f_K and its derivative (Toro eqs. 4.6, 4.7, 4.37)
        if p > pk:
            q = math.sqrt(a / (p + b))
            return (p - pk) * q, q * (1.0 - 0.5 * (p - pk) / (b + p))
        ratio = p / pk
        f = 2.0 * ck / (gamma - 1.0) * (ratio ** ((gamma - 1.0) / (2.0 * gamma)) - 1.0)
        return f, ratio ** (-(gamma + 1.0) / (2.0 * gamma)) / (rho * ck)

    p = max(1e-12, 0.5 * (p_l + p_r))
    for _ in range(100):
        f_l, d_l = side(p, rho_l, p_l, c_l, a_l, b_l)
        f_r, d_r = side(p, rho_r, p_r, c_r, a_r, b_r)
        step = (f_l + f_r + u_r - u_l) / (d_l + d_r)
        p_new = max(1e-12, p - step)
        converged = abs(p_new - p) < 1e-14 * p_new
        p = p_new
        if converged:
            break
    u = 0.5 * (u_l + u_r) + 0.5 * (side(p, rho_r, p_r, c_r, a_r, b_r)[0] - side(p, rho_l, p_l, c_l, a_l, b_l)[0])
    g = (gamma - 1.0) / (gamma + 1.0)

    def star_density(pk, rho):
        if p > pk:  # shock
            return rho * (p / pk + g) / (g * p / pk + 1.0)
        return rho * (p / pk) ** (1.0 / gamma)  # rarefaction

    s = (np.asarray(x, dtype=float) - x0) / t
    rho_out, u_out, p_out = np.empty_like(s), np.empty_like(s), np.empty_like(s)
    for sign, (rho_k, u_k, p_k, c_k) in ((1.0, (rho_l, u_l, p_l, c_l)), (-1.0, (rho_r, u_r, p_r, c_r))):
        # The left side as it is; the right side mirrored onto it: x -> -x, u -> -u (Toro §4.5).
        mask = (s < u) if sign > 0 else (s >= u)
        xi, uk, ustar = sign * s[mask], sign * u_k, sign * u
        rho_star = star_density(p_k, rho_k)
        r, v, q = np.full(xi.shape, rho_star), np.full(xi.shape, ustar), np.full(xi.shape, p)
        if p > p_k:
            shock = uk - c_k * math.sqrt((gamma + 1.0) / (2.0 * gamma) * p / p_k + (gamma - 1.0) / (2.0 * gamma))
            outside = xi < shock
        else:
            head = uk - c_k
            tail = ustar - c_k * (p / p_k) ** ((gamma - 1.0) / (2.0 * gamma))
            outside = xi < head
            fan = (xi >= head) & (xi < tail)
            factor = 2.0 / (gamma + 1.0) + g / c_k * (uk - xi[fan])
            r[fan] = rho_k * factor ** (2.0 / (gamma - 1.0))
            v[fan] = 2.0 / (gamma + 1.0) * (c_k + (gamma - 1.0) / 2.0 * uk + xi[fan])
            q[fan] = p_k * factor ** (2.0 * gamma / (gamma - 1.0))
        r[outside], v[outside], q[outside] = rho_k, uk, p_k
        rho_out[mask], u_out[mask], p_out[mask] = r, sign * v, q
    return rho_out, u_out, p_out


class SedovTaylor:
    """rho = rho0 G(lambda), v = Rdot U(lambda), p = rho0 Rdot^2 P(lambda), lambda = r / R(t),
    R = xi0 (E t^2 / rho0)^(1 / (D + 2)). E is the energy of the whole blast (per unit area in the
    planar case, both sides of the plane; per unit length in the cylindrical case)."""

    STEP = 1.0 / 1024.0  # in s = ln(lambda)

    def __init__(self, dimension, gamma, rho0, energy):
        self.d, self.gamma, self.rho0, self.energy = dimension, gamma, rho0, energy
        ln_g, ln_p = math.log((gamma + 1.0) / (gamma - 1.0)), math.log(2.0 / (gamma + 1.0))
        u = 2.0 / (gamma + 1.0)
        s, integral = 0.0, 0.0
        table = [(s, ln_g, ln_p, u)]

        def density_of_energy(s, ln_g, ln_p, u):
            return (0.5 * math.exp(ln_g) * u * u + math.exp(ln_p) / (gamma - 1.0)) * math.exp(dimension * s)

        while s > -20.0 + 0.5 * self.STEP and ln_g > -500.0:
            h = -self.STEP
            k1 = self._derivatives(s, ln_g, ln_p, u)
            k2 = self._derivatives(s + 0.5 * h, ln_g + 0.5 * h * k1[0], ln_p + 0.5 * h * k1[1], u)
            k3 = self._derivatives(s + 0.5 * h, ln_g + 0.5 * h * k2[0], ln_p + 0.5 * h * k2[1], u)
            k4 = self._derivatives(s + h, ln_g + h * k3[0], ln_p + h * k3[1], u)
            integral += self.STEP / 6.0 * (
                density_of_energy(s, ln_g, ln_p, k1[2])
                + 2.0 * density_of_energy(s + 0.5 * h, ln_g + 0.5 * h * k1[0], ln_p + 0.5 * h * k1[1], k2[2])
                + 2.0 * density_of_energy(s + 0.5 * h, ln_g + 0.5 * h * k2[0], ln_p + 0.5 * h * k2[1], k3[2])
                + density_of_energy(s + h, ln_g + h * k3[0], ln_p + h * k3[1], k4[2]))
            ln_g += h / 6.0 * (k1[0] + 2.0 * k2[0] + 2.0 * k3[0] + k4[0])
            ln_p += h / 6.0 * (k1[1] + 2.0 * k2[1] + 2.0 * k3[1] + k4[1])
            s += h
            u = self._derivatives(s, ln_g, ln_p, k4[2])[2]
            table.append((s, ln_g, ln_p, u))
        integral += math.exp(ln_p) / (gamma - 1.0) * math.exp(dimension * s) / dimension
        sigma = {1: 2.0, 2: 2.0 * math.pi, 3: 4.0 * math.pi}[dimension]
        a = 2.0 / (dimension + 2.0)
        self.xi0 = (sigma * a * a * integral) ** (-1.0 / (dimension + 2.0))
        self.table = np.array(table[::-1])  # increasing s

    def _derivatives(self, s, ln_g, ln_p, u):
        """d(ln G)/ds, d(ln P)/ds and U from the energy integral (Newton from u)."""
        lam, g, p, gm1 = math.exp(s), math.exp(ln_g), math.exp(ln_p), self.gamma - 1.0
        for _ in range(60):
            e = 0.5 * g * u * u + p / gm1
            du = (e * (lam - u) - p * u) / (g * u * (lam - u) - e - p)
            u -= du
            if abs(du) <= 1e-15 * lam:
                break
        d, m = self.d, 0.5 * self.d
        w, q = u - lam, math.exp(ln_p - ln_g)
        c2 = self.gamma * q
        x = (m * u * w - 2.0 * m * q + (d - 1) * c2 * u / lam) / (w * w - c2)
        y = -((d - 1) * u / lam + x) / w
        z = 2.0 * m / w + self.gamma * y
        return lam * y, lam * z, u

    def shock_radius(self, t):
        return self.xi0 * (self.energy * t * t / self.rho0) ** (1.0 / (self.d + 2.0))

    def state(self, r, t):
        """Density, radial velocity and pressure at distances r (array) from the centre at time t;
        beyond the shock the cold ambient medium (rho0, at rest, pressure 0)."""
        r = np.asarray(r, dtype=float)
        radius = self.shock_radius(t)
        speed = 2.0 / (self.d + 2.0) * radius / t
        lam = np.clip(r / radius, 1e-300, 1.0)
        s = np.log(lam)
        table = self.table
        ln_g = np.interp(s, table[:, 0], table[:, 1])
        ln_p = np.interp(s, table[:, 0], table[:, 2])
        u = np.interp(s, table[:, 0], table[:, 3])
        core = s < table[0, 0]  # below the table: uniform pressure, U ~ lambda, G a power of lambda
        slope = (table[1, 1] - table[0, 1]) / (table[1, 0] - table[0, 0])
        ln_g[core] = table[0, 1] + slope * (s[core] - table[0, 0])
        u[core] = table[0, 3] * np.exp(s[core] - table[0, 0])
        inside = r <= radius
        rho = np.where(inside, self.rho0 * np.exp(ln_g), self.rho0)
        v = np.where(inside, speed * u, 0.0)
        p = np.where(inside, self.rho0 * speed * speed * np.exp(ln_p), 0.0)
        return rho, v, p
