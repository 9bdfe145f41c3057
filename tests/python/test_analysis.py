"""The analysis package on real 3-D AMR snapshots (levelmin 3, levelmax 5): the empty particle
container, exact projections (mass conservation, uniform fields, a brute-force column sum),
radial profiles against the analytic answer of the initial conditions, and the kosmo-plot
command (docs/analysis.md)."""
from __future__ import annotations

import pathlib
import struct
import subprocess
import sys

import h5py
import numpy as np
import pytest
from matplotlib import colors
from matplotlib import image as mpimg

import kosmo
from namelists import sedov3d


def blast_namelist(inner_density: float, tout: str) -> str:
    """A small Sedov set-up: density 1 outside and `inner_density` inside a sphere of radius
    0.125 at the box centre, pressure 1e-5 outside and 1 inside. The pressure jump refines the
    initial mesh to levelmax around the sphere."""
    return sedov3d(size=0.25, pressure=1.0, density=inner_density, tout=tuple(float(t) for t in tout.split(",")))


SPHERE_RADIUS = 0.125


@pytest.fixture(scope="module")
def uniform_run(tmp_path_factory, run_kosmo) -> pathlib.Path:
    """Uniform density 1 at t = 0 (output_00001) and the blast at t = 0.01 (output_00002)."""
    where = tmp_path_factory.mktemp("uniform")
    (where / "blast.nml").write_text(blast_namelist(1.0, "0.0,0.01"))
    run_kosmo(["run", "blast.nml"], where)
    return where


@pytest.fixture(scope="module")
def two_region(tmp_path_factory, run_kosmo) -> kosmo.Dataset:
    """t = 0 of a blast with density 4 inside the sphere and 1 outside."""
    where = tmp_path_factory.mktemp("two_region")
    (where / "blast.nml").write_text(blast_namelist(4.0, "0.0"))
    run_kosmo(["run", "blast.nml"], where)
    return kosmo.load(where / "output_00001")


def test_particles_are_an_empty_well_formed_container_and_aexp_is_read(uniform_run):
    ds = kosmo.load(uniform_run / "output_00002")
    p = ds.particles
    assert isinstance(p, kosmo.Particles)
    assert list(p) == ["x", "y", "z", "vx", "vy", "vz", "mass", "id", "level", "family"]
    assert p.nparticles == 0
    dtypes = {"x": np.float64, "vx": np.float64, "mass": np.float64, "id": np.int64, "level": np.int32,
              "family": np.int8}
    for name in p:
        assert isinstance(p[name], np.ndarray) and p[name].shape == (0,)
    for name, dtype in dtypes.items():
        assert p[name].dtype == dtype, (name, p[name].dtype)
    assert float(p.mass.sum()) == 0.0 and p.x is p["x"]
    with pytest.raises(AttributeError, match="no particle array 'charge'"):
        p.charge  # noqa: B018
    with h5py.File(ds.filename) as f:
        assert ds.aexp == float(f.attrs["aexp"]) == 1.0  # not cosmological: RAMSES' aexp = 1


@pytest.mark.parametrize("resolution", [512, 100, 37])
def test_projection_conserves_mass_on_an_amr_mesh(uniform_run, two_region, resolution):
    """Pixel values times pixel area sum to the total mass, for pixels aligned with the cells
    (512) and not (100, 37: partial overlaps), along every axis: on the evolved blast and on the
    dense sphere at t = 0."""
    for ds in (kosmo.load(uniform_run / "output_00002"), two_region):
        c = ds.cells
        assert set(np.unique(c.level)) == {3, 4, 5}, "the mesh must be refined to levelmax"
        mass = float(np.sum(c.density * c.dx**3))
        for axis in "xyz":
            image, extent = kosmo.project(ds, "density", axis=axis, resolution=resolution)
            assert image.shape == (resolution, resolution)
            pixel_area = (extent[1] / resolution) * (extent[3] / resolution)
            assert abs(image.sum() * pixel_area - mass) <= 1e-12 * mass, (axis, image.sum() * pixel_area, mass)
            assert image.max() > 1.01 * image.min()  # not a flat image: the blast or the sphere shows


def test_projection_of_a_uniform_field_is_value_times_box_length(uniform_run):
    ds = kosmo.load(uniform_run / "output_00001")
    c = ds.cells
    assert np.all(c.density == 1.0) and c.level.max() == 5 and c.level.min() == 3
    for axis, resolution in (("z", 512), ("x", 100), ("y", 37)):
        image, _ = kosmo.project(ds, "density", axis=axis, resolution=resolution)
        np.testing.assert_allclose(image, 1.0 * ds.boxlen, rtol=1e-12, atol=0)
        tripled, _ = kosmo.project(ds, np.full(c.ncells, 3.0), axis=axis, resolution=resolution)
        np.testing.assert_allclose(tripled, 3.0 * ds.boxlen, rtol=1e-12, atol=0)


