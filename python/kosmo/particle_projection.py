"""Projected density of particles with adaptive (SPH-like) smoothing: every particle spreads its
mass over a disc whose radius follows the local particle spacing, so dense haloes stay sharp and
voids are filled (a pixel is empty only where no particle lies within about two local spacings of
its line of sight, which never happens through a cosmological box).

Smoothing radius: the local density at each particle is the cloud-in-cell density of a periodic
grid, interpolated back to the particle (the particle's own mass included, so it is never zero).
Grids of 1, 2, 4 and 8 times N^(1/3) cells per axis are tried; each particle takes the finest one
whose cloud holds at least ``MIN_NEIGHBOURS`` particles' mass (enough for a density estimate),
and its kernel radius is ``R = 2 (m / rho)^(1/3)``, the radius of a sphere holding about 32
particles (SPH's usual neighbour number), at least one pixel.

Deposit: the 2-D cubic-spline kernel W(r / R) (support r < R) evaluated at pixel centres and
normalised per particle to sum to one, so the image times the pixel area sums to the total mass
exactly; pixels wrap periodically. Particles with the same stencil width are deposited together
(numpy only, no loop over particles).
"""

from __future__ import annotations

import numpy as np

from .plots import _AXES, _PLANE
from .spectra import mass_assignment

#: Particles' worth of mass a grid cloud must hold before its density is trusted.
MIN_NEIGHBOURS = 8.0
#: Finest density grid, in cells per axis (memory: n^3 doubles).
_FINEST_GRID = 256
#: Most (particle, pixel) terms formed at once (~100 MB of temporaries).
_CHUNK_TERMS = 3_000_000


def dark_matter(ds) -> tuple[np.ndarray, np.ndarray]:
    """Positions (N, 3), code length, and masses of the dataset's dark-matter particles (family 1
    when the output has families, else every particle)."""
    particles = ds.particles
    if particles is None or "x" not in particles or len(np.asarray(particles["x"])) == 0:
        raise ValueError("this output has no particles (the run had pic=.false.)")
    positions = np.stack([np.asarray(particles[name], dtype=float) for name in ("x", "y", "z")], axis=1)
    masses = np.asarray(particles["mass"], dtype=float)
    if "family" in particles:
        keep = np.asarray(particles["family"]) == 1
        if keep.any():
            positions, masses = positions[keep], masses[keep]
    return positions, masses


def _interpolate_cic(grid: np.ndarray, positions: np.ndarray, box: float) -> np.ndarray:
    """Cloud-in-cell interpolation of a periodic n^3 grid (cell centres at (i + 1/2) h) at positions."""
    n = grid.shape[0]
    u = np.mod(positions / (box / n) - 0.5, n)
    low = np.floor(u).astype(np.int64)
    fraction = u - low
    result = np.zeros(len(positions))
    for corner in range(8):
        offset = [(corner >> axis) & 1 for axis in range(3)]
        weight = np.ones(len(positions))
        index = []
        for axis in range(3):
            weight *= fraction[:, axis] if offset[axis] else 1.0 - fraction[:, axis]
            index.append((low[:, axis] + offset[axis]) % n)
        result += weight * grid[index[0], index[1], index[2]]
    return result


def smoothing_radii(positions: np.ndarray, masses: np.ndarray, box: float) -> np.ndarray:
    """Kernel radius of every particle, R = 2 (m / rho)^(1/3), with rho from the finest CIC grid
    whose cloud holds at least MIN_NEIGHBOURS particles' mass (module docstring)."""
    base = max(4, int(round(len(positions) ** (1.0 / 3.0))))
    mean_mass = float(masses.mean())
    density = None
    n = base
    while n <= min(8 * base, _FINEST_GRID):
        cloud_mass = _interpolate_cic(mass_assignment(positions, masses, box, n, "cic"), positions, box)
        trusted = cloud_mass >= MIN_NEIGHBOURS * mean_mass
        estimate = cloud_mass / (box / n) ** 3
        density = estimate if density is None else np.where(trusted, estimate, density)
        n *= 2
    return 2.0 * np.cbrt(masses / density)


