"""The pictures of the showcase run (``./kosmo run`` with no namelist): the gas and the dark matter
of the last output side by side, and its matter power spectrum against linear theory and halofit.

    python -m kosmo.showcase output_00004        # writes the two PNGs and prints one summary line

* ``showcase_projection.png``: projected densities along z through the whole box, the gas from its
  leaf cells (exact cell-pixel overlaps: kosmo.projections) and the dark matter with adaptive
  smoothing (kosmo.particle_projection), both in comoving M_sun h^-1 (Mpc/h)^-2 on a logarithmic
  colour scale, axes in comoving Mpc/h.
* ``showcase_power_spectrum.png``: P(k) of the dark matter (CIC, deconvolved, interlaced, shot
  noise subtracted) and of the gas, k in h/Mpc and P in (Mpc/h)^3, with the Eisenstein & Hu linear
  spectrum of the run's cosmology (its n_s, sigma8) and the halofit non-linear one at the output's
  expansion factor (kosmo.halofit).

Each PNG carries its title (with the redshift) as the text metadata "Title".
"""

from __future__ import annotations

import pathlib
import sys
from typing import Sequence

import matplotlib
import numpy as np
from matplotlib import colors
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .cosmology import Cosmology, LinearPowerSpectrum
from .dataset import load
from .halofit import halofit_power
from .particle_projection import particle_projection
from .plot_units import epoch_label, length_unit, surface_density_unit
from .plots import save_with_title
from .projections import project
from .spectra import power_spectrum

PROJECTION_PNG = "showcase_projection.png"
POWER_SPECTRUM_PNG = "showcase_power_spectrum.png"


def _cosmology(ds) -> tuple[Cosmology, float, float]:
    """The run's cosmology and its initial spectrum's n_s and sigma8 (&INIT_PARAMS)."""
    c = ds.cosmology
    cosmology = Cosmology(omega_m=c["omega_m"], omega_l=c["omega_l"], omega_k=c.get("omega_k", 0.0),
                          omega_b=c.get("omega_b", 0.045), h0=c["H0"])
    init = ds.params.get("INIT_PARAMS", {})
    return cosmology, float(init.get("n_s", 0.96)), float(init.get("sigma8", 0.8))


def _box_name(ds) -> str:
    factor, _ = length_unit(ds)
    npart = len(np.asarray(ds.particles["x"]))
    side = round(npart ** (1.0 / 3.0))
    particles = f"{side}³" if side ** 3 == npart else str(npart)
    return f"{factor * float(ds.box_size[0]):.4g} Mpc/h box, {particles} dark-matter particles"


def projection_figure(ds, filename: str | pathlib.Path = PROJECTION_PNG, resolution: int = 256) -> dict:
    """Gas and dark matter projected along z, side by side (module docstring). Returns the images
    in the plotted units ("gas", "dark_matter"), the units and the title."""
    factor, units = surface_density_unit(ds)
    length_factor, length_name = length_unit(ds)
    gas, extent = project(ds, "density", "z", resolution=resolution)
    dark, _ = particle_projection(ds, "z", resolution)
    images = {"gas": gas * factor, "dark_matter": dark * factor}
    shown_extent = tuple(length_factor * bound for bound in extent)
    title = f"{_box_name(ds)}, {epoch_label(ds)}"

    figure = Figure(figsize=(11.0, 5.0), dpi=80)
    FigureCanvasAgg(figure)
    panels = figure.subplots(1, 2)
    for axes, (key, name, cmap) in zip(panels, (("gas", "Gas", "magma"), ("dark_matter", "Dark matter", "inferno"))):
        image = images[key]
        norm = colors.LogNorm(vmin=float(np.percentile(image, 0.5)), vmax=float(image.max()))
        drawn = axes.imshow(image, origin="lower", extent=shown_extent, norm=norm, cmap=matplotlib.colormaps[cmap],
                            interpolation="nearest")
        figure.colorbar(drawn, ax=axes, label=f"projected density [{units}]", fraction=0.046, pad=0.03)
        axes.set_title(f"{name}, {epoch_label(ds)}")
        axes.set_xlabel(f"x [{length_name}]")
        axes.set_ylabel(f"y [{length_name}]")
    figure.suptitle(title)
    figure.tight_layout()
    save_with_title(figure, filename, title)
    return {**images, "units": units, "title": title}


