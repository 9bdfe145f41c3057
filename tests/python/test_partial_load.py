"""Partial loading (seeds/003: level of detail and region of interest): ``kosmo.load(path,
levels=L)`` and ``kosmo.load(path, region=...)`` read fewer bytes of the HDF5 file than a full
load, measured through a file object that counts every byte HDF5 reads, and give exactly the
corresponding cells of the full load (docs/analysis.md)."""
from __future__ import annotations

import io
import pathlib

import numpy as np
import pytest

import kosmo
from namelists import sedov3d

SEDOV = sedov3d(size=0.25, pressure=1.0, tout=(0.0, 0.01))  # a small 3-D AMR blast, levels 3..5


class CountingFile(io.RawIOBase):
    """A read-only binary file that counts the bytes handed out by read/readinto, for h5py's
    file-object driver (every byte HDF5 reads passes through here)."""

    def __init__(self, path: pathlib.Path):
        self._file = open(path, "rb")
        self.name = str(path)
        self.bytes_read = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        count = self._file.readinto(buffer)
        self.bytes_read += count or 0
        return count

    def read(self, size: int = -1) -> bytes:
        data = self._file.read(size)
        self.bytes_read += len(data)
        return data

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self._file.seek(offset, whence)

    def tell(self) -> int:
        return self._file.tell()

    def close(self) -> None:
        self._file.close()
        super().close()


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory, run_kosmo) -> pathlib.Path:
    where = tmp_path_factory.mktemp("partial")
    (where / "sedov.nml").write_text(SEDOV)
    run_kosmo(["run", "sedov.nml"], where)
    return where / "output_00002" / "kosmo_00002.h5"


def counted_load(path: pathlib.Path, **selection) -> tuple[kosmo.Cells, int]:
    """Cells of a load through a CountingFile, and the bytes read (metadata and cells)."""
    with CountingFile(path) as counting:
        cells = kosmo.load(counting, **selection).cells
        return cells, counting.bytes_read


def cells_meeting(cells: kosmo.Cells, region) -> np.ndarray:
    """Which cells' boxes meet the region (open overlap), computed from the full load's arrays."""
    inside = np.ones(cells.ncells, dtype=bool)
    for axis, (low, high) in zip("xyz", region):
        inside &= (cells[axis] - 0.5 * cells.dx < high) & (cells[axis] + 0.5 * cells.dx > low)
    return inside


def cell_keys(cells: kosmo.Cells, mask: np.ndarray) -> np.ndarray:
    """Integer keys of the masked cells (all of one level): their cell indices, x fastest."""
    dx = cells.dx[mask]
    index = [np.floor(cells[axis][mask] / dx).astype(np.int64) for axis in "xyz"]
    n = int(round(1.0 / dx[0]))
    return index[0] + n * (index[1] + n * index[2])


def assert_same_cells(part: kosmo.Cells, full: kosmo.Cells, mask: np.ndarray) -> None:
    assert list(part) == list(full)
    for name in full:
        np.testing.assert_array_equal(part[name], full[name][mask], err_msg=name)


def test_file_object_load_equals_path_load(snapshot):
    full_path = kosmo.load(snapshot).cells
    full, nbytes = counted_load(snapshot)
    assert_same_cells(full, full_path, np.ones(full_path.ncells, dtype=bool))
    assert 0 < nbytes < snapshot.stat().st_size  # restart/* datasets are never read


def test_levels_reads_fewer_bytes_and_gives_a_coarser_tiling(snapshot):
    ds = kosmo.load(snapshot)
    full, full_bytes = counted_load(snapshot)
    assert set(np.unique(full.level)) == {3, 4, 5}
    mass = np.sum(full.density * full.dx**3)
    previous = full_bytes
    for levels in (4, ds.levelmin):
        part, part_bytes = counted_load(snapshot, levels=levels)
        print(f"levels={levels}: {part.ncells} cells, {part_bytes} bytes read; full load {full.ncells} cells, "
              f"{full_bytes} bytes")
        assert part_bytes < previous
        previous = part_bytes
        assert part.level.max() == levels
        # Below L: exactly the full load's leaves, in the same order.
        below = part.level < levels
        for name in full:
            np.testing.assert_array_equal(part[name][below], full[name][full.level < levels], err_msg=name)
        # At L every cell is kept, so the cells still tile the box ...
        assert np.sum(part.dx**3) == pytest.approx(1.0, rel=1e-14)
        # ... and its cells that are leaves of the full load carry the same values.
        at_l, full_at_l = part.level == levels, full.level == levels
        leaf_at_l = np.isin(cell_keys(part, at_l), cell_keys(full, full_at_l))
        assert leaf_at_l.sum() == full_at_l.sum() and (~leaf_at_l).sum() > 0
        np.testing.assert_array_equal(part.density[at_l][leaf_at_l], full.density[full_at_l])
        # Refined cells hold the average of their children: the coarse view keeps the mass.
        assert np.sum(part.density * part.dx**3) == pytest.approx(mass, rel=1e-12)
    assert previous < 0.2 * full_bytes  # levels=levelmin