def _kernel(q: np.ndarray) -> np.ndarray:
    """The cubic spline of Monaghan & Lattanzio (1985) with support q < 1 (unnormalised)."""
    return np.where(q < 0.5, 1.0 - 6.0 * q * q + 6.0 * q ** 3, np.where(q < 1.0, 2.0 * (1.0 - q) ** 3, 0.0))


def particle_projection(ds, axis: str = "z", resolution: int = 512, radii: np.ndarray | None = None) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """Surface density of the dark matter (code mass per code area) projected along `axis` through
    the whole (cubic, periodic) box on resolution^2 pixels, ``values[row, column]`` with the image
    axes of :func:`kosmo.project`, and its extent; adaptive smoothing as in the module docstring
    (``radii`` overrides the kernel radii, code length)."""
    if axis not in _AXES:
        raise ValueError(f"axis must be 'x', 'y' or 'z', not {axis!r}")
    box = float(np.asarray(ds.box_size, dtype=float)[0])
    positions, masses = dark_matter(ds)
    n = int(resolution)
    if n < 1:
        raise ValueError(f"resolution must be positive, got {resolution}")
    pixel = box / n
    radius = smoothing_radii(positions, masses, box) if radii is None else np.asarray(radii, dtype=float)
    radius = np.maximum(radius, pixel)  # at least the nearest pixel centre lies inside the kernel
    horizontal, vertical = _PLANE[_AXES[axis]]
    centre = np.mod(positions[:, [horizontal, vertical]], box) / pixel  # in pixels
    image = np.zeros(n * n)
    # Stencil: pixels whose centres lie within R of the particle, first = floor(c - R/pixel - 1/2) + 1.
    first = np.floor(centre - (radius / pixel)[:, None] - 0.5).astype(np.int64) + 1
    span = np.ceil(2.0 * radius / pixel).astype(np.int64) + 1
    for width in np.unique(span):
        members = np.flatnonzero(span == width)
        offsets = np.arange(width)
        step = max(1, _CHUNK_TERMS // (width * width))
        for begin in range(0, len(members), step):
            chunk = members[begin : begin + step]
            column = first[chunk, 0, None] + offsets[None, :]  # (m, width)
            row = first[chunk, 1, None] + offsets[None, :]
            dh = (column + 0.5 - centre[chunk, 0, None]) ** 2
            dv = (row + 0.5 - centre[chunk, 1, None]) ** 2
            scale = (pixel / radius[chunk])[:, None, None]
            weight = _kernel(np.sqrt(dv[:, :, None] + dh[:, None, :]) * scale)  # (m, rows, columns)
            weight *= (masses[chunk] / weight.sum(axis=(1, 2)))[:, None, None]
            flat = (row % n)[:, :, None] * n + (column % n)[:, None, :]
            image += np.bincount(flat.ravel(), weights=weight.ravel(), minlength=n * n)
    return image.reshape(n, n) / pixel ** 2, (0.0, box, 0.0, box)


def particle_projection_plot(ds, axis: str = "z", resolution: int = 512, filename=None, log: bool | None = None,
                             cmap: str = "inferno", figsize: tuple[float, float] = (6.4, 4.8), dpi: float = 100):
    """Draw :func:`particle_projection` as :func:`kosmo.projection_plot` draws the gas: colour bar
    in physical units (plot_units.surface_density_unit), axes in comoving Mpc/h in a cosmological
    run, the redshift in the title and the PNG's "Title" metadata. Returns a ProjectionResult whose
    ``values`` are the surface density in code units."""
    from .plot_units import epoch_label, surface_density_unit
    from .projections import draw_image
    values, extent = particle_projection(ds, axis, resolution)
    unit_factor, units = surface_density_unit(ds)
    title = f"dark matter projected along {axis}, {epoch_label(ds)}"
    return draw_image(ds, values, extent, axis, f"projected dark-matter density [{units}]", title, unit_factor,
                      units, filename, log, cmap, figsize, dpi)
