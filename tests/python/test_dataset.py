"""kosmo.load and kosmo.slice_plot on synthetic snapshots written with h5py in the exact layout
of docs/outputs.md (format_version 1): a 2-level 3-D mesh, a non-cubic 2-level 2-D mesh and a
3-level 1-D mesh, each with hand-computed leaf cells."""

from __future__ import annotations

import pathlib

import h5py
import numpy as np
import pytest
from matplotlib import image as mpimg

import kosmo

PARAMETERS = [
    ("RUN_PARAMS", "hydro", ".true.", True),
    ("RUN_PARAMS", "ncontrol", "1", False),
    ("AMR_PARAMS", "levelmax", "2", True),
    ("AMR_PARAMS", "boxlen", "2.0d0", True),
    ("OUTPUT_PARAMS", "tout", "0.5d0, 1.0d0, 2*3.0", True),
    ("RUN_PARAMS", "ordering", "'ksection'", False),
    ("INIT_PARAMS", "filetype", "'it''s'", False),
]


def write_snapshot(directory: pathlib.Path, number: int, *, ndim, nx, ny, nz, boxlen, levels, time=0.5):
    """levels: list (level 1..levelmax) of (oct_coordinates, son_flags, {field: values})."""
    output = directory / f"output_{number:05d}"
    output.mkdir(parents=True)
    (output / f"info_{number:05d}.txt").write_text("ncpu        =          1\n")
    field_names = list(levels[0][2])
    with h5py.File(output / f"kosmo_{number:05d}.h5", "w") as f:
        attrs = {
            "format": "kosmo", "format_version": np.int32(1), "kosmo_version": "0.1.0",
            "output_number": np.int32(number), "ndim": np.int32(ndim), "levelmin": np.int32(1),
            "levelmax": np.int32(len(levels)), "nx": np.int32(nx), "ny": np.int32(ny), "nz": np.int32(nz),
            "boxlen": boxlen, "time": time, "aexp": 1.0, "step": np.int64(12), "ncpu": np.int32(1),
            "unit_l": 3.0856776e21, "unit_d": 1.6726e-24, "unit_t": 3.15576e13, "ordering": "ksection",
            "cosmological": np.int32(0), "H0": 1.0, "omega_m": 1.0, "omega_l": 0.0, "omega_k": 0.0,
            "omega_b": 0.0,
        }
        f.attrs.update(attrs)
        fields = f.create_group("fields")
        fields["name"] = np.array(field_names, dtype="S")
        fields["units"] = np.array(["g/cm^3" if n == "density" else "code_pressure" for n in field_names], dtype="S")
        fields["comoving_exponent"] = np.full(len(field_names), -3, dtype=np.int32)
        parameters = f.create_group("parameters")
        for column, index in (("block", 0), ("name", 1), ("value", 2)):
            parameters[column] = np.array([p[index] for p in PARAMETERS], dtype="S")
        parameters["from_file"] = np.array([p[3] for p in PARAMETERS], dtype=np.uint8)
        for level, (coordinates, sons, values) in enumerate(levels, start=1):
            group = f.create_group(f"level_{level:02d}")
            coordinates = np.asarray(coordinates, dtype=np.int64).reshape(-1, ndim)
            group.attrs["noct"] = np.int64(len(coordinates))
            group.attrs["level"] = np.int32(level)
            group["oct_coordinates"] = coordinates
            group["son_flags"] = np.asarray(sons, dtype=np.uint8).reshape(-1, 2**ndim)
            field_group = group.create_group("fields")
            for name in field_names:
                field_group[name] = np.asarray(values[name], dtype=np.float64).reshape(-1, 2**ndim)
    return output


