"""End to end: the built-in refined-sphere demo writes a snapshot that kosmo.load reads back
exactly, on any number of ranks and in 1, 2 and 3 dimensions; bad input stops the run before it
can touch an existing output."""
import math
import pathlib
import re

import numpy as np
import pytest

import kosmo

# `kosmo run` with no namelist is the cosmological showcase in 3-D (test_showcase.py); the demo's
# namelist is given explicitly, and --ndim 1 or 2 without one still runs it.
REFINED_SPHERE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "refined_sphere.nml"

LEVEL_LINE = re.compile(r"^ Level\s+(\d+) has\s+(\d+) octs\s+(\d+) cells\s+(\d+) leaves", re.M)


def leaves_printed(stdout: str) -> dict[int, int]:
    return {int(m.group(1)): int(m.group(4)) for m in LEVEL_LINE.finditer(stdout)}


def octs_printed(stdout: str) -> dict[int, int]:
    return {int(m.group(1)): int(m.group(2)) for m in LEVEL_LINE.finditer(stdout)}


@pytest.fixture(scope="module")
def demo3d(tmp_path_factory, run_kosmo):
    where = tmp_path_factory.mktemp("demo3d")
    result = run_kosmo(["run", str(REFINED_SPHERE)], where)
    return where, result.stdout, kosmo.load(where / "output_00001")


def test_leaf_cells_per_level_match_the_run(demo3d):
    _, stdout, ds = demo3d
    printed = leaves_printed(stdout)
    assert set(printed) == set(range(1, 8)), stdout
    levels, counts = np.unique(ds.cells.level, return_counts=True)
    from_file = {int(level): int(count) for level, count in zip(levels, counts)}
    assert from_file == {level: n for level, n in printed.items() if n > 0}
    assert ds.octs_per_level() == octs_printed(stdout)
    # Level 7 is reached and the base levels below levelmin hold no leaves.
    assert from_file[7] > 0 and all(level >= 3 for level in from_file)


def test_leaf_volumes_tile_the_box_exactly(demo3d):
    _, _, ds = demo3d
    # Volumes are powers of two, so the float sum is exact.
    assert math.fsum(ds.cells.dx ** 3) == ds.boxlen ** 3
    assert np.all(ds.cells.dx == ds.boxlen / 2.0 ** ds.cells.level)


def test_the_sphere_is_refined_to_levelmax_and_the_rest_is_coarser(demo3d):
    _, _, ds = demo3d
    c = ds.cells
    r = np.sqrt((c.x - 0.5) ** 2 + (c.y - 0.5) ** 2 + (c.z - 0.5) ** 2)
    # r_refine is RAMSES' diameter: 0.5, so radius 0.25. A cell whose centre is inside is flagged.
    assert np.all(c.level[r < 0.25] == 7)
    # Outside, refinement spreads only through nexpand = 1 and the 2:1 rule: level-7 cells stay
    # within a few level-6 cells of the sphere, and the far corners of the box are coarse.
    dx6 = ds.cell_size(6)
    assert r[c.level == 7].max() < 0.25 + 4 * math.sqrt(3) * dx6
    assert np.all(c.level[r > 0.6] <= 5)


def test_density_field_is_the_analytic_profile_at_cell_centres(demo3d):
    _, _, ds = demo3d
    c = ds.cells
    r2 = (c.x - 0.5) ** 2 + (c.y - 0.5) ** 2 + (c.z - 0.5) ** 2
    expected = 1.0 + 9.0 * np.exp(-0.5 * r2 / 0.1 ** 2)
    np.testing.assert_allclose(c.density, expected, rtol=1e-14, atol=0)


def test_snapshot_stores_the_parameters_used(demo3d):
    _, _, ds = demo3d
    assert ds.params["AMR_PARAMS"]["levelmax"] == 7
    assert ds.params_from_file["AMR_PARAMS"]["levelmax"] is True
    assert ds.params["RUN_PARAMS"]["problem"] == "refined_sphere"
    assert ds.params_from_file["UNITS_PARAMS"]["units_length"] is False
    assert ds.time == 0.0 and ds.step == 0 and ds.ndim == 3 and ds.levelmin == 3 and ds.levelmax == 7


@pytest.mark.parametrize("nrank", [2, 3])
def test_rank_count_does_not_change_the_snapshot(demo3d, tmp_path, run_kosmo, nrank):
    _, _, reference = demo3d
    run_kosmo(["run", str(REFINED_SPHERE)], tmp_path, nrank=nrank)
    ds = kosmo.load(tmp_path / "output_00001")
    assert ds.ncpu == nrank
    # Leaves come in (level, Morton) order from every writer layout: compare sorted by position.
    def order(d):
        return np.lexsort((d.cells.z, d.cells.y, d.cells.x, d.cells.level))
    a, b = order(reference), order(ds)
    for name in ("x", "y", "z", "dx", "level", "density"):
        np.testing.assert_array_equal(reference.cells[name][a], ds.cells[name][b])


@pytest.mark.parametrize("ndim", [1, 2])
def test_lower_dimensions(tmp_path, run_kosmo, ndim):
    result = run_kosmo(["run", "--ndim", str(ndim)], tmp_path)
    ds = kosmo.load(tmp_path / "output_00001")
    assert ds.ndim == ndim
    assert math.fsum(ds.cells.dx ** ndim) == ds.boxlen ** ndim
    levels, counts = np.unique(ds.cells.level, return_counts=True)
    assert {int(l): int(n) for l, n in zip(levels, counts)} == {l: n for l, n in leaves_printed(result.stdout).items() if n > 0}
    assert ds.params_from_file["RUN_PARAMS"]["ndim"] is False  # set on the command line


def test_bad_namelist_stops_before_touching_an_existing_output(tmp_path, run_kosmo):
    run_kosmo(["run", str(REFINED_SPHERE)], tmp_path)
    snapshot = tmp_path / "output_00001" / "kosmo_00001.h5"
    before = snapshot.read_bytes()
    bad = tmp_path / "bad.nml"
    bad.write_text("&RUN_PARAMS\nproblem='refined_sphere'\n/\n&AMR_PARAMS\nlevelmin=3\nlevlmax=7\n/\n")
    result = run_kosmo(["run", str(bad)], tmp_path, check=False)
    assert result.returncode != 0
    message = result.stderr.strip()
    assert len(message.splitlines()) == 1, message
    assert "bad.nml:6" in message and "AMR_PARAMS" in message and "levlmax" in message
    assert "did you mean 'levelmax'" in message
    assert snapshot.read_bytes() == before
    assert not list(tmp_path.glob("output_*.tmp"))


def test_missing_namelist_file_is_reported(tmp_path, run_kosmo):
    result = run_kosmo(["run", "no_such_file.nml"], tmp_path, check=False)
    assert result.returncode != 0
    assert "no_such_file.nml" in result.stderr
    assert not list(tmp_path.glob("output_*"))


def test_ndim_on_the_command_line_may_not_contradict_the_file(tmp_path, run_kosmo):
    nml = tmp_path / "three.nml"
    nml.write_text("&RUN_PARAMS\nndim=3\nproblem='refined_sphere'\n/\n&AMR_PARAMS\nlevelmin=2\nlevelmax=3\n/\n")
    result = run_kosmo(["run", str(nml), "--ndim", "2"], tmp_path, check=False)
    assert result.returncode != 0 and "--ndim 2 contradicts ndim=3" in result.stderr
