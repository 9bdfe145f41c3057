"""Independent one-dimensional check of the shell-formation time of a supernova remnant with the
ISM cooling function (docs/galaxy.md, "Supernova remnants with cooling").

A spherical finite-volume solver (HLL fluxes, minmod slopes in the primitive variables, Heun steps,
Courant 0.4; reflecting centre, open outer edge) follows 10^51 erg injected as heat within r_init
into gas of n_H = 1 cm^-3 at the cooling function's equilibrium, with kosmo's cooling_ism function
(Koyama & Inutsuka 2002 below 10^4.2 K, the Sutherland & Dopita 1993 solar CIE table above, read
from src/cooling/collisional_equilibrium_cooling.cpp), kosmo's conventions (T = mu_gas m_H P /
(rho k_B) with mu_gas = 1.27, hydrogen fraction 0.76, loss n_H^2 Lambda / (X mu_gas) per volume as
RAMSES' ISM cooling) and the explicit cooling substeps limited to 10 % changes. It prints, for a
cell size, the time of the largest hot (T > 2e4 K) mass and the time when 30 % of the energy has
been radiated, against Kim & Ostriker (2015, ApJ 802, 99) eq. 7's 44 kyr.

    python tests/physics/supernova_remnant_1d.py [cell size in pc ...]   (default 2 1 0.5 0.25 0.1)

Needs numpy only; about a minute for 0.1 pc.
"""
import pathlib
import re
import sys

import numpy as np

PARSEC, YEAR, SOLAR_MASS = 3.0856775814913673e18, 3.15576e7, 1.989e33
HYDROGEN_MASS, BOLTZMANN, HYDROGEN_FRACTION, GAMMA = 1.66e-24, 1.38062e-16, 0.76, 5.0 / 3.0
MU_GAS, HEATING = 1.27, 2e-26


def collisional_table():
    source = pathlib.Path(__file__).resolve().parents[2] / "src/cooling/collisional_equilibrium_cooling.cpp"
    body = re.search(r"log_cooling = \{(.*?)\};", source.read_text(), re.S).group(1)
    values = [float(v) for v in re.findall(r"-\d+\.\d+", re.sub(r"//[^\n]*", "", body))]
    return 4.2 + 0.05 * np.arange(len(values)), np.array(values)


LOG_T, LOG_LAMBDA = collisional_table()


def cooling_function(t):
    hot = 10.0 ** np.interp(np.log10(t), LOG_T, LOG_LAMBDA)
    warm = HEATING * (1e7 * np.exp(-118400.0 / (t + 1000.0)) + 1.4e-2 * np.sqrt(t) * np.exp(-92.0 / t))
    return np.where(t >= 10.0**4.2, hot, warm)


def loss_rate(n_h, t):  # erg s^-1 cm^-3 taken from the gas
    return n_h * (n_h * cooling_function(t) - HEATING) / (HYDROGEN_FRACTION * MU_GAS)


def minmod(a, b):
    return np.where(a * b > 0.0, np.sign(a) * np.minimum(np.abs(a), np.abs(b)), 0.0)