@pytest.fixture
def mesh3d(tmp_path):
    """Root oct of a box of side 2; its cell 0 (the low corner) is refined. Density is 1 for
    x < 1 and 10 for x > 1; pressure = 100 level + cell."""
    level1_density = [1.0 if (c & 1) == 0 else 10.0 for c in range(8)]
    levels = [
        ([0, 0, 0], [1, 0, 0, 0, 0, 0, 0, 0],
         {"density": level1_density, "pressure": [100.0 + c for c in range(8)]}),
        ([0, 0, 0], [0] * 8, {"density": [1.0] * 8, "pressure": [200.0 + c for c in range(8)]}),
    ]
    return write_snapshot(tmp_path, 2, ndim=3, nx=1, ny=1, nz=1, boxlen=2.0, levels=levels)


@pytest.fixture
def mesh2d(tmp_path):
    """nx=2, ny=1, boxlen=1: the box is 1 x 0.5; two level-1 octs, the second's cell 3 refined."""
    levels = [
        ([0, 0, 1, 0], [0, 0, 0, 0, 0, 0, 0, 1],
         {"density": [float(c) for c in range(8)], "pressure": [100.0 + c for c in range(8)]}),
        ([3, 1], [0, 0, 0, 0], {"density": [20.0, 21.0, 22.0, 23.0], "pressure": [200.0 + c for c in range(4)]}),
    ]
    return write_snapshot(tmp_path, 3, ndim=2, nx=2, ny=1, nz=1, boxlen=1.0, levels=levels)


@pytest.fixture
def mesh1d(tmp_path):
    """A line of length 1 refined towards x = 0.5..0.75 down to level 3."""
    levels = [
        ([0], [0, 1], {"density": [1.0, -1.0], "pressure": [0.0, 0.0]}),
        ([1], [1, 0], {"density": [-2.0, 4.0], "pressure": [0.0, 0.0]}),
        ([2], [0, 0], {"density": [2.0, 3.0], "pressure": [0.0, 0.0]}),
    ]
    return write_snapshot(tmp_path, 4, ndim=1, nx=1, ny=1, nz=1, boxlen=1.0, levels=levels)


def sorted_cells(ds):
    c = ds.cells
    order = np.lexsort((c.x, c.y, c.z, c.level))
    return {k: c[k][order] for k in c}


def test_load_accepts_directory_info_file_and_h5(mesh3d):
    for path in (mesh3d, mesh3d / "info_00002.txt", mesh3d / "kosmo_00002.h5", str(mesh3d)):
        ds = kosmo.load(path)
        assert ds.filename == mesh3d / "kosmo_00002.h5"
    with pytest.raises(FileNotFoundError):
        kosmo.load(mesh3d / "missing")


def test_metadata(mesh3d):
    ds = kosmo.load(mesh3d)
    assert (ds.ndim, ds.levelmin, ds.levelmax, ds.step, ds.output_number) == (3, 1, 2, 12, 2)
    assert ds.time == 0.5 and ds.aexp == 1.0 and ds.boxlen == 2.0
    assert ds.units == {"unit_l": 3.0856776e21, "unit_d": 1.6726e-24, "unit_t": 3.15576e13}
    assert list(ds.fields) == ["density", "pressure"]
    assert ds.fields["density"].units == "g/cm^3" and ds.fields["density"].comoving_exponent == -3
    assert ds.octs_per_level() == {1: 1, 2: 1}
    assert ds.ordering == "ksection" and ds.format_version == 1


def test_params_are_parsed_and_remember_their_origin(mesh3d):
    ds = kosmo.load(mesh3d)
    assert ds.params["RUN_PARAMS"]["hydro"] is True
    assert ds.params["RUN_PARAMS"]["ncontrol"] == 1 and isinstance(ds.params["RUN_PARAMS"]["ncontrol"], int)
    assert ds.params["AMR_PARAMS"]["boxlen"] == 2.0 and isinstance(ds.params["AMR_PARAMS"]["boxlen"], float)
    assert ds.params["OUTPUT_PARAMS"]["tout"] == [0.5, 1.0, 3.0, 3.0]
    assert ds.params["RUN_PARAMS"]["ordering"] == "ksection"
    assert ds.params["INIT_PARAMS"]["filetype"] == "it's"
    assert ds.params_from_file["AMR_PARAMS"]["levelmax"] is True
    assert ds.params_from_file["RUN_PARAMS"]["ncontrol"] is False
    assert ds.params_raw["AMR_PARAMS"]["boxlen"] == "2.0d0"


