"""Projections of 3-D kosmo snapshots: a field integrated along a line of sight, deposited
exactly from the leaf cells onto an image.

Each leaf cell is a cube of side dx. Seen along the projection axis its footprint is a dx x dx
square, and its contribution to the column integral of a field f is f * dx over that square.
A pixel receives f * dx times the fraction of its area that the footprint covers, so the image
is the exact pixel average of the column integral, whatever the pixel size relative to the
cells: the pixel values times the pixel area sum to the volume integral of f (the total mass for
f = density), and a uniform field projects to value * box length everywhere. The overlap of a
square with a pixel is the product of two 1-D interval overlaps, so the deposit is separable:
per level (one cell size) every cell covers the same number of pixel columns and rows, and one
numpy expression over (cells, columns, rows) plus np.bincount does the deposit, with no Python
loop over cells.
"""

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
from .plot_units import cell_field, epoch_label, field_units, length_unit, surface_density_unit
from .plots import _AXES, _NAMES, _PLANE, save_with_title

#: Most (cell, column, row) overlap terms formed at once; bounds the deposit's memory (~100 MB).
_CHUNK_TERMS = 4_000_000


@dataclass
class ProjectionResult:
    """What projection_plot drew: the PNG's path (None when no file was written), the figure and
    axes, the projected image (``values[row, column]``, row 0 at the bottom, as drawn with
    origin='lower'), its extent (left, right, bottom, top), the colour mapping, and the
    projection axis and weight."""

    filename: pathlib.Path | None
    figure: Figure
    axes: Any
    values: np.ndarray
    extent: tuple[float, float, float, float]
    norm: colors.Normalize
    cmap: colors.Colormap
    axis: str
    weight: str | None
    #: The colour bar shows ``values * unit_factor`` in ``units`` (physical units where the output
    #: has them: plot_units); ``values`` stay in code units.
    unit_factor: float = 1.0
    units: str = ""


def _cell_values(ds: Dataset, values: str | np.ndarray, what: str) -> np.ndarray:
    """A field of the leaf cells (stored or derived: plot_units.cell_field), by name or as an array
    with one value per leaf cell."""
    cells = ds.cells
    if isinstance(values, str):
        try:
            return cell_field(ds, values)
        except KeyError as error:
            raise KeyError(f"no {what} {values!r}: {error.args[0]}") from None
    array = np.asarray(values, dtype=float)
    ncells = len(np.asarray(cells["dx"]))
    if array.shape != (ncells,):
        raise ValueError(f"{what} array has shape {array.shape}; expected ({ncells},), one per leaf cell")
    return array


def _image_shape(ds: Dataset, normal: int, resolution: int) -> tuple[int, int, float, float]:
    """(rows, columns, pixel width, pixel height): `resolution` columns, rows chosen so that the
    pixels are as square as the box allows, as in slice_plot."""
    if resolution < 1:
        raise ValueError(f"resolution must be positive, got {resolution}")
    box = np.asarray(ds.box_size, dtype=float)
    horizontal, vertical = _PLANE[normal]
    columns = int(resolution)
    rows = max(1, int(round(resolution * box[vertical] / box[horizontal])))
    return rows, columns, box[horizontal] / columns, box[vertical] / rows


def _overlaps(low: np.ndarray, size: float, pixel: float, npixel: int) -> tuple[np.ndarray, np.ndarray]:
    """For intervals [low, low + size): the pixels (index, clipped to the image) each may touch
    and the length of its overlap with each, as two (n, span) arrays. `span` is the most pixels
    an interval of this size can touch, so every row has the same length."""
    span = int(np.ceil(size / pixel)) + 1
    first = np.floor(low / pixel).astype(np.int64)
    index = first[:, None] + np.arange(span)[None, :]
    pixel_low = index * pixel
    length = np.minimum(low[:, None] + size, pixel_low + pixel) - np.maximum(low[:, None], pixel_low)
    np.clip(length, 0.0, None, out=length)
    return np.clip(index, 0, npixel - 1), length


