"""End to end: a small 3-D AMR Sedov blast written with outformat='both' loads in yt through its RAMSES
frontend and agrees with kosmo's own HDF5 snapshot of the same step: total gas mass, leaf cells per
level and the density at a probe point, on 1 and 2 MPI ranks (layouts: docs/outputs.md, "RAMSES
binary format")."""
import numpy as np
import pytest
import yt

import kosmo
from namelists import sedov3d

SEDOV = sedov3d(size=0.25, pressure=1.0, tout=(0.0, 0.01), output_params="outformat='both'")

PROBE = (0.53, 0.48, 0.51)  # inside the blast, away from cell faces at every level


def kosmo_density_at(cells, point):
    """Density of the kosmo leaf cell that contains `point`."""
    inside = np.ones(cells.ncells, dtype=bool)
    for axis, coordinate in zip("xyz", point):
        inside &= np.abs(cells[axis] - coordinate) < 0.5 * cells.dx
    assert inside.sum() == 1, inside.sum()
    return float(cells.density[inside][0])


@pytest.mark.parametrize("nrank", [1, 2])
def test_ramses_output_loads_in_yt_and_matches_the_hdf5_snapshot(tmp_path, run_kosmo, nrank):
    (tmp_path / "sedov.nml").write_text(SEDOV)
    run_kosmo(["run", "sedov.nml"], tmp_path, nrank=nrank)
    output = tmp_path / "output_00002"
    for cpu in range(1, nrank + 1):
        assert (output / f"amr_00002.out{cpu:05d}").is_file()
        assert (output / f"hydro_00002.out{cpu:05d}").is_file()
    assert (output / "hydro_file_descriptor.txt").is_file()
    assert not list(tmp_path.glob("*.tmp")) and not list(output.glob("*.tmp"))

    reference = kosmo.load(output)
    cells = reference.cells
    ds = yt.load(str(output / "info_00002.txt"))
    assert ds.dimensionality == 3 and int(ds.parameters["ncpu"]) == nrank
    assert abs(float(ds.current_time.to_value("code_time")) - reference.time) < 1e-12
    data = ds.all_data()
    density = data["gas", "density"].to_value("code_density")
    dx = data["index", "dx"].to_value("code_length")
    # yt numbers levels from levelmin (its level 0); kosmo from the root oct (level 1).
    levels = data["index", "grid_level"].v.astype(int) + int(ds.parameters["levelmin"])

    # Same leaf cells per level, hence the same cells (yt would double count or lose a refined cell
    # whose children sit in another rank's file without the ghost octs the writer adds).
    kosmo_levels, kosmo_counts = np.unique(cells.level, return_counts=True)
    yt_levels, yt_counts = np.unique(levels, return_counts=True)
    assert list(yt_levels) == list(kosmo_levels) and list(yt_counts) == list(kosmo_counts)
    assert kosmo_levels.max() > 3, "the blast should have refined beyond levelmin"

    mass_kosmo = float(np.sum(cells.density * cells.dx**3))
    mass_yt = float(np.sum(density * dx**3))
    assert abs(mass_yt - mass_kosmo) <= 1e-12 * mass_kosmo, (mass_yt, mass_kosmo)

    probe = ds.point(list(PROBE))["gas", "density"].to_value("code_density")
    assert probe.size == 1
    assert float(probe[0]) == kosmo_density_at(cells, PROBE)


def test_ramses_output_loads_in_osyris_with_the_same_density(tmp_path, run_kosmo):
    """osyris (a reader that insists on hydro_file_descriptor.txt and double precision) sees the
    same leaf cells and densities as kosmo.load, on 2 ranks."""
    import osyris

    (tmp_path / "sedov.nml").write_text(SEDOV)
    run_kosmo(["run", "sedov.nml"], tmp_path, nrank=2)
    mesh = osyris.RamsesDataset(2, path=str(tmp_path)).load()["mesh"]
    density = mesh["density"].values
    position = mesh["position"]
    x, y, z = (position.x.values, position.y.values, position.z.values)
    cells = kosmo.load(tmp_path / "output_00002").cells
    assert density.size == cells.ncells
    # The same cells, matched by position; unit_d = unit_l = 1, so the values are code units.
    mine = np.lexsort((cells.z, cells.y, cells.x))
    theirs = np.lexsort((z, y, x))
    np.testing.assert_allclose(x[theirs], cells.x[mine], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(density[theirs], cells.density[mine])
    dx = mesh["dx"].values
    mass = float(np.sum(density * dx**3))
    assert abs(mass - float(np.sum(cells.density * cells.dx**3))) <= 1e-12 * mass