def test_3d_leaf_cells(mesh3d):
    ds = kosmo.load(mesh3d)
    assert set(ds.cells.keys()) == {"x", "y", "z", "dx", "level", "density", "pressure"}
    assert ds.cells.ncells == 15  # 7 leaves at level 1, 8 at level 2
    c = sorted_cells(ds)
    # level 1: cells 1..7 of the root oct, centres (bit + 0.5) * 1
    bits = np.array([[(k >> d) & 1 for d in range(3)] for k in range(1, 8)])
    expected1 = {tuple(row) for row in (bits + 0.5)}
    got1 = {tuple(row) for row in np.column_stack([c["x"], c["y"], c["z"]])[c["level"] == 1]}
    assert got1 == expected1
    assert np.all(c["dx"][c["level"] == 1] == 1.0)
    # level 2: the refined corner, cells of size 0.5
    got2 = np.column_stack([c["x"], c["y"], c["z"]])[c["level"] == 2]
    assert {tuple(row) for row in got2} == {(x, y, z) for x in (0.25, 0.75) for y in (0.25, 0.75) for z in (0.25, 0.75)}
    assert np.all(c["dx"][c["level"] == 2] == 0.5)
    # pressure encodes level and cell: cell c of an oct has offset bit d of c along axis d
    cell_of = lambda x, y, z, dx: ((np.floor(x / dx) % 2) + 2 * (np.floor(y / dx) % 2) + 4 * (np.floor(z / dx) % 2))
    cells = ds.cells
    assert np.array_equal(cells.pressure, 100.0 * cells.level + cell_of(cells.x, cells.y, cells.z, cells.dx))
    assert np.array_equal(cells.density, np.where(cells.x < 1.0, 1.0, 10.0))
    assert cells["density"] is cells.density


def test_2d_leaf_cells_in_a_non_cubic_box(mesh2d):
    ds = kosmo.load(mesh2d)
    assert np.allclose(ds.box_size, [1.0, 0.5, 0.5])
    c = ds.cells
    assert c.ncells == 11
    assert np.all(c.z == 0.25)  # absent axis: the box centre
    level1 = c.level == 1
    assert np.all(c.dx[level1] == 0.25) and np.all(c.dx[~level1] == 0.125)
    # density of level-1 cell c of oct o is 4 o + c: check it against the position
    o = np.floor(c.x[level1] / 0.5)
    cell = np.floor(c.x[level1] / 0.25) % 2 + 2 * (np.floor(c.y[level1] / 0.25) % 2)
    assert np.array_equal(c.density[level1], 4 * o + cell)
    assert 7.0 not in c.density  # the refined cell is not a leaf
    got2 = {(x, y): d for x, y, d in zip(c.x[~level1], c.y[~level1], c.density[~level1])}
    assert got2 == {(0.8125, 0.3125): 20.0, (0.9375, 0.3125): 21.0, (0.8125, 0.4375): 22.0, (0.9375, 0.4375): 23.0}


def test_1d_leaf_cells(mesh1d):
    ds = kosmo.load(mesh1d)
    c = sorted_cells(ds)
    assert np.array_equal(c["x"], [0.25, 0.875, 0.5625, 0.6875])
    assert np.array_equal(c["dx"], [0.5, 0.25, 0.125, 0.125])
    assert np.array_equal(c["level"], [1, 2, 3, 3])
    assert np.array_equal(c["density"], [1.0, 4.0, 2.0, 3.0])
    assert np.all(c["y"] == 0.5) and np.all(c["z"] == 0.5)


