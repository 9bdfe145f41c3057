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
from .plot_units import epoch_label, field_units, length_unit
from .plots import save_with_title
from .projections import _cell_values

#: Fields profiled from the particles instead of the cells.
PARTICLE_DENSITY_FIELDS = ("particle_density", "dark_matter_density")


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


def densest_halo_centre(ds: Dataset) -> np.ndarray:
    """Centre of the densest halo: the densest cell of a cloud-in-cell grid of the dark matter
    (two cells per mean particle spacing), refined by shrinking spheres (Power et al. 2003: the
    centre of mass of the particles within r, r shrunk by 30 % per pass down to ~50 particles;
    periodic). Without particles, the centre of the densest leaf cell."""
    if ds.particles is None or "x" not in ds.particles or len(np.asarray(ds.particles["x"])) == 0:
        cells = ds.cells
        densest = int(np.argmax(np.asarray(cells["density"], dtype=float)))
        return np.array([float(np.asarray(cells[name])[densest]) for name in "xyz"[: ds.ndim]])
    from .particle_projection import dark_matter
    from .spectra import mass_assignment
    positions, masses = dark_matter(ds)
    box = float(np.asarray(ds.box_size, dtype=float)[0])
    n = int(min(128, 2 * round(len(positions) ** (1.0 / 3.0))))
    grid = mass_assignment(positions, masses, box, n, "cic")
    centre = (np.array(np.unravel_index(int(np.argmax(grid)), grid.shape), dtype=float) + 0.5) * (box / n)
    radius = 2.0 * box / n
    while True:
        offset = positions - centre
        offset -= box * np.round(offset / box)
        inside = np.sum(offset * offset, axis=1) < radius * radius
        if inside.sum() < 50:
            break
        centre = np.mod(centre + np.average(offset[inside], axis=0, weights=masses[inside]), box)
        radius *= 0.7
    return centre


def _centre(ds: Dataset, center: Sequence[float] | str | None) -> np.ndarray:
    if center is None:
        return 0.5 * np.asarray(ds.box_size, dtype=float)[: ds.ndim]
    if isinstance(center, str):
        if center != "max":
            raise ValueError(f"center must be coordinates or 'max', not {center!r}")
        return densest_halo_centre(ds)
    centre = np.asarray(center, dtype=float).ravel()
    if not ds.ndim <= len(centre) <= 3:
        raise ValueError(f"center needs {ds.ndim} to 3 coordinates, got {len(centre)}")
    return centre[: ds.ndim]


def cell_radius(ds: Dataset, center: Sequence[float] | None = None, periodic: bool = False) -> np.ndarray:
    """Distance of every leaf cell centre from `center` (default the box centre), over the
    run's ndim axes; with ``periodic=True`` the nearest periodic image counts."""
    centre = _centre(ds, center)
    cells = ds.cells
    offset = np.stack([np.asarray(cells[name], dtype=float) for name in "xyz"[: ds.ndim]], axis=1) - centre
    if periodic:
        box = np.asarray(ds.box_size, dtype=float)[: ds.ndim]
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
    """The profile of `field` (a cell field name, stored or derived such as temperature, or one
    value per leaf cell) against the distance from `center` (code length; default the box centre;
    ``"max"`` the densest halo: :func:`densest_halo_centre`). ``"particle_density"`` profiles the
    dark matter instead: :func:`particle_density_profile`.

    `bins` is a number of equal shells from 0 to `rmax` (default: the largest cell-centre
    distance, so every cell counts) or an increasing sequence of shell edges. A cell belongs to
    the shell [r_i, r_i+1) holding its centre (the last shell includes its outer edge); cells
    beyond the last edge are left out. `weight`: ``"volume"`` averages over volume (sum f dV /
    sum dV, dV = dx^ndim), ``"mass"`` over mass (sum f rho dV / sum rho dV, rho the density
    field), None gives every cell the same weight. Periodic boxes: ``periodic=True`` measures
    distances to the nearest periodic image of the centre."""
    if isinstance(field, str) and field in PARTICLE_DENSITY_FIELDS:
        return particle_density_profile(ds, center, bins, rmax, periodic)
    cells = ds.cells
    values = _cell_values(ds, field, "field")
    center = _centre(ds, center)
    radius = cell_radius(ds, center, periodic)
    edges = _edges(bins, rmax, radius)
    volume = np.asarray(cells["dx"], dtype=float) ** ds.ndim
    if weight == "volume":
        w = volume
    elif weight == "mass":
        w = np.asarray(cells["density"], dtype=float) * volume
    elif weight is None:
        w = np.ones_like(volume)
    else:
        raise ValueError(f"weight must be 'volume', 'mass' or None, not {weight!r}")

    nbin = len(edges) - 1
    shell = _shells(edges, radius)
    inside = (shell >= 0) & (shell < nbin)
    shell, w_in, f_in = shell[inside], w[inside], values[inside]
    weights = np.bincount(shell, weights=w_in, minlength=nbin)
    total = np.bincount(shell, weights=w_in * f_in, minlength=nbin)
    ncells = np.bincount(shell, minlength=nbin)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(weights != 0.0, total / weights, np.nan)
    name = field if isinstance(field, str) else "field"
    return RadialProfile(edges, mean, weights, ncells, name, weight)


