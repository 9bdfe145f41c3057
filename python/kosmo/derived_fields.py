"""Derived cell fields of a snapshot (docs/analysis.md, "Units, redshift and derived fields"): quantities
computed from the stored fields and the snapshot's units on first access, ``ds.cells["temperature"]``.

Each is a function of the :class:`kosmo.Cells` table (``cells``) built for one dataset (``ds``); a
function with ``cached = False`` is computed at every access (it follows a setting of ``ds``)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import units as _units


def derived_cell_fields(ds: Any, arrays: dict[str, np.ndarray]) -> dict[str, Callable[[Any], np.ndarray]]:
    """The derived fields (docs/analysis.md, "Units, redshift and derived fields") the stored ones allow."""
    derived: dict[str, Any] = {"cell_volume": lambda cells: cells["dx"] ** ds.ndim}
    if "density" in arrays:
        derived["cell_mass"] = lambda cells: cells["density"] * cells["cell_volume"]
    if "density" in arrays and "pressure" in arrays:
        def temperature_over_mu(cells: Any) -> _units.SnapshotArray:
            # RAMSES' T2 = P / rho (unit_l / unit_t)^2 m_H / k_B, with RAMSES' m_H and k_B.
            ratio = (cells["pressure"] / cells["density"]).to_value("cm**2/s**2")
            return ds.arr(ratio * (_units.HYDROGEN_MASS / _units.BOLTZMANN_CONSTANT), "K")

        def temperature(cells: Any) -> _units.SnapshotArray:
            return cells["temperature_over_mu"] * ds.mean_molecular_weight

        temperature.cached = False  # type: ignore[attr-defined]  # follows ds.mean_molecular_weight
        derived["temperature_over_mu"] = temperature_over_mu
        derived["temperature"] = temperature
    if ds.particle_count > 0:
        derived["particle_density"] = lambda cells: _particle_density(ds, cells)
    return derived


def _particle_density(ds: Any, cells: Any) -> _units.SnapshotArray:
    """The particles' mass in each leaf cell (nearest grid point: each particle's whole mass goes
    to the leaf cell containing it) over the cell volume: mass is conserved exactly, the sum of
    particle_density times cell_volume is the particles' total mass (in the loaded region)."""
    particles = ds.particles
    points = np.stack([np.asarray(particles[name], dtype=float) for name in "xyz"[: ds.ndim]], axis=1)
    index = ds.leaf_cell_index(points)
    inside = index >= 0
    mass = np.bincount(index[inside], weights=np.asarray(particles["mass"], dtype=float)[inside],
                       minlength=cells.ncells)
    volume = np.asarray(cells["dx"], dtype=float) ** ds.ndim
    return ds.arr(mass / volume, "code_density")