def test_projection_equals_a_brute_force_column_sum(uniform_run):
    """At 32 pixels per axis (the level-5 cell size) every pixel column crosses whole cells, so
    its integral is the sum over the 32 level-5 cell centres along the column of the containing
    leaf cell's value times 1/32 — computed here with the independent point lookup."""
    ds = kosmo.load(uniform_run / "output_00002")
    n = 32
    centres = (np.arange(n) + 0.5) / n
    for axis, (h, v) in (("z", (0, 1)), ("x", (1, 2))):
        normal = "xyz".index(axis)
        grid_v, grid_h, grid_n = np.meshgrid(centres, centres, centres, indexing="ij")
        points = np.empty((n**3, 3))
        points[:, h], points[:, v], points[:, normal] = grid_h.ravel(), grid_v.ravel(), grid_n.ravel()
        column = kosmo.sample_leaf_cells(ds, "pressure", points).reshape(n, n, n).sum(axis=2) / n
        image, _ = kosmo.project(ds, "pressure", axis=axis, resolution=n)
        np.testing.assert_allclose(image, column, rtol=1e-12, atol=1e-15)
        assert column.max() > 100 * column.min()


def test_weighted_projection_is_the_weighted_mean_along_the_line_of_sight(uniform_run):
    ds = kosmo.load(uniform_run / "output_00002")
    c = ds.cells
    plain, _ = kosmo.project(ds, "pressure", axis="y", resolution=64)
    by_volume, _ = kosmo.project(ds, "pressure", axis="y", weight=np.ones(c.ncells), resolution=64)
    np.testing.assert_allclose(by_volume, plain / ds.boxlen, rtol=1e-12)
    by_mass, _ = kosmo.project(ds, "pressure", axis="y", weight="density", resolution=64)
    mass_image, _ = kosmo.project(ds, "density", axis="y", resolution=64)
    momentum_like, _ = kosmo.project(ds, c.pressure * c.density, axis="y", resolution=64)
    np.testing.assert_allclose(by_mass, momentum_like / mass_image, rtol=1e-12)
    assert np.all(by_mass >= c.pressure.min()) and np.all(by_mass <= c.pressure.max())


def test_projection_plot_writes_a_png(uniform_run, tmp_path):
    ds = kosmo.load(uniform_run / "output_00002")
    result = kosmo.projection_plot(ds, "density", axis="x", resolution=128, filename=tmp_path / "p.png")
    assert result.filename == tmp_path / "p.png" and result.values.shape == (128, 128)
    assert png_size(result.filename) == (640, 480)
    assert result.norm.vmin == pytest.approx(result.values.min()) and result.axis == "x"
    assert not isinstance(result.norm, colors.LogNorm)  # values span less than 100x: linear
    nofile = kosmo.projection_plot(ds, "pressure", axis="z", resolution=64, log=True)
    assert nofile.filename is None and nofile.norm.vmin > 0
    with pytest.raises(ValueError, match="3-D"):
        kosmo.project(_fake_2d(ds), "density")


def _fake_2d(ds):
    """The same dataset claiming to be 2-D: projections must refuse it before reading cells."""
    clone = kosmo.load(ds.filename)
    clone.ndim = 2
    return clone


def test_radial_profile_of_a_uniform_box_is_flat(uniform_run):
    ds = kosmo.load(uniform_run / "output_00001")
    for weight in ("volume", "mass", None):
        profile = kosmo.radial_profile(ds, "density", center=(0.5, 0.5, 0.5), bins=12, weight=weight)
        assert np.all(profile.values == 1.0), (weight, profile.values)
        assert profile.ncells.sum() == ds.cells.ncells  # default rmax: every cell counts
    edges, values = kosmo.radial_profile(ds, "density", bins=[0.0, 0.1, 0.3], weight="volume")
    np.testing.assert_array_equal(edges, [0.0, 0.1, 0.3])
    np.testing.assert_array_equal(values, [1.0, 1.0])


