"""Radial profiles of kosmo snapshots: a field averaged over spherical shells (circular rings in
2-D, intervals in 1-D) around a centre, from the leaf cells.

Each leaf cell goes whole into the shell that holds its centre (no splitting of cells across
shells), weighted by its volume (dx^ndim), its mass (density dx^ndim) or not at all. The shell
averages are np.bincount sums, no Python loop over cells.
"""

from __future__ import annotations

import pathlib
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .dataset import Dataset
from .projections import _cell_values


@dataclass
class RadialProfile:
    """A radial profile: ``edges`` (nbin + 1 radii, code length), ``values`` (the weighted mean
    of the field per shell; NaN for an empty shell), ``weights`` (the summed weight per shell:
    volume, mass or cell count) and ``ncells`` (leaf cells per shell). Unpacks as
    ``edges, values = kosmo.radial_profile(...)``."""

    edges: np.ndarray
    values: np.ndarray
    weights: np.ndarray
    ncells: np.ndarray
    field: str
    weight: str | None

    @property
    def centres(self) -> np.ndarray:
        """Middle radius of every shell."""
        return 0.5 * (self.edges[1:] + self.edges[:-1])

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter((self.edges, self.values))


def _centre(ds: Dataset, center: Sequence[float] | None) -> np.ndarray:
    if center is None:
        return 0.5 * ds.box_size[: ds.ndim]
    centre = np.asarray(center, dtype=float).ravel()
    if not ds.ndim <= len(centre) <= 3:
        raise ValueError(f"center needs {ds.ndim} to 3 coordinates, got {len(centre)}")
    return centre[: ds.ndim]


def cell_radius(ds: Dataset, center: Sequence[float] | None = None, periodic: bool = False) -> np.ndarray:
    """Distance of every leaf cell centre from `center` (default the box centre), over the
    run's ndim axes; with ``periodic=True`` the nearest periodic image counts."""
    centre = _centre(ds, center)
    cells = ds.cells
    offset = np.stack([cells[name] for name in "xyz"[: ds.ndim]], axis=1) - centre
    if periodic:
        box = ds.box_size[: ds.ndim]
        offset -= box * np.round(offset / box)
    return np.sqrt(np.sum(offset * offset, axis=1))


def radial_profile(
    ds: Dataset,
    field: str | np.ndarray,
    center: Sequence[float] | None = None,
    bins: int | Sequence[float] = 32,
    weight: str | None = "volume",
    rmax: float | None = None,
    periodic: bool = False,
) -> RadialProfile:
    """The profile of `field` (a cell field name, or one value per leaf cell) against the
    distance from `center` (code length; default the box centre).

    `bins` is a number of equal shells from 0 to `rmax` (default: the largest cell-centre
    distance, so every cell counts) or an increasing sequence of shell edges. A cell belongs to
    the shell [r_i, r_i+1) holding its centre (the last shell includes its outer edge); cells
    beyond the last edge are left out. `weight`: ``"volume"`` averages over volume (sum f dV /
    sum dV, dV = dx^ndim), ``"mass"`` over mass (sum f rho dV / sum rho dV, rho the density
    field), None gives every cell the same weight. Periodic boxes: ``periodic=True`` measures
    distances to the nearest periodic image of the centre."""
    cells = ds.cells
    values = _cell_values(ds, field, "field")
    radius = cell_radius(ds, center, periodic)
    if np.ndim(bins) == 0:
        nbin = int(bins)  # type: ignore[arg-type]
        if nbin < 1:
            raise ValueError(f"bins must be positive, got {bins}")
        if rmax is None:
            rmax = float(radius.max()) if radius.size else 1.0
        edges = np.linspace(0.0, float(rmax), nbin + 1)
    else:
        edges = np.asarray(bins, dtype=float)
        if edges.ndim != 1 or len(edges) < 2 or np.any(np.diff(edges) <= 0):
            raise ValueError("bins must be a number or an increasing sequence of at least 2 edges")
    volume = cells.dx ** ds.ndim
    if weight == "volume":
        w = volume
    elif weight == "mass":
        w = cells["density"] * volume
    elif weight is None:
        w = np.ones_like(volume)
    else:
        raise ValueError(f"weight must be 'volume', 'mass' or None, not {weight!r}")

    nbin = len(edges) - 1
    shell = np.searchsorted(edges, radius, side="right") - 1
    shell[radius == edges[-1]] = nbin - 1  # the outer edge belongs to the last shell
    inside = (shell >= 0) & (shell < nbin)
    shell, w_in, f_in = shell[inside], w[inside], values[inside]
    weights = np.bincount(shell, weights=w_in, minlength=nbin)
    total = np.bincount(shell, weights=w_in * f_in, minlength=nbin)
    ncells = np.bincount(shell, minlength=nbin)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(weights != 0.0, total / weights, np.nan)
    name = field if isinstance(field, str) else "field"
    return RadialProfile(edges, mean, weights, ncells, name, weight)


@dataclass
class ProfileResult:
    """What profile_plot drew: the PNG's path (None when no file was written), the figure, the
    axes and the profile."""

    filename: pathlib.Path | None
    figure: Figure
    axes: Any
    profile: RadialProfile


def profile_plot(
    ds: Dataset,
    field: str | np.ndarray,
    center: Sequence[float] | None = None,
    bins: int | Sequence[float] = 32,
    weight: str | None = "volume",
    rmax: float | None = None,
    periodic: bool = False,
    filename: str | pathlib.Path | None = None,
    log: bool = False,
    figsize: tuple[float, float] = (6.4, 4.8),
    dpi: float = 100,
) -> ProfileResult:
    """Draw the radial profile (see :func:`radial_profile`) as steps over the shells, and write
    it as a PNG when `filename` is given; ``log=True`` makes the value axis logarithmic."""
    profile = radial_profile(ds, field, center, bins, weight, rmax, periodic)
    figure = Figure(figsize=figsize, dpi=dpi)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.stairs(np.ma.masked_invalid(profile.values), profile.edges, baseline=None)
    if log:
        axes.set_yscale("log")
    axes.set_xlim(profile.edges[0], profile.edges[-1])
    axes.set_xlabel("radius [code length]")
    units = ds.fields[profile.field].units if profile.field in ds.fields else ""
    how = {"volume": "volume-weighted", "mass": "mass-weighted", None: "cell mean"}[weight]
    axes.set_ylabel(f"{profile.field} [{units}]" if units else profile.field)
    axes.set_title(f"{profile.field} ({how}), t = {ds.time:.4g}")
    path = None
    if filename is not None:
        path = pathlib.Path(filename)
        figure.savefig(path, dpi=figure.dpi)
    return ProfileResult(path, figure, axes, profile)