def test_point_lookup_matches_brute_force(mesh3d, mesh2d):
    rng = np.random.default_rng(7)
    for path in (mesh3d, mesh2d):
        ds = kosmo.load(path)
        c = ds.cells
        points = rng.random((500, ds.ndim)) * ds.box_size[: ds.ndim]
        centres = np.column_stack([c.x, c.y, c.z])[:, : ds.ndim]
        inside = np.all(np.abs(points[:, None, :] - centres[None, :, :]) < 0.5 * c.dx[None, :, None], axis=2)
        assert np.all(inside.sum(axis=1) == 1)  # leaves tile the box
        expected = c.pressure[np.argmax(inside, axis=1)]
        assert np.array_equal(kosmo.sample_leaf_cells(ds, "pressure", points), expected)


def pixel_colour(result, fraction_x, fraction_y):
    """RGBA of the PNG at a fraction of the plot area (0..1 from the lower left)."""
    png = mpimg.imread(result.filename)
    box = result.axes.get_window_extent()
    column = int(box.x0 + fraction_x * box.width)
    row = png.shape[0] - 1 - int(box.y0 + fraction_y * box.height)
    return png[row, column]


def test_slice_plot_colours_follow_the_field(mesh3d, tmp_path):
    ds = kosmo.load(mesh3d)
    filename = tmp_path / "slice.png"
    result = kosmo.slice_plot(ds, "density", axis="z", filename=filename, resolution=64)
    assert filename.stat().st_size > 1000
    assert result.values.shape == (64, 64)
    assert np.all(result.values[:, :32] == 1.0) and np.all(result.values[:, 32:] == 10.0)
    low, high = pixel_colour(result, 0.25, 0.5), pixel_colour(result, 0.75, 0.5)
    assert np.allclose(low[:3], result.cmap(result.norm(1.0))[:3], atol=2 / 255)
    assert np.allclose(high[:3], result.cmap(result.norm(10.0))[:3], atol=2 / 255)
    assert not np.allclose(low, high)


def test_slice_plot_through_the_refined_corner(mesh3d, tmp_path):
    ds = kosmo.load(mesh3d)
    result = kosmo.slice_plot(ds, "pressure", axis="x", coordinate=0.3, filename=tmp_path / "x.png", resolution=8)
    # plane x = 0.3: horizontal y, vertical z; the corner y, z < 1 is level 2 (x-bit 0)
    expected = np.empty((8, 8))
    for row in range(8):
        for column in range(8):
            y, z = (column + 0.5) / 4, (row + 0.5) / 4
            if y < 1 and z < 1:
                expected[row, column] = 200 + 2 * int(y / 0.5) + 4 * int(z / 0.5)
            else:
                expected[row, column] = 100 + 2 * int(y) + 4 * int(z)
    assert np.array_equal(result.values, expected)


def test_slice_plot_2d_and_log(mesh2d, tmp_path):
    ds = kosmo.load(mesh2d)
    result = kosmo.slice_plot(ds, "pressure", filename=tmp_path / "p.png", resolution=64, log=True)
    assert result.values.shape == (32, 64)  # square pixels in a 1 x 0.5 box
    assert result.values[0, 0] == 100.0 and result.values[-1, -1] == 203.0
    assert (tmp_path / "p.png").stat().st_size > 1000
    with pytest.raises(ValueError):
        kosmo.slice_plot(ds, "density", axis="x", filename=tmp_path / "bad.png")
    with pytest.raises(KeyError):
        kosmo.slice_plot(ds, "no_such_field", filename=tmp_path / "bad.png")


def test_slice_plot_1d_is_a_line_plot(mesh1d, tmp_path):
    ds = kosmo.load(mesh1d)
    result = kosmo.slice_plot(ds, "density", filename=tmp_path / "line.png")
    assert result.values is None
    assert (tmp_path / "line.png").stat().st_size > 1000
    steps = result.axes.patches[0]  # the StepPatch drawn by stairs
    values, edges, _ = steps.get_data()
    assert np.array_equal(edges, [0.0, 0.5, 0.625, 0.75, 1.0])
    assert np.array_equal(values, [1.0, 2.0, 3.0, 4.0])