def remnant(cell_pc, r_init_pc=2.0, r_max_pc=40.0, t_end_kyr=70.0):
    n = int(round(r_max_pc / cell_pc))
    edges = np.arange(n + 1) * cell_pc * PARSEC
    centres = 0.5 * (edges[1:] + edges[:-1])
    area = 4.0 * np.pi * edges**2
    volume = 4.0 / 3.0 * np.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
    rho0 = HYDROGEN_MASS / HYDROGEN_FRACTION  # n_H = 1
    lo, hi = 3000.0, 1e4
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if loss_rate(1.0, mid) > 0.0 else (mid, hi)
    p0 = rho0 * BOLTZMANN * 0.5 * (lo + hi) / (MU_GAS * HYDROGEN_MASS)
    pressure = np.full(n, p0)
    inside = centres < r_init_pc * PARSEC
    pressure[inside] += (GAMMA - 1.0) * 1e51 / volume[inside].sum()
    u = np.array([np.full(n, rho0), np.zeros(n), pressure / (GAMMA - 1.0)])
    ambient = (p0 / (GAMMA - 1.0) * volume).sum()

    def primitive(u):
        v = u[1] / u[0]
        return u[0], v, np.maximum((GAMMA - 1.0) * (u[2] - 0.5 * u[0] * v * v), 1e-30)

    def rate(u):
        rho, v, p = primitive(u)
        faces = []
        for q, parity in ((rho, 1.0), (v, -1.0), (p, 1.0)):
            g = np.concatenate([[parity * q[0]], q, [q[-1]]])  # mirror at r = 0, copy at the edge
            s = minmod(g[1:-1] - g[:-2], g[2:] - g[1:-1])
            s = np.concatenate([[-parity * s[0]], s, [0.0]])
            faces.append(((g + 0.5 * s)[:-1], (g - 0.5 * s)[1:]))
        (rl, rr), (vl, vr), (pl, pr) = faces
        cl, cr = np.sqrt(GAMMA * pl / rl), np.sqrt(GAMMA * pr / rr)
        sl, sr = np.minimum(vl - cl, vr - cr), np.maximum(vl + cl, vr + cr)

        def flux(r, w, q):
            return np.array([r * w, r * w * w + q, (q / (GAMMA - 1.0) + 0.5 * r * w * w + q) * w])

        def state(r, w, q):
            return np.array([r, r * w, q / (GAMMA - 1.0) + 0.5 * r * w * w])

        fl, fr = flux(rl, vl, pl), flux(rr, vr, pr)
        f = np.where(sl >= 0.0, fl, np.where(sr <= 0.0, fr, (sr * fl - sl * fr + sl * sr * (state(rr, vr, pr) - state(rl, vl, pl))) / (sr - sl)))
        f[:, 0] = 0.0
        du = -(area[1:] * f[:, 1:] - area[:-1] * f[:, :-1]) / volume
        du[1] += p * (area[1:] - area[:-1]) / volume
        return du

    t, out, history = 0.0, 0.0, []
    while t < t_end_kyr * 1e3 * YEAR:
        rho, v, p = primitive(u)
        dt = 0.4 * cell_pc * PARSEC / np.max(np.abs(v) + np.sqrt(GAMMA * p / rho))
        u1 = u + dt * rate(u)
        u = 0.5 * (u + u1 + dt * rate(u1))
        rho, v, p = primitive(u)
        e, n_h, left = p / (GAMMA - 1.0), HYDROGEN_FRACTION * rho / HYDROGEN_MASS, np.full(n, dt)
        while np.any(left > 0.0):
            r = loss_rate(n_h, MU_GAS * HYDROGEN_MASS * (GAMMA - 1.0) * e / (rho * BOLTZMANN))
            h = np.minimum(left, 0.1 * e / np.maximum(np.abs(r), 1e-300))
            e, left = e - h * r, left - h
        u[2] = e + 0.5 * rho * v * v
        t += dt
        if t >= out:
            rho, v, p = primitive(u)
            hot = (rho * volume)[MU_GAS * HYDROGEN_MASS * p / (rho * BOLTZMANN) > 2e4].sum() / SOLAR_MASS
            history.append((t / YEAR / 1e3, hot, ((u[2] * volume).sum() - ambient) / 1e51))
            out += 0.25e3 * YEAR
    h = np.array(history)
    return h[np.argmax(h[:, 1]), 0], h[h[:, 2] > 0.7, 0].max()


if __name__ == "__main__":
    for cell in [float(a) for a in sys.argv[1:]] or [2.0, 1.0, 0.5, 0.25, 0.1]:
        hot_peak, radiated = remnant(cell)
        print(f"cell {cell:5.2f} pc: largest hot mass at {hot_peak:5.1f} kyr ({100 * (hot_peak / 44 - 1):+.0f} %), "
              f"30 % radiated at {radiated:5.1f} kyr ({100 * (radiated / 44 - 1):+.0f} %)", flush=True)