def project(
    ds: Dataset,
    field: str | np.ndarray,
    axis: str = "z",
    weight: str | np.ndarray | None = None,
    resolution: int = 512,
) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """The projection of `field` along `axis` as an image, and its extent.

    Without a weight, each pixel holds the column integral of the field averaged over the
    pixel, sum over leaf cells of ``f * dx * overlap_area / pixel_area`` (for density: surface
    density, code mass per code area). With a weight w (a field name such as ``"density"``, or
    an array, one value per leaf cell), each pixel holds the w-weighted mean along the line of
    sight, ``sum f w dx overlap / sum w dx overlap`` (NaN where no weight falls). Images are
    ``values[row, column]``, row 0 at the bottom; axes as in slice_plot (normal to z: x
    horizontal, y vertical; normal to y: x, z; normal to x: y, z). 3-D data only.
    """
    if ds.ndim != 3:
        raise ValueError(f"projections need 3-D data; this dataset is {ds.ndim}-D (use slice_plot)")
    if axis not in _AXES:
        raise ValueError(f"axis must be 'x', 'y' or 'z', not {axis!r}")
    normal = _AXES[axis]
    horizontal, vertical = _PLANE[normal]
    rows, columns, pixel_h, pixel_v = _image_shape(ds, normal, resolution)

    cells = ds.cells
    f = _cell_values(ds, field, "field")
    w = None if weight is None else _cell_values(ds, weight, "weight")
    dx = np.asarray(cells["dx"], dtype=float)
    levels = np.asarray(cells["level"])
    # Per cell: what it deposits per unit footprint area (the column contribution f dx, or
    # f w dx and w dx with a weight).
    quantities = [f * dx] if w is None else [f * w * dx, w * dx]
    images = [np.zeros(rows * columns) for _ in quantities]
    low_h = np.asarray(cells[_NAMES[horizontal]], dtype=float) - 0.5 * dx
    low_v = np.asarray(cells[_NAMES[vertical]], dtype=float) - 0.5 * dx

    for level in np.unique(levels):
        members = np.flatnonzero(levels == level)
        size = ds.cell_size(int(level))
        span_h = int(np.ceil(size / pixel_h)) + 1
        span_v = int(np.ceil(size / pixel_v)) + 1
        step = max(1, _CHUNK_TERMS // (span_h * span_v))
        for begin in range(0, len(members), step):  # chunks of cells, to bound memory
            chunk = members[begin : begin + step]
            index_h, length_h = _overlaps(low_h[chunk], size, pixel_h, columns)
            index_v, length_v = _overlaps(low_v[chunk], size, pixel_v, rows)
            area = length_h[:, :, None] * length_v[:, None, :]  # (n, span_h, span_v)
            pixel = (index_v[:, None, :] * columns + index_h[:, :, None]).ravel()
            for image, quantity in zip(images, quantities):
                image += np.bincount(pixel, weights=(area * quantity[chunk, None, None]).ravel(),
                                     minlength=rows * columns)

    extent = (0.0, float(ds.box_size[horizontal]), 0.0, float(ds.box_size[vertical]))
    if w is None:
        values = images[0] / (pixel_h * pixel_v)
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.where(images[1] != 0.0, images[0] / images[1], np.nan)
    return values.reshape(rows, columns), extent


def projection_plot(
    ds: Dataset,
    field: str | np.ndarray,
    axis: str = "z",
    weight: str | np.ndarray | None = None,
    resolution: int = 512,
    filename: str | pathlib.Path | None = None,
    log: bool | None = None,
    cmap: str = "viridis",
    figsize: tuple[float, float] = (6.4, 4.8),
    dpi: float = 100,
) -> ProjectionResult:
    """Draw the projection of `field` along `axis` (see :func:`project`) with a colour bar, and
    write it as a PNG when `filename` is given. ``log=None`` (default) picks a logarithmic colour
    scale when every pixel is positive, True or False force it. Units (plot_units): a projected
    density is shown in M_sun h^-1 (Mpc/h)^-2 (comoving) in a cosmological run, in g/cm^2 when the
    run has physical units; axes are in comoving Mpc/h in a cosmological run; the title gives
    the redshift (the time when not cosmological) and is also the PNG's "Title" metadata. The
    figure is `figsize` inches at `dpi` (default 640 x 480 pixels)."""
    values, extent = project(ds, field, axis, weight, resolution)
    name = field if isinstance(field, str) else "field"
    wname = weight if isinstance(weight, str) or weight is None else "weight"
    if name == "density" and wname is None:
        unit_factor, units = surface_density_unit(ds)
        label = f"projected density [{units}]"
    else:
        unit_factor, units = 1.0, field_units(ds, name)
        if wname is None:
            label = f"∫ {name} d{axis}" + (f" [{units} × code length]" if units else " [× code length]")
        else:
            label = f"{name}, {wname}-weighted along {axis}" + (f" [{units}]" if units else "")
    title = f"{name} projected along {axis}, {epoch_label(ds)}"
    return draw_image(ds, values, extent, axis, label, title, unit_factor, units, filename, log, cmap, figsize, dpi,
                      wname)


def draw_image(ds, values: np.ndarray, extent: tuple[float, float, float, float], axis: str, label: str, title: str,
               unit_factor: float, units: str, filename: str | pathlib.Path | None, log: bool | None, cmap: str,
               figsize: tuple[float, float], dpi: float, weight: str | None = None) -> ProjectionResult:
    """Draw a projected image (code units, ``values[row, column]``) scaled by `unit_factor`, with
    axes in the dataset's length unit, a colour bar labelled `label` and the title `title`."""
    name = title
    figure = Figure(figsize=figsize, dpi=dpi)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    shown = np.ma.masked_invalid(values * unit_factor)
    if shown.count() == 0:
        raise ValueError(f"the projection of {name} has no finite pixel (no cell carries weight?)")
    if log is None:
        log = bool(shown.min() > 0.0)
    if log:
        shown = np.ma.masked_less_equal(shown, 0.0)
        if shown.count() == 0:
            raise ValueError(f"log=True but the projection of {name} has no positive pixel")
        norm: colors.Normalize = colors.LogNorm(vmin=shown.min(), vmax=shown.max())
    else:
        norm = colors.Normalize(vmin=shown.min(), vmax=shown.max())
    colormap = matplotlib.colormaps[cmap]
    length_factor, length_name = length_unit(ds)
    shown_extent = tuple(length_factor * bound for bound in extent)
    image = axes.imshow(shown, origin="lower", extent=shown_extent, norm=norm, cmap=colormap, interpolation="nearest")
    figure.colorbar(image, ax=axes, label=label)
    normal = _AXES[axis]
    horizontal, vertical = _PLANE[normal]
    axes.set_xlabel(f"{_NAMES[horizontal]} [{length_name}]")
    axes.set_ylabel(f"{_NAMES[vertical]} [{length_name}]")
    axes.set_title(title)
    path = None
    if filename is not None:
        path = save_with_title(figure, filename, title)
    return ProjectionResult(path, figure, axes, values, extent, norm, colormap, axis, weight, unit_factor, units)
