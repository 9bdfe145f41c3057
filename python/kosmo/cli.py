"""``kosmo-plot``: a slice, projection or radial profile of one snapshot field, as a PNG, from the
shell. ``kosmo-plot output_00002 --field density --kind projection --axis z -o rho.png``.

Fields: the output's cell fields, ``temperature`` (derived from pressure and density:
kosmo.plot_units) and ``particle_density`` (the dark matter: a projection with adaptive smoothing,
or a profile of the mass in spherical shells). ``--center max`` centres a profile on the densest
halo.

Also runs as ``python -m kosmo.cli ...`` (no installed entry point needed)."""

from __future__ import annotations

import argparse
import pathlib
import re
import sys
from typing import Sequence

from .dataset import load
from .particle_projection import particle_projection_plot
from .plot_units import is_cosmological
from .plots import slice_plot
from .profiles import PARTICLE_DENSITY_FIELDS, profile_plot
from .projections import projection_plot


def _centre(text: str) -> list[float] | str:
    """``x,y,z`` (code length) or ``max`` (the densest halo)."""
    if text.strip().lower() == "max":
        return "max"
    try:
        return [float(item) for item in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"center must be x,y,z or max, not {text!r}") from None


def _region(text: str) -> list[tuple[float, float]]:
    """``x0:x1,y0:y1,z0:z1`` → [(x0, x1), (y0, y1), (z0, z1)]."""
    pairs = []
    for item in text.split(","):
        low, sep, high = item.partition(":")
        if not sep:
            raise argparse.ArgumentTypeError(f"region axis {item!r} is not LOW:HIGH")
        pairs.append((float(low), float(high)))
    return pairs


def _size(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not match or int(match.group(1)) < 1 or int(match.group(2)) < 1:
        raise argparse.ArgumentTypeError(f"size must be WIDTHxHEIGHT in pixels (e.g. 800x600), not {text!r}")
    return int(match.group(1)), int(match.group(2))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kosmo-plot",
        description="Write a PNG of a kosmo snapshot field: a slice, a projection along an axis "
                    "or a radial profile.")
    parser.add_argument("output", help="output_NNNNN directory, its info_NNNNN.txt or kosmo_NNNNN.h5")
    parser.add_argument("--field", "-f", default="density",
                        help="cell field, temperature or particle_density (default density)")
    parser.add_argument("--kind", "-k", choices=("slice", "projection", "profile"),
                        help="default: projection for particle_density, else slice")
    parser.add_argument("--axis", "-a", choices=("x", "y", "z"), default="z",
                        help="slice normal / projection axis (default z)")
    parser.add_argument("--output", "-o", dest="png", type=pathlib.Path,
                        help="PNG to write (default <kind>_<field>_<NNNNN>.png in the current directory)")
    parser.add_argument("--size", type=_size, default=(640, 480), metavar="WxH",
                        help="image size in pixels (default 640x480)")
    parser.add_argument("--resolution", type=int, default=512,
                        help="slice/projection pixels along the horizontal axis (default 512)")
    parser.add_argument("--log", action=argparse.BooleanOptionalAction, default=None,
                        help="logarithmic colour/value scale (projection default: automatic)")
    parser.add_argument("--coordinate", type=float, help="slice position along the axis (default: box centre)")
    parser.add_argument("--weight", help="projection: weight field (e.g. density; temperature defaults to density); "
                                         "profile: volume, mass or none (default volume)")
    parser.add_argument("--center", type=_centre,
                        help="profile centre x,y,z, or max for the densest halo (default: box centre)")
    parser.add_argument("--bins", type=int, default=32, help="profile shells (default 32)")
    parser.add_argument("--rmax", type=float, help="profile outer radius (default: farthest cell)")
    parser.add_argument("--levels", type=int, help="read only levels 1..LEVELS (coarser view)")
    parser.add_argument("--region", type=_region, metavar="X0:X1,Y0:Y1,Z0:Z1",
                        help="read only the leaf cells meeting this box (code length)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse `argv` (default sys.argv[1:]), draw the plot, write the PNG and print its path.
    Returns 0; bad arguments or data exit with status 2 and a one-line message."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        ds = load(args.output, levels=args.levels, region=args.region)
        particles = args.field in PARTICLE_DENSITY_FIELDS
        kind = args.kind or ("projection" if particles else "slice")
        png = args.png or pathlib.Path(f"{kind}_{args.field}_{ds.output_number:05d}.png")
        width, height = args.size
        figure = {"figsize": (width / 100.0, height / 100.0), "dpi": 100}
        if particles and kind == "slice":
            raise ValueError(f"{args.field} is drawn as a projection or a profile (--kind projection|profile)")
        if kind == "slice":
            slice_plot(ds, args.field, axis=args.axis, coordinate=args.coordinate, filename=png,
                       resolution=args.resolution, log=bool(args.log), **figure)
        elif kind == "projection" and particles:
            particle_projection_plot(ds, axis=args.axis, resolution=args.resolution, filename=png, log=args.log,
                                     **figure)
        elif kind == "projection":
            weight = args.weight or ("density" if args.field == "temperature" else None)
            projection_plot(ds, args.field, axis=args.axis, weight=weight, resolution=args.resolution,
                            filename=png, log=args.log, **figure)
        else:
            weight = args.weight or "volume"
            profile_plot(ds, args.field, center=args.center, bins=args.bins,
                         weight=None if weight.lower() == "none" else weight, rmax=args.rmax,
                         periodic=is_cosmological(ds), filename=png, log=bool(args.log), **figure)
    except (OSError, KeyError, ValueError) as error:
        parser.exit(2, f"kosmo-plot: error: {error}\n")
    print(png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