def test_radial_profile_of_two_regions_mass_and_volume_weighting(two_region):
    """Density 4 for cell centres inside r = 0.125 and 1 outside. Shells wholly inside or
    outside give 4 or 1 under every weighting; a shell straddling the sphere gives
    (4 V_in + V_out) / (V_in + V_out) by volume and (16 V_in + V_out) / (4 V_in + V_out) by
    mass, V_in/V_out the volumes of its cells whose centres lie inside/outside the sphere."""
    ds = two_region
    c = ds.cells
    r = np.sqrt((c.x - 0.5) ** 2 + (c.y - 0.5) ** 2 + (c.z - 0.5) ** 2)
    inside = r < SPHERE_RADIUS
    assert np.all(c.density[inside] == 4.0) and np.all(c.density[~inside] == 1.0)  # the initial condition
    edges = np.array([0.0, 0.06, 0.11, 0.2, 0.3, 0.5])
    volume = kosmo.radial_profile(ds, "density", center=(0.5, 0.5, 0.5), bins=edges, weight="volume")
    mass = kosmo.radial_profile(ds, "density", center=(0.5, 0.5, 0.5), bins=edges, weight="mass")
    plain = kosmo.radial_profile(ds, "density", center=(0.5, 0.5, 0.5), bins=edges, weight=None)
    straddle = (r >= 0.11) & (r < 0.2)
    v_in, v_out = np.sum(c.dx[straddle & inside] ** 3), np.sum(c.dx[straddle & ~inside] ** 3)
    n_in, n_out = np.sum(straddle & inside), np.sum(straddle & ~inside)
    assert v_in > 0 and v_out > 0
    expect_volume = [4.0, 4.0, (4 * v_in + v_out) / (v_in + v_out), 1.0, 1.0]
    expect_mass = [4.0, 4.0, (16 * v_in + v_out) / (4 * v_in + v_out), 1.0, 1.0]
    expect_plain = [4.0, 4.0, (4 * n_in + n_out) / (n_in + n_out), 1.0, 1.0]
    np.testing.assert_allclose(volume.values, expect_volume, rtol=1e-14)
    np.testing.assert_allclose(mass.values, expect_mass, rtol=1e-14)
    np.testing.assert_allclose(plain.values, expect_plain, rtol=1e-14)
    assert mass.values[2] > volume.values[2] + 0.3  # mass weighting favours the dense side
    # Summed weights: the shells' cell volumes, and their masses.
    np.testing.assert_allclose(volume.weights[2], v_in + v_out, rtol=1e-14)
    np.testing.assert_allclose(mass.weights, volume.weights * [4, 4, 1, 1, 1] + [0, 0, 3 * v_in, 0, 0], rtol=1e-14)


def test_profile_plot_writes_a_png(two_region, tmp_path):
    result = kosmo.profile_plot(two_region, "density", bins=10, rmax=0.4, weight="mass",
                                filename=tmp_path / "prof.png", figsize=(5, 4), dpi=80)
    assert png_size(tmp_path / "prof.png") == (400, 320)
    assert result.profile.values[0] == 4.0 and result.profile.values[-1] == 1.0


# ---- kosmo-plot --------------------------------------------------------------------------------


def png_size(path: pathlib.Path) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk, after checking the signature and chunk type."""
    header = pathlib.Path(path).read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    assert header[12:16] == b"IHDR"
    return struct.unpack(">II", header[16:24])


def kosmo_plot(args: list[str], cwd: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kosmo.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("kind, extra, size", [
    ("slice", ["--axis", "y"], (800, 600)),
    ("projection", ["--axis", "x", "--resolution", "128"], (500, 400)),
    ("profile", ["--weight", "mass", "--bins", "16", "--log"], (640, 480)),
])
def test_kosmo_plot_writes_a_png_of_the_requested_size(uniform_run, tmp_path, kind, extra, size):
    png = tmp_path / f"{kind}.png"
    args = [str(uniform_run / "output_00002"), "--field", "density", "--kind", kind, "--output", str(png), *extra]
    if size != (640, 480):
        args += ["--size", f"{size[0]}x{size[1]}"]
    result = kosmo_plot(args, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(png)
    assert png_size(png) == size
    pixels = mpimg.imread(png)
    assert pixels.shape[:2] == (size[1], size[0]) and pixels.std() > 0.01  # drawn, not blank


def test_kosmo_plot_default_name_and_errors(uniform_run, tmp_path):
    result = kosmo_plot([str(uniform_run / "output_00002"), "--kind", "projection", "--levels", "4"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert png_size(tmp_path / "projection_density_00002.png") == (640, 480)
    bad = kosmo_plot([str(uniform_run / "output_00002"), "--field", "entropy_index"], tmp_path)
    assert bad.returncode == 2 and "kosmo-plot: error: " in bad.stderr and "entropy_index" in bad.stderr
    bad_size = kosmo_plot([str(uniform_run / "output_00002"), "--size", "big"], tmp_path)
    assert bad_size.returncode == 2 and "WIDTHxHEIGHT" in bad_size.stderr