def _edges(bins, rmax, radius: np.ndarray) -> np.ndarray:
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
    return edges


def _shells(edges: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """Shell index of every radius (-1 inside the first edge, nbin beyond the last)."""
    shell = np.searchsorted(edges, radius, side="right") - 1
    shell[radius == edges[-1]] = len(edges) - 2  # the outer edge belongs to the last shell
    return shell


def particle_density_profile(ds: Dataset, center: Sequence[float] | str | None = None,
                             bins: int | Sequence[float] = 32, rmax: float | None = None,
                             periodic: bool = False) -> RadialProfile:
    """Dark-matter density in spherical shells around `center` (as :func:`radial_profile`): the
    particle mass in each shell over the shell's volume, code units (in a cosmological run the
    overdensity rho / mean matter density). ``weights`` holds the shell masses, ``ncells`` the
    particle counts. 3-D data only."""
    from .particle_projection import dark_matter
    if ds.ndim != 3:
        raise ValueError("particle density profiles need 3-D data")
    positions, masses = dark_matter(ds)
    offset = positions - _centre(ds, center)
    if periodic:
        box = np.asarray(ds.box_size, dtype=float)
        offset -= box * np.round(offset / box)
    radius = np.sqrt(np.sum(offset * offset, axis=1))
    if rmax is None and np.ndim(bins) == 0:
        rmax = 0.5 * float(np.min(ds.box_size))
    edges = _edges(bins, rmax, radius)
    nbin = len(edges) - 1
    shell = _shells(edges, radius)
    inside = (shell >= 0) & (shell < nbin)
    mass = np.bincount(shell[inside], weights=masses[inside], minlength=nbin)
    count = np.bincount(shell[inside], minlength=nbin)
    volume = 4.0 / 3.0 * np.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
    return RadialProfile(edges, mass / volume, mass, count, "particle_density", None)


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
    length_factor, length_name = length_unit(ds)
    edges = profile.edges * length_factor
    axes.stairs(np.ma.masked_invalid(profile.values), edges, baseline=None)
    if log:
        axes.set_yscale("log")
    axes.set_xlim(edges[0], edges[-1])
    axes.set_xlabel(f"radius [{length_name}]")
    if profile.field in PARTICLE_DENSITY_FIELDS:
        units, how = field_units(ds, "density"), "dark matter in shells"
    else:
        units = field_units(ds, profile.field)
        how = {"volume": "volume-weighted", "mass": "mass-weighted", None: "cell mean"}[weight]
    axes.set_ylabel(f"{profile.field} [{units}]" if units else profile.field)
    where = ", densest halo" if isinstance(center, str) else ""
    title = f"{profile.field} ({how}{where}), {epoch_label(ds)}"
    axes.set_title(title)
    path = None
    if filename is not None:
        path = save_with_title(figure, filename, title)
    return ProfileResult(path, figure, axes, profile)
