"""The non-linear growth of a cosmological run's own power spectrum against halofit.

    .venv/bin/python bench/cosmology_halofit.py RUN_DIR [--initial 1] [--final 3] [--plot out.png]

RUN_DIR holds the outputs of a dark-matter-only run (e.g. the 64^3, 100 Mpc/h box of
docs/cosmology.md) with an output at the initial expansion factor and one at the final one. For
each k bin it prints one JSON object: k (h/Mpc), the measured ratio
P(k, a_f) / [P(k, a_i) (D(a_f) / D(a_i))^2] of the run's own particle spectra (the seed's cosmic
variance cancels), halofit's P_nl / P_lin averaged over the same grid modes (Takahashi et al.
2012, kosmo.halofit), and their quotient; then one summary object for 0.2 < k < 1 h/Mpc."""
import argparse
import json
import math
import pathlib

import numpy as np

import kosmo
from kosmo.cosmology import Cosmology
from kosmo.halofit import halofit_ratio_on_bins, measured_growth_ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=pathlib.Path)
    parser.add_argument("--initial", type=int, default=1)
    parser.add_argument("--final", type=int, default=3)
    parser.add_argument("--grid", type=int, default=128, help="mass-assignment grid (default 128)")
    parser.add_argument("--plot", type=pathlib.Path)
    args = parser.parse_args()
    initial = kosmo.load(args.run / f"output_{args.initial:05d}")
    final = kosmo.load(args.run / f"output_{args.final:05d}")
    init = initial.params["INIT_PARAMS"]
    cosmology = Cosmology(omega_m=init["omega_m"], omega_l=init["omega_l"], omega_b=init["omega_b"], h0=init["h0"])
    box = float(init["boxlen_ini"])
    spectra = [kosmo.power_spectrum(ds, particles=True, n=args.grid, boxlen=box) for ds in (initial, final)]
    measured = measured_growth_ratio(spectra[1], spectra[0], initial.aexp, final.aexp, cosmology)
    expected = halofit_ratio_on_bins(spectra[1], final.aexp, cosmology, n_s=init["n_s"], sigma8=init["sigma8"])
    window = (measured.k > 0.2) & (measured.k < 1.0) & np.isfinite(measured.ratio)
    for k, m, e in zip(measured.k, measured.ratio, expected):
        if math.isfinite(m) and math.isfinite(e):
            print(json.dumps({"k": round(float(k), 4), "measured": round(float(m), 4), "halofit": round(float(e), 4),
                              "measured_over_halofit": round(float(m / e), 4)}))
    quotient = measured.ratio[window] / expected[window]
    print(json.dumps({"summary": {"a_initial": initial.aexp, "a_final": final.aexp, "bins": int(window.sum()),
                                  "k_range": [0.2, 1.0], "max_deviation": float(np.max(np.abs(quotient - 1.0)))}}))
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        figure, axes = plt.subplots(figsize=(6, 4))
        ok = np.isfinite(measured.ratio) & (measured.k > 0)
        axes.plot(measured.k[ok], measured.ratio[ok], "o", ms=3, label="kosmo run: P(k,a)/[P(k,a_i) D^2]")
        axes.plot(measured.k[ok], expected[ok], "-", label="halofit (Takahashi 2012) / linear")
        axes.axvspan(0.2, 1.0, color="0.9", zorder=0)
        axes.set_xscale("log")
        axes.set_xlabel("k [h/Mpc]")
        axes.set_ylabel("non-linear / linear")
        axes.set_title(f"{int(round(len(final.particles.x) ** (1 / 3)))}^3 particles, {box:g} Mpc/h, z = {1 / final.aexp - 1:.2f}")
        axes.legend()
        figure.tight_layout()
        figure.savefig(args.plot, dpi=120)


if __name__ == "__main__":
    main()
