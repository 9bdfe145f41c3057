"""Power spectra and density projections of gas and particles (numpy only).

Conventions (docs/analysis.md, "Power spectra"):

* A periodic cube of side L (``boxlen``) and volume V = L^3 is sampled on n^3 points (N = n^3).
  The Fourier coefficients are ``delta_k = (1/N) sum_x delta_x exp(-i k.x)``, for the wavevectors
  ``k = (2 pi / L) m`` with integer m in [-n/2, n/2), and the power is
  ``P(k) = V <|delta_k|^2>``. With this normalisation P has units of volume (L^3), does not depend
  on n for a resolved field, and Parseval reads ``<delta_x^2> = sum_{k != 0} P(k) / V``. A
  plane wave ``A cos(k0.x)`` has ``delta_{+-k0} = A/2``, so ``P = V A^2 / 4`` on each of its two
  modes. For a Gaussian field P is the usual continuum power spectrum,
  ``<delta(k) delta*(k')> = (2 pi)^3 P(k) delta_D(k - k')``.
* Wavenumbers are in units of 1/L (they include the 2 pi): the fundamental is
  ``k_f = 2 pi / L`` and the Nyquist wavenumber ``k_Ny = pi n / L``. Give ``boxlen`` in Mpc/h to
  get k in h/Mpc and P in (Mpc/h)^3; :func:`power_spectrum` of a cosmological snapshot does so by
  default.
* Shell averages: every mode of the full n^3 grid counts once (k and -k separately; the real
  FFT's half space is weighted accordingly), k = 0 never counts. A bin holds the modes with
  ``edge_i <= |k| < edge_{i+1}`` (the last bin includes its upper edge); ``k`` is the mean |k| of
  its modes, ``power`` the mean of ``V |delta_k|^2`` and ``modes`` their number. Empty bins give
  NaN with ``modes`` 0. For a Gaussian field the modes of a bin pair up into ``modes / 2``
  independent complex amplitudes, so the cosmic-variance error of a bin is
  ``P sqrt(2 / modes)`` (``PowerSpectrum.error``).
"""

from __future__ import annotations

import math
import pathlib
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import numpy as np

from .plots import _AXES, _PLANE
from .projections import _overlaps, project, projection_plot

__all__ = [
    "PowerSpectrum",
    "density_projection",
    "density_projection_plot",
    "mass_assignment",
    "power_spectrum",
    "power_spectrum_of_field",
    "power_spectrum_of_particles",
    "resample_leaf_cells",
]

#: Order p of each mass-assignment window: W(k) = prod_axes sinc(k_axis h / 2)^p.
WINDOWS = {"ngp": 1, "cic": 2, "tsc": 3}

#: Most (particle or cell, stencil point) terms formed at once, to bound memory (~100 MB).
_CHUNK_TERMS = 4_000_000


