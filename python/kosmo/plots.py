"""Plots of kosmo snapshots, drawn with matplotlib's Agg canvas directly so that importing kosmo
never changes the user's pyplot backend."""

from __future__ import annotations

import pathlib
from dataclasses import dataclass
from typing import Any

import matplotlib
import numpy as np
from matplotlib import colors
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .dataset import Dataset
from .plot_units import cell_field, epoch_label, field_units, length_unit

_AXES = {"x": 0, "y": 1, "z": 2}
# In-plane axes (horizontal, vertical) of a slice normal to each axis.
_PLANE = {0: (1, 2), 1: (0, 2), 2: (0, 1)}
_NAMES = "xyz"


@dataclass
class SliceResult:
    """What slice_plot drew: the PNG's path, the figure and axes, and the sampled values
    (``values[row, column]``, row 0 at the bottom, as drawn with origin='lower'; None for a
    1-D line plot), their extent (left, right, bottom, top) and the colour mapping."""

    filename: pathlib.Path
    figure: Figure
    axes: Any
    values: np.ndarray | None
    extent: tuple[float, float, float, float] | None
    norm: colors.Normalize | None
    cmap: colors.Colormap | None


def _label(ds: Dataset, field: str) -> str:
    if field in ("x", "y", "z", "dx"):
        units = "code length"
    else:
        units = field_units(ds, field)
    return f"{field} [{units}]" if units else field


def save_with_title(figure: Figure, filename: str | pathlib.Path, title: str) -> pathlib.Path:
    """Write the figure as a PNG whose text metadata "Title" is `title` (what the plot shows and
    when, e.g. "z = 0.00"), so that tools and tests can read it without looking at the pixels."""
    path = pathlib.Path(filename)
    figure.savefig(path, dpi=figure.dpi, metadata={"Title": title})
    return path


def sample_leaf_cells(ds: Dataset, field: str, points: np.ndarray) -> np.ndarray:
    """Values of `field` (a stored or derived field: plot_units.cell_field) in the leaf cells
    that contain `points` ((n, ndim) in code length).

    Per level, the leaf cells' integer coordinates are encoded as int64 keys and sorted; each
    point's key at that level is looked up with np.searchsorted. Leaves tile the box, so every
    point inside it is found at exactly one level. Points on a face go to the upper cell.
    """
    values = cell_field(ds, field)
    points = np.asarray(points, dtype=float).reshape(-1, ds.ndim)
    extent = np.array([ds.nx, ds.ny, ds.nz][: ds.ndim], dtype=np.int64)
    result = np.full(len(points), np.nan)
    found_any = np.zeros(len(points), dtype=bool)
    for leaves in ds._leaf_levels():
        todo = np.flatnonzero(~found_any)
        if todo.size == 0:
            break
        cells_per_axis = extent << leaves.level  # 2**level * n_d
        dx = ds.cell_size(leaves.level)
        index = np.clip(np.floor(points[todo] / dx).astype(np.int64), 0, cells_per_axis - 1)
        # Mixed-radix key, x fastest; cell_index rows are exact integers, so keys match exactly.
        strides = np.concatenate(([1], np.cumprod(cells_per_axis[:-1])))
        cell_keys = leaves.cell_index @ strides
        point_keys = index @ strides
        order = np.argsort(cell_keys, kind="stable")
        sorted_keys = cell_keys[order]
        position = np.clip(np.searchsorted(sorted_keys, point_keys), 0, len(sorted_keys) - 1)
        hit = sorted_keys[position] == point_keys
        level_values = values[leaves.start : leaves.stop]
        result[todo[hit]] = level_values[order[position[hit]]]
        found_any[todo[hit]] = True
    return result