@pytest.mark.parametrize("region", [
    ((0.0, 0.25), (0.0, 0.25), (0.0, 0.25)),      # a corner
    ((0.45, 0.55), (0.45, 0.55), (0.45, 0.55)),   # the blast's centre, finest cells
    ((0.3, 0.7), (0.5, 0.6), (0.0, 1.0)),          # a slab through the blast
])
def test_region_reads_fewer_bytes_and_equals_the_full_subset(snapshot, region):
    full, full_bytes = counted_load(snapshot)
    part, part_bytes = counted_load(snapshot, region=region)
    mask = cells_meeting(full, region)
    print(f"region={region}: {part.ncells} of {full.ncells} cells, {part_bytes} of {full_bytes} bytes read")
    assert 0 < part.ncells == mask.sum() < full.ncells
    assert_same_cells(part, full, mask)
    assert part_bytes < full_bytes
    if region[0] == (0.0, 0.25):
        assert part_bytes < 0.25 * full_bytes


def test_region_and_levels_combine_and_a_plane_selects_one_layer(snapshot):
    full = kosmo.load(snapshot).cells
    coarse = kosmo.load(snapshot, levels=4).cells
    region = ((0.0, 1.0), (0.0, 1.0), (0.6, 0.7))
    both = kosmo.load(snapshot, levels=4, region=region).cells
    assert_same_cells(both, coarse, cells_meeting(coarse, region))
    # z = 0.5 is a face at every level: the plane takes the cells just above it, one layer that
    # covers the plane once.
    plane = kosmo.load(snapshot, region=((0.0, 1.0), (0.0, 1.0), (0.5, 0.5)))
    lower_face = plane.cells.z - 0.5 * plane.cells.dx
    np.testing.assert_array_equal(lower_face, 0.5)
    assert np.sum(plane.cells.dx**2) == pytest.approx(1.0, rel=1e-14)
    above = full.z - 0.5 * full.dx == 0.5
    assert_same_cells(plane.cells, full, above)
    # A slice of a region load shows the region and leaves the rest blank (NaN).
    values = kosmo.sample_leaf_cells(kosmo.load(snapshot, region=((0.0, 0.5), (0.0, 1.0), (0.0, 1.0))),
                                     "density", np.array([[0.25, 0.5, 0.5], [0.75, 0.5, 0.5]]))
    assert np.isfinite(values[0]) and np.isnan(values[1])


def test_bad_selections_are_refused(snapshot):
    with pytest.raises(ValueError, match="levels must lie in 1..5"):
        kosmo.load(snapshot, levels=6)
    with pytest.raises(ValueError, match="low 0.7 > high 0.2"):
        kosmo.load(snapshot, region=((0.7, 0.2), (0, 1), (0, 1)))
    with pytest.raises(ValueError, match="region must be 3 to 3"):
        kosmo.load(snapshot, region=((0, 1),))


def test_partial_loads_of_a_1d_run(tmp_path, run_kosmo):
    """1-D: the region is one (low, high) pair; the levels view still tiles the line and keeps
    the mass."""
    text = (pathlib.Path(__file__).resolve().parents[2] / "examples" / "tube1d.nml").read_text()
    assert "levelmax=10" in text
    (tmp_path / "tube.nml").write_text(text.replace("levelmax=10", "levelmax=6"))
    run_kosmo(["run", "tube.nml"], tmp_path)
    path = tmp_path / "output_00002" / "kosmo_00002.h5"
    full, full_bytes = counted_load(path)
    # Leaves on several levels (with RAMSES' flag_fine buffers every level-4 cell of this short tube
    # refines: leaves at 5 and 6; the level-4 view below is then made entirely by restriction).
    levels = set(np.unique(full.level).tolist())
    assert len(levels) >= 2 and levels <= {4, 5, 6}
    region = ((0.4, 0.6),)
    part, part_bytes = counted_load(path, region=region)
    mask = (full.x - 0.5 * full.dx < 0.6) & (full.x + 0.5 * full.dx > 0.4)
    assert 0 < mask.sum() < full.ncells and part_bytes < full_bytes
    assert_same_cells(part, full, mask)
    coarse = kosmo.load(path, levels=4).cells
    assert coarse.ncells == 16 and np.sum(coarse.dx) == pytest.approx(1.0, rel=1e-14)
    assert np.sum(coarse.density * coarse.dx) == pytest.approx(np.sum(full.density * full.dx), rel=1e-12)