@dataclass
class PowerSpectrum:
    """A binned power spectrum. Unpacks to ``(k, power, modes)``.

    ``k``: mean |k| of the modes in each bin (1/length, 2 pi included); ``power``: P(k) (length^3);
    ``modes``: number of grid modes per bin (k and -k counted separately); ``edges``: the bin edges;
    ``boxlen``, ``n``: box side and grid size; ``length_unit``: the unit of length of boxlen, 1/k
    and P^(1/3) (``"Mpc/h"``, comoving, or ``"code_length"`` from :func:`power_spectrum`; None when
    the caller gave lengths in a unit of its own). For particles also: ``shot_noise`` (the Poisson
    value ``V sum m^2 / (sum m)^2``, 1/nbar for equal masses), ``shot_noise_k`` (the shot noise the
    estimator contains in each bin, aliasing and window deconvolution included; it tends to
    ``shot_noise`` at low k), ``shot_noise_subtracted`` (whether ``shot_noise_k`` was taken off
    ``power``), ``window``, ``deconvolved``, ``interlaced``; ``nparticles``."""

    k: np.ndarray
    power: np.ndarray
    modes: np.ndarray
    edges: np.ndarray
    boxlen: float
    n: int
    shot_noise: float = 0.0
    shot_noise_k: np.ndarray | None = None
    shot_noise_subtracted: bool = False
    window: str | None = None
    deconvolved: bool = False
    interlaced: bool = False
    nparticles: int = 0
    length_unit: str | None = None

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter((self.k, self.power, self.modes))

    @property
    def error(self) -> np.ndarray:
        """Gaussian (cosmic variance + shot noise) error of each bin, ``(P + P_shot) sqrt(2 / modes)``,
        where P_shot is the shot noise taken off (0 when none was)."""
        total = self.power + (self.shot_noise_k if self.shot_noise_subtracted else 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.abs(total) * np.sqrt(2.0 / self.modes)


# ------------------------------------------------------------------------------------------------
# Fourier grid and binning
# ------------------------------------------------------------------------------------------------

def _integer_frequencies(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Integer wavevector components m of an rfftn of an n^3 array, broadcastable to its shape
    (n, n, n // 2 + 1)."""
    full = np.fft.fftfreq(n, 1.0 / n)
    half = np.fft.rfftfreq(n, 1.0 / n)
    return full[:, None, None], full[None, :, None], half[None, None, :]


def _half_space_weights(n: int) -> np.ndarray:
    """How many modes of the full grid each rfftn coefficient stands for along the last axis:
    1 for m_z = 0 and (n even) m_z = n/2, which are their own mirror, 2 for the others."""
    weights = np.full(n // 2 + 1, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    return weights


def _bin_edges(n: int, boxlen: float, bins, binning: str, kmin, kmax) -> np.ndarray:
    """Bin edges in k (1/length). See power_spectrum_of_field."""
    k_f = 2.0 * math.pi / boxlen
    k_ny = math.pi * n / boxlen
    if bins is not None and np.ndim(bins) == 1:
        edges = np.asarray(bins, dtype=float)
        if len(edges) < 2 or np.any(np.diff(edges) <= 0.0):
            raise ValueError("bin edges must be an increasing sequence of at least two values")
        return edges
    if binning == "linear":
        low = 0.5 * k_f if kmin is None else float(kmin)
        high = k_ny + 0.5 * k_f if kmax is None else float(kmax)
        count = max(1, n // 2) if bins is None else int(bins)
        if count < 1 or not high > low:
            raise ValueError(f"need bins >= 1 and kmax > kmin (got {count}, {low}, {high})")
        return np.linspace(low, high, count + 1)
    if binning == "log":
        low = k_f if kmin is None else float(kmin)
        high = k_ny if kmax is None else float(kmax)
        if not 0.0 < low < high:
            raise ValueError(f"logarithmic bins need 0 < kmin < kmax (got {low}, {high})")
        count = max(1, int(round(4.0 * math.log2(high / low)))) if bins is None else int(bins)
        if count < 1:
            raise ValueError(f"bins must be at least 1 (got {count})")
        edges = np.geomspace(low, high, count + 1)
        edges[0], edges[-1] = low, high
        return edges
    raise ValueError(f"binning must be 'linear' or 'log', not {binning!r}")


def _bin_modes(values: Sequence[np.ndarray], n: int, boxlen: float, edges: np.ndarray):
    """Shell-average arrays of rfftn shape over the bins: per bin the weighted mode count, mean |k|
    and the mean of each array in ``values``."""
    mx, my, mz = _integer_frequencies(n)
    q = np.sqrt(mx * mx + my * my + mz * mz)  # |m|, exact for perfect squares
    k = (2.0 * math.pi / boxlen) * q
    weights = np.broadcast_to(_half_space_weights(n)[None, None, :], q.shape)
    nbin = len(edges) - 1
    index = np.searchsorted(edges, k.ravel(), side="right") - 1
    index[k.ravel() == edges[-1]] = nbin - 1  # the last bin includes its upper edge
    keep = (index >= 0) & (index < nbin) & (q.ravel() > 0.0)
    index = index[keep]
    w = weights.ravel()[keep]
    modes = np.bincount(index, weights=w, minlength=nbin)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_k = np.bincount(index, weights=w * k.ravel()[keep], minlength=nbin) / modes
        means = [np.bincount(index, weights=w * np.ravel(v)[keep], minlength=nbin) / modes for v in values]
    empty = modes == 0
    mean_k[empty] = np.nan
    for mean in means:
        mean[empty] = np.nan
    return np.rint(modes).astype(np.int64), mean_k, means


def _check_field(delta: np.ndarray) -> int:
    if delta.ndim != 3 or len(set(delta.shape)) != 1:
        raise ValueError(f"the field must be a cubic n^3 array, got shape {delta.shape}")
    if not np.all(np.isfinite(delta)):
        raise ValueError("the field has non-finite values")
    return delta.shape[0]


def power_spectrum_of_field(delta: np.ndarray, boxlen: float = 1.0, bins=None, binning: str = "linear",
                            kmin: float | None = None, kmax: float | None = None) -> PowerSpectrum:
    """Shell-averaged power spectrum of a periodic real field ``delta`` (an n^3 array, axis 0 = x)
    sampled at the centres of n^3 cells of a cube of side ``boxlen``.

    ``P(k) = V <|delta_k|^2>`` with ``delta_k = (1/N) sum_x delta_x exp(-i k.x)`` (module docstring),
    k in 1/boxlen units with the 2 pi (k_f = 2 pi / boxlen). The mean of the field (k = 0) is
    ignored: pass a density contrast or any field.

    Bins: ``bins`` may be a sequence of edges (in k). Otherwise ``binning="linear"`` (default) makes
    ``bins`` equal bins from ``kmin`` to ``kmax`` (defaults k_f/2 and k_Ny + k_f/2, and n/2 bins, so
    the default bins are k_f wide and centred on k_f, 2 k_f, ..., k_Ny), ``binning="log"`` makes
    ``bins`` logarithmic bins from ``kmin`` to ``kmax`` (defaults k_f and k_Ny, 4 bins per factor 2).
    Modes beyond the last edge (the corners of the cube beyond k_Ny) are left out.

    Returns a :class:`PowerSpectrum`; ``k, P, modes = power_spectrum_of_field(...)``.
    """
    delta = np.asarray(delta, dtype=float)
    n = _check_field(delta)
    boxlen = float(boxlen)
    if not boxlen > 0.0:
        raise ValueError(f"boxlen must be positive (got {boxlen})")
    edges = _bin_edges(n, boxlen, bins, binning, kmin, kmax)
    coefficients = np.fft.rfftn(delta) / delta.size
    power = boxlen ** 3 * (coefficients.real ** 2 + coefficients.imag ** 2)
    modes, k, (mean_power,) = _bin_modes([power], n, boxlen, edges)
    return PowerSpectrum(k, mean_power, modes, edges, boxlen, n)


# ------------------------------------------------------------------------------------------------
# Particles
# ------------------------------------------------------------------------------------------------

def _window_order(window: str) -> int:
    try:
        return WINDOWS[window.lower()]
    except (KeyError, AttributeError):
        raise ValueError(f"window must be one of {', '.join(WINDOWS)}, not {window!r}") from None


def _stencil_1d(u: np.ndarray, order: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Grid cells (indices, periodic) and weights of positions ``u`` in cell units (cell i spans
    [i, i + 1), centre i + 1/2) for the NGP (order 1), CIC (2) and TSC (3) kernels, as (len(u), order)
    arrays."""
    if order == 1:
        index = np.floor(u).astype(np.int64)[:, None]
        weight = np.ones((len(u), 1))
    elif order == 2:
        s = u - 0.5
        first = np.floor(s)
        f = s - first
        index = first.astype(np.int64)[:, None] + np.arange(2)[None, :]
        weight = np.stack([1.0 - f, f], axis=1)
    else:
        s = u - 0.5
        centre = np.floor(s + 0.5)
        d = s - centre  # in [-1/2, 1/2)
        index = centre.astype(np.int64)[:, None] + np.arange(-1, 2)[None, :]
        weight = np.stack([0.5 * (0.5 - d) ** 2, 0.75 - d * d, 0.5 * (0.5 + d) ** 2], axis=1)
    return np.mod(index, n), weight


def mass_assignment(positions: np.ndarray, masses, boxlen: float, n: int, window: str = "cic") -> np.ndarray:
    """Masses of particles assigned to a periodic grid of n^d cells of side boxlen / n (d = 1, 2 or
    3, the number of columns of ``positions``; axis j of the result is column j). ``window`` is
    ``"ngp"`` (nearest grid point), ``"cic"`` (cloud in cell) or ``"tsc"`` (triangular shaped
    cloud); positions are wrapped into [0, boxlen). Returns the mass per cell (sums to the total
    mass to round-off); divide by the cell volume for a density."""
    positions = np.asarray(positions, dtype=float)
    if positions.ndim == 1:
        positions = positions[:, None]
    npart, ndim = positions.shape
    if not 1 <= ndim <= 3:
        raise ValueError(f"positions must have 1 to 3 columns, got {ndim}")
    masses = np.broadcast_to(np.asarray(1.0 if masses is None else masses, dtype=float), (npart,))
    order = _window_order(window)
    n = int(n)
    if n < 1:
        raise ValueError(f"n must be positive (got {n})")
    h = float(boxlen) / n
    grid = np.zeros(n ** ndim)
    terms = order ** ndim
    step = max(1, _CHUNK_TERMS // terms)
    for begin in range(0, npart, step):
        chunk = slice(begin, begin + step)
        flat = np.zeros((min(step, npart - begin),) + (1,) * ndim, dtype=np.int64)
        weight = masses[chunk].reshape((-1,) + (1,) * ndim)
        for axis in range(ndim):
            u = np.mod(positions[chunk, axis], boxlen) / h
            u = np.where(u >= n, u - n, u)  # mod may round up to boxlen
            index, w = _stencil_1d(u, order, n)
            shape = [len(u)] + [1] * ndim
            shape[axis + 1] = order
            flat = flat * n + index.reshape(shape)
            weight = weight * w.reshape(shape)
        grid += np.bincount(flat.ravel(), weights=np.broadcast_to(weight, flat.shape).ravel(), minlength=grid.size)
    return grid.reshape((n,) * ndim)


def _alias_sums(n: int, order: int) -> tuple[np.ndarray, np.ndarray]:
    """Per integer frequency m of an n-point axis (np.fft.fftfreq order, and the rfftfreq values
    are its first n // 2 + 1 entries up to the sign of m = n/2, on which both are even), with
    x = pi m / n: C = sum_j W^2(x + pi j) and A = sum_j (-1)^j W^2(x + pi j), W(x) = (sin x / x)^order.
    C enters the shot noise of a plain grid, A that of an interlaced one (Jing 2005; Sefusatti
    et al. 2016). Closed forms, s = sin x: NGP C = 1, A = cos x; CIC C = 1 - 2/3 s^2,
    A = cos x (cos^2 x + 5) / 6 (from sum_j (-1)^j / (x + pi j)^4 = -(1/6) d^3/dx^3 csc x);
    TSC C = 1 - s^2 + 2/15 s^4, and A summed to |j| <= 400 (truncation error below 1e-15)."""
    m = np.fft.fftfreq(n, 1.0 / n)
    x = math.pi * m / n
    s2 = np.sin(x) ** 2
    if order == 1:
        return np.ones(n), np.cos(x)
    if order == 2:
        return 1.0 - 2.0 / 3.0 * s2, np.cos(x) * (np.cos(x) ** 2 + 5.0) / 6.0
    j = np.arange(-400, 401)
    terms = np.sinc(m[:, None] / n + j[None, :]) ** (2 * order)
    return 1.0 - s2 + 2.0 / 15.0 * s2 * s2, (terms * np.where(j % 2 == 0, 1.0, -1.0)[None, :]).sum(axis=1)


def _rfft_axis_values(values: np.ndarray, n: int):
    """A per-axis array in fftfreq order as three arrays broadcastable to the rfftn shape."""
    half = values[: n // 2 + 1]  # rfftfreq's 0..n/2; the functions are even in m
    return values[:, None, None], values[None, :, None], half[None, None, :]


def power_spectrum_of_particles(positions: np.ndarray, masses=None, boxlen: float = 1.0, n: int = 64,
                                window: str = "cic", deconvolve: bool = True, interlacing: bool = False,
                                subtract_shot_noise: bool = False, bins=None, binning: str = "linear",
                                kmin: float | None = None, kmax: float | None = None) -> PowerSpectrum:
    """Power spectrum of the mass density of particles (``positions`` (N, 3) in [0, boxlen),
    periodic; ``masses`` one per particle, a scalar, or None for equal masses) on an n^3 grid.

    * Mass assignment with ``window`` "ngp", "cic" (default) or "tsc" (:func:`mass_assignment`),
      then ``delta = rho / mean(rho) - 1`` and the estimator of :func:`power_spectrum_of_field`.
    * ``deconvolve`` (default True) divides each Fourier mode by the window
      ``W(k) = prod_axes sinc(k_axis h / 2)^p`` (h = boxlen / n; p = 1, 2, 3 for NGP, CIC, TSC).
    * ``interlacing`` assigns the particles a second time shifted by h/2 along every axis and
      averages the two grids' modes after undoing the shift's phase, exp(i k.(h/2)(1, 1, 1)): the
      aliased images of odd order cancel (Hockney & Eastwood; Sefusatti et al. 2016).
    * Shot noise: the Poisson value is ``P_shot = V sum m^2 / (sum m)^2``, which is ``1/nbar = V/N``
      for equal masses. After assignment, aliasing and deconvolution the estimator holds
      ``P_shot S(k) / W(k)^2`` per mode, with ``S = prod_axes C`` (``C = sum_j W_1^2(x + pi j)``,
      ``x = k_axis h / 2``; C = 1 for NGP, 1 - 2/3 sin^2 x for CIC) or, interlaced,
      ``(prod C + prod A) / 2`` with A the alternating sum; it tends to P_shot at low k.
      ``subtract_shot_noise`` (default False) subtracts it mode by mode; the result always reports
      ``shot_noise`` (P_shot) and ``shot_noise_k`` (its bin averages). A perfect lattice has no
      shot noise (its power vanishes below the lattice's Nyquist wavenumber): do not subtract it
      from glass or lattice initial conditions.

    Binning as in :func:`power_spectrum_of_field`. Returns a :class:`PowerSpectrum`.
    """
    positions = np.asarray(positions, dtype=float)
    if positions.ndim != 2 or positions.shape[1] != 3:
        raise ValueError(f"positions must be an (N, 3) array, got shape {positions.shape}")
    npart = len(positions)
    if npart == 0:
        raise ValueError("no particles")
    masses = np.broadcast_to(np.asarray(1.0 if masses is None else masses, dtype=float), (npart,))
    total = masses.sum()
    if not total > 0.0:
        raise ValueError("the total particle mass must be positive")
    boxlen, n = float(boxlen), int(n)
    order = _window_order(window)
    volume = boxlen ** 3
    h = boxlen / n
    edges = _bin_edges(n, boxlen, bins, binning, kmin, kmax)

    def contrast_modes(shift: float) -> np.ndarray:
        grid = mass_assignment(positions + shift, masses, boxlen, n, window)
        return np.fft.rfftn(grid / (total / grid.size) - 1.0) / grid.size

    modes = contrast_modes(0.0)
    mx, my, mz = _integer_frequencies(n)
    if interlacing:
        phase = np.exp(1j * math.pi * (mx + my + mz) / n)  # exp(i k.s), s = h/2 (1, 1, 1)
        modes = 0.5 * (modes + contrast_modes(0.5 * h) * phase)

    c_axis, a_axis = _alias_sums(n, order)
    cx, cy, cz = _rfft_axis_values(c_axis, n)
    shot_shape = cx * cy * cz
    if interlacing:
        ax, ay, az = _rfft_axis_values(a_axis, n)
        shot_shape = 0.5 * (shot_shape + ax * ay * az)
    shot = volume * float(np.sum(masses * masses)) / total ** 2
    power = volume * (modes.real ** 2 + modes.imag ** 2)
    if deconvolve:
        window_k = (np.sinc(mx / n) * np.sinc(my / n) * np.sinc(mz / n)) ** order
        window_sq = window_k * window_k
        power = power / window_sq
        shot_shape = shot_shape / window_sq
    shot_modes = shot * np.broadcast_to(shot_shape, power.shape)
    if subtract_shot_noise:
        power = power - shot_modes
    count, k, (mean_power, mean_shot) = _bin_modes([power, shot_modes], n, boxlen, edges)
    return PowerSpectrum(k, mean_power, count, edges, boxlen, n, shot_noise=shot, shot_noise_k=mean_shot,
                         shot_noise_subtracted=bool(subtract_shot_noise), window=window.lower(),
                         deconvolved=bool(deconvolve), interlaced=bool(interlacing), nparticles=npart)


# ------------------------------------------------------------------------------------------------
# Datasets: gas leaf cells resampled onto a uniform grid, and particles
# ------------------------------------------------------------------------------------------------

def _cubic_box(ds) -> float:
    if getattr(ds, "ndim", 3) != 3:
        raise ValueError(f"power spectra and density projections need 3-D data; this dataset is {ds.ndim}-D")
    box = np.asarray(getattr(ds, "box_size", (ds.boxlen,) * 3), dtype=float)
    if not np.allclose(box, box[0], rtol=1e-12, atol=0.0):
        raise ValueError(f"power spectra need a cubic box; this one is {box[0]} x {box[1]} x {box[2]}")
    return float(box[0])


def _leaf_values(ds, field) -> np.ndarray:
    cells = ds.cells
    if isinstance(field, str):
        if field not in cells:
            raise KeyError(f"no field {field!r}; available: {', '.join(cells)}")
        return np.asarray(cells[field], dtype=float)
    values = np.asarray(field, dtype=float)
    if values.shape != (len(cells["dx"]),):
        raise ValueError(f"field array has shape {values.shape}; expected ({len(cells['dx'])},), one per leaf cell")
    return values


def _default_grid(ds, box: float) -> int:
    """Cells per axis of the finest leaf level present, at most 256."""
    dx = np.asarray(ds.cells["dx"], dtype=float)
    if dx.size == 0:
        raise ValueError("the dataset has no leaf cells")
    return int(min(256, round(box / dx.min())))


def resample_leaf_cells(ds, field="density", n: int | None = None) -> np.ndarray:
    """The volume average of a leaf-cell field over each cell of a uniform n^3 grid covering the
    (cubic, 3-D) box, ``grid[ix, iy, iz]``.

    Each leaf cell (a cube of side dx) gives every grid cell (side h = box / n) ``f V_overlap / h^3``,
    with the overlap volume the product of three 1-D interval overlaps. When the grid and the mesh
    are aligned (n a power of two times the base grid) this is: a leaf finer than the grid adds
    ``f (dx/h)^3`` to the one grid cell containing it (its volume-weighted share of the average), a
    leaf coarser than the grid fills the (dx/h)^3 grid cells it covers with f. Misaligned grids are
    handled by the same overlaps. The integral ``sum f dx^3`` is conserved to round-off
    (``grid.sum() * h**3``). ``field``: a cell field name or one value per leaf cell; ``n``: default
    the finest leaf level's cells per axis, at most 256."""
    box = _cubic_box(ds)
    n = _default_grid(ds, box) if n is None else int(n)
    if n < 1:
        raise ValueError(f"n must be positive (got {n})")
    cells = ds.cells
    values = _leaf_values(ds, field)
    h = box / n
    dx = np.asarray(cells["dx"], dtype=float)
    low = [np.asarray(cells[name], dtype=float) - 0.5 * dx for name in ("x", "y", "z")]
    grid = np.zeros(n ** 3)
    for size in np.unique(dx):  # one cell size per level: the same stencil for all its cells
        members = np.flatnonzero(dx == size)
        span = int(np.ceil(size / h)) + 1
        step = max(1, _CHUNK_TERMS // span ** 3)
        for begin in range(0, len(members), step):
            chunk = members[begin : begin + step]
            ix, lx = _overlaps(low[0][chunk], size, h, n)
            iy, ly = _overlaps(low[1][chunk], size, h, n)
            iz, lz = _overlaps(low[2][chunk], size, h, n)
            volume = lx[:, :, None, None] * ly[:, None, :, None] * lz[:, None, None, :]
            flat = (ix[:, :, None, None] * n + iy[:, None, :, None]) * n + iz[:, None, None, :]
            grid += np.bincount(flat.ravel(), weights=(volume * values[chunk, None, None, None]).ravel(),
                                minlength=grid.size)
    return grid.reshape(n, n, n) / h ** 3


def _particle_arrays(ds, family) -> tuple[np.ndarray, np.ndarray]:
    particles = getattr(ds, "particles", None)
    names = ("x", "y", "z", "mass")
    if particles is None or any(name not in particles for name in names) or len(particles["x"]) == 0:
        raise ValueError("this dataset has no particles (ds.particles is empty: the run had pic=.false.); "
                         "use particles=False for the gas")
    positions = np.stack([np.asarray(particles[name], dtype=float) for name in names[:3]], axis=1)
    masses = np.asarray(particles["mass"], dtype=float)
    if family is not None:
        keep = np.isin(np.asarray(particles["family"]), np.atleast_1d(family))
        if not keep.any():
            raise ValueError(f"this dataset has no particles of family {family!r}")
        positions, masses = positions[keep], masses[keep]
    return positions, masses


def _length_scale(ds, box: float, boxlen: float | None, units: str | None) -> tuple[float, str | None]:
    """The box side in the unit the spectrum is given in, and that unit's name."""
    if boxlen is not None:
        if units is not None:
            raise ValueError("give boxlen or units, not both")
        return float(boxlen), None
    if units is None:
        units = "Mpc/h" if getattr(ds, "cosmological", False) else "code_length"
    if units == "code_length":
        return box, "code_length"
    if units != "Mpc/h":
        raise ValueError(f"units must be 'Mpc/h' or 'code_length', not {units!r}")
    if not getattr(ds, "cosmological", False):
        raise ValueError("k in h/Mpc needs a cosmological run (this one has no comoving Mpc/h); use "
                         "units='code_length' or boxlen=")
    return float(ds.domain_width.to_value("Mpccm/h")[0]), "Mpc/h"


def power_spectrum(ds, field="density", n: int | None = None, particles: bool = False,
                   boxlen: float | None = None, family=None, units: str | None = None,
                   **options) -> PowerSpectrum:
    """Power spectrum of a dataset's gas (default) or particles.

    Gas: the leaf cells' ``field`` (a name or one value per leaf cell) is resampled conservatively
    onto a uniform n^3 grid (:func:`resample_leaf_cells`; n defaults to the finest leaf level's
    cells per axis, at most 256), ``delta = f / mean(f) - 1`` and :func:`power_spectrum_of_field`.
    No window is deconvolved: the grid values are cell averages, as the hydro variables are.

    Particles (``particles=True``): positions and masses of ``ds.particles`` (optionally only the
    ``family`` given, e.g. 1 for dark matter) and :func:`power_spectrum_of_particles`; ``n``
    defaults to twice the cube root of the particle number (at least 8, at most 512). Raises
    ValueError when the dataset has no particles.

    Units: in a cosmological run k is in h/Mpc and P in (Mpc/h)^3, comoving (``units="Mpc/h"``,
    the default there: the box is boxlen_ini comoving Mpc/h); otherwise, or with
    ``units="code_length"``, in 1/code length and code length^3. ``boxlen`` instead sets the box
    side in a unit of the caller's. The result's ``length_unit`` names the unit. ``options`` go to
    the estimator (bins, binning, kmin, kmax, in the result's units; for particles also window,
    deconvolve, interlacing, subtract_shot_noise).
    """
    box = _cubic_box(ds)
    length, unit = _length_scale(ds, box, boxlen, units)
    if particles:
        positions, masses = _particle_arrays(ds, family)
        if n is None:
            n = int(min(512, max(8, 2 * round(len(positions) ** (1.0 / 3.0)))))
        result = power_spectrum_of_particles(positions * (length / box), masses, length, n, **options)
    else:
        grid = resample_leaf_cells(ds, field, n)
        mean = grid.mean()
        if mean == 0.0:
            raise ValueError("the field's mean is zero: its density contrast is undefined")
        result = power_spectrum_of_field(grid / mean - 1.0, length, **options)
    result.length_unit = unit
    return result


# ------------------------------------------------------------------------------------------------
# Density projections
# ------------------------------------------------------------------------------------------------

def _particle_surface_density(ds, axis: str, n: int, window: str, family) -> tuple[np.ndarray, float]:
    box = _cubic_box(ds)
    positions, masses = _particle_arrays(ds, family)
    horizontal, vertical = _PLANE[_AXES[axis]]
    mass = mass_assignment(positions[:, [vertical, horizontal]], masses, box, n, window)  # [row, column]
    return mass / (box / n) ** 2, box


def density_projection(ds, axis: str = "z", n: int = 512, particles: bool = False, window: str = "cic",
                       family=None) -> np.ndarray:
    """Surface density (code mass per code area) projected along ``axis`` on n x n pixels, as
    ``values[row, column]`` with the image axes of :func:`kosmo.project` (along z: x horizontal, y
    vertical; along y: x, z; along x: y, z; row 0 at the bottom).

    Gas: :func:`kosmo.project` of the density (exact overlap deposit of the leaf cells). Particles:
    the masses assigned to the pixels with ``window`` ("ngp", "cic", "tsc"; periodic), divided by
    the pixel area. Both sum, times the pixel area, to the total mass. From a snapshot (``kosmo.load``)
    the values carry their unit, code mass per code area (``.to("Msun/kpc**2")``: physical)."""
    if axis not in _AXES:
        raise ValueError(f"axis must be 'x', 'y' or 'z', not {axis!r}")
    if particles:
        surface = _particle_surface_density(ds, axis, int(n), window, family)[0]
    else:
        _cubic_box(ds)
        surface = np.asarray(project(ds, "density", axis, resolution=int(n))[0], dtype=float)
    return ds.arr(surface, "code_mass/code_length**2") if hasattr(ds, "arr") else surface


class _PixelLayer:
    """The minimal dataset :func:`kosmo.projection_plot` draws from, made of one layer of n x n
    cubic cells of the pixel size in the plane normal to the projection axis, whose
    ``particle_density`` is the surface density divided by the pixel size: projected, each cell
    covers exactly its pixel and gives back the surface density. It lets the particle image reuse
    projection_plot's colour scale, labels and file writing."""

    ndim = 3

    def __init__(self, ds, axis: str, surface: np.ndarray, box: float):
        n = surface.shape[0]
        h = box / n
        normal = _AXES[axis]
        horizontal, vertical = _PLANE[normal]
        row, column = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
        centres = {horizontal: (column.ravel() + 0.5) * h, vertical: (row.ravel() + 0.5) * h,
                   normal: np.full(n * n, 0.5 * box)}
        from .dataset import Cells
        self.cells = Cells({"x": centres[0], "y": centres[1], "z": centres[2], "dx": np.full(n * n, h),
                            "level": np.zeros(n * n, dtype=np.int32),
                            "particle_density": surface.ravel() / h})
        self.box_size = np.full(3, box)
        self.boxlen = box
        self.time = getattr(ds, "time", 0.0)
        self.fields: dict[str, Any] = {}
        self._h = h

    def cell_size(self, level: int) -> float:
        return self._h


def density_projection_plot(ds, axis: str = "z", n: int = 512, particles: bool = False,
                            filename: str | pathlib.Path | None = None, log: bool | None = None,
                            window: str = "cic", family=None, **plot_options):
    """Draw :func:`density_projection` with :func:`kosmo.projection_plot` (same colour scale,
    labels, ``filename``, ``log``, ``cmap``, ``figsize``, ``dpi``) and return its ProjectionResult.
    For particles the image is drawn through a layer of pixel-sized cells carrying the particle
    surface density, so ``result.values`` equals :func:`density_projection` (to round-off)."""
    if axis not in _AXES:
        raise ValueError(f"axis must be 'x', 'y' or 'z', not {axis!r}")
    if not particles:
        _cubic_box(ds)
        return projection_plot(ds, "density", axis, resolution=int(n), filename=filename, log=log, **plot_options)
    surface, box = _particle_surface_density(ds, axis, int(n), window, family)
    layer = _PixelLayer(ds, axis, surface, box)
    return projection_plot(layer, "particle_density", axis, resolution=int(n), filename=filename, log=log,
                           **plot_options)