def slice_plot(
    ds: Dataset,
    field: str,
    axis: str = "z",
    coordinate: float | None = None,
    filename: str | pathlib.Path = "slice.png",
    resolution: int = 512,
    log: bool = False,
    cmap: str = "viridis",
    figsize: tuple[float, float] = (6.4, 4.8),
    dpi: float = 100,
) -> SliceResult:
    """Write a PNG of `field` on the plane normal to `axis` at `coordinate` (code length; default
    the box centre). Each pixel shows the leaf cell containing its centre. The image has
    `resolution` pixels along its horizontal axis (slice normal to z: x horizontal, y vertical;
    normal to y: x, z; normal to x: y, z), square pixels, axes in code length and a colour bar
    labelled with the field's name and units (fields derived from the stored ones, such as
    temperature, included: plot_units). In a cosmological run the axes are in comoving Mpc/h and the
    title gives the redshift (also the PNG's "Title" metadata). 2-D data can only be sliced along z (the plane
    itself). For 1-D data the field is drawn against x instead (cell by cell, as steps). The
    figure is `figsize` inches at `dpi` (default 640 x 480 pixels)."""
    cell_field(ds, field)  # a KeyError naming the available fields before anything is drawn
    filename = pathlib.Path(filename)
    figure = Figure(figsize=figsize, dpi=dpi)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()

    if ds.ndim == 1:
        return _line_plot(ds, field, filename, figure, axes, log)

    if axis not in _AXES:
        raise ValueError(f"axis must be 'x', 'y' or 'z', not {axis!r}")
    normal = _AXES[axis]
    if ds.ndim == 2 and normal != 2:
        raise ValueError("a 2-D dataset lies in the x-y plane: slice it along z")
    if resolution < 1:
        raise ValueError(f"resolution must be positive, got {resolution}")
    box = np.asarray(ds.box_size, dtype=float)
    if coordinate is None:
        coordinate = 0.5 * box[normal]
    if not 0.0 <= coordinate <= box[normal]:
        raise ValueError(f"{axis} = {coordinate} lies outside the box [0, {box[normal]}]")

    horizontal, vertical = _PLANE[normal]
    columns = int(resolution)
    rows = max(1, int(round(resolution * box[vertical] / box[horizontal])))
    h = (np.arange(columns) + 0.5) * (box[horizontal] / columns)
    v = (np.arange(rows) + 0.5) * (box[vertical] / rows)
    grid_v, grid_h = np.meshgrid(v, h, indexing="ij")  # (rows, columns)
    points = np.empty((rows * columns, ds.ndim))
    points[:, horizontal] = grid_h.ravel()
    points[:, vertical] = grid_v.ravel()
    if ds.ndim == 3:
        points[:, normal] = coordinate
    values = sample_leaf_cells(ds, field, points).reshape(rows, columns)

    shown = np.ma.masked_invalid(values)
    if log:
        shown = np.ma.masked_less_equal(shown, 0.0)
        if shown.count() == 0:
            raise ValueError(f"log=True but {field} has no positive value on this slice")
        norm: colors.Normalize = colors.LogNorm(vmin=shown.min(), vmax=shown.max())
    else:
        norm = colors.Normalize(vmin=shown.min(), vmax=shown.max())
    colormap = matplotlib.colormaps[cmap]
    extent = (0.0, float(box[horizontal]), 0.0, float(box[vertical]))
    length_factor, length_name = length_unit(ds)
    shown_extent = tuple(length_factor * bound for bound in extent)
    image = axes.imshow(shown, origin="lower", extent=shown_extent, norm=norm, cmap=colormap, interpolation="nearest")
    figure.colorbar(image, ax=axes, label=_label(ds, field))
    axes.set_xlabel(f"{_NAMES[horizontal]} [{length_name}]")
    axes.set_ylabel(f"{_NAMES[vertical]} [{length_name}]")
    unit = " Mpc/h" if length_name.startswith("Mpc") else ""
    where = f", slice at {axis} = {coordinate * length_factor:.4g}{unit}" if ds.ndim == 3 else ""
    title = f"{field}{where}, {epoch_label(ds)}"
    axes.set_title(title)
    save_with_title(figure, filename, title)
    return SliceResult(filename, figure, axes, values, extent, norm, colormap)


def _line_plot(ds: Dataset, field: str, filename: pathlib.Path, figure: Figure, axes, log: bool) -> SliceResult:
    cells = ds.cells
    order = np.argsort(np.asarray(cells["x"]), kind="stable")
    x, dx = np.asarray(cells["x"], dtype=float)[order], np.asarray(cells["dx"], dtype=float)[order]
    values = cell_field(ds, field)[order]
    if x.size:
        # Leaves tile the line, so the cells' left faces plus the last right face are the edges.
        edges = np.append(x - 0.5 * dx, x[-1] + 0.5 * dx[-1])
        axes.stairs(values, edges, baseline=None)
    if log:
        axes.set_yscale("log")
    axes.set_xlim(0.0, float(np.asarray(ds.box_size, dtype=float)[0]))
    axes.set_xlabel("x [code length]")
    axes.set_ylabel(_label(ds, field))
    title = f"{field}, {epoch_label(ds)}"
    axes.set_title(title)
    save_with_title(figure, filename, title)
    return SliceResult(filename, figure, axes, None, None, None, None)