def power_spectrum_figure(ds, filename: str | pathlib.Path = POWER_SPECTRUM_PNG, n: int = 64) -> dict:
    """P(k) of the dark matter and the gas against linear theory and halofit (module docstring).
    Returns the measured spectra ("dark_matter", "gas"), the theory on the dark matter's k
    ("linear", "halofit") and the title."""
    length_factor, _ = length_unit(ds)
    boxlen = length_factor * float(ds.box_size[0])  # comoving Mpc/h: k in h/Mpc, P in (Mpc/h)^3
    dark = power_spectrum(ds, particles=True, n=n, boxlen=boxlen, interlacing=True, subtract_shot_noise=True)
    gas = power_spectrum(ds, "density", n=n, boxlen=boxlen)
    cosmology, n_s, sigma8 = _cosmology(ds)
    linear = LinearPowerSpectrum(cosmology, n_s=n_s, sigma8=sigma8)
    a = float(ds.aexp)
    k = np.geomspace(0.5 * float(np.nanmin(dark.k)), 1.5 * float(np.nanmax(dark.k)), 200)
    title = f"Matter power spectrum, {_box_name(ds)}, {epoch_label(ds)}"

    figure = Figure(figsize=(7.0, 5.0), dpi=80)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.loglog(k, linear.power(k, a), color="0.4", linestyle="--", label="linear theory (Eisenstein & Hu)")
    axes.loglog(k, halofit_power(k, a, linear), color="black", label="halofit (Takahashi et al. 2012)")
    nyquist = np.pi * round(len(np.asarray(ds.particles["x"])) ** (1.0 / 3.0)) / boxlen
    # Beyond the particles' Nyquist wavenumber the shot-noise-subtracted estimate is noise.
    good = (dark.modes > 0) & (dark.k <= nyquist) & (dark.power > 0)
    axes.errorbar(dark.k[good], dark.power[good], yerr=dark.error[good], fmt="o", markersize=4, color="tab:blue",
                  label="kosmo dark matter (shot noise subtracted)")
    good_gas = gas.modes > 0
    axes.plot(gas.k[good_gas], gas.power[good_gas], "s", markersize=3, color="tab:orange", label="kosmo gas")
    axes.axhline(dark.shot_noise, color="tab:blue", linewidth=0.8, linestyle=":", label="dark-matter shot noise")
    axes.axvline(nyquist, color="0.6", linewidth=0.8, linestyle="-.", label="particle Nyquist wavenumber")
    axes.set_xlabel("k [h/Mpc]")
    axes.set_ylabel("P(k) [(Mpc/h)$^3$]")
    axes.set_title(title, fontsize=10)
    axes.legend(fontsize=8, loc="lower left")
    figure.tight_layout()
    save_with_title(figure, filename, title)
    return {"dark_matter": dark, "gas": gas, "linear": linear.power(dark.k, a),
            "halofit": halofit_power(dark.k, a, linear), "title": title}


def main(argv: Sequence[str] | None = None) -> int:
    """Draw both figures of the output given in argv (default: sys.argv[1:]) in the current
    directory and print one line saying what was produced."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m kosmo.showcase OUTPUT", file=sys.stderr)
        return 2
    ds = load(args[0])
    projection_figure(ds)
    power_spectrum_figure(ds)
    print(f" Showcase, {_box_name(ds)} at {epoch_label(ds)}: {PROJECTION_PNG} (gas and dark matter projected), "
          f"{POWER_SPECTRUM_PNG} (P(k) against linear theory and halofit)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
