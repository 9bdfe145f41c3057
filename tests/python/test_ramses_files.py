"""kosmo's outputs read three ways that must agree: the way RAMSES' own test suite reads them
(ramses_files.py: file names, numbering, info_/header_/descriptor files, the records of amr_,
hydro_ and part_ files), by yt (3-D only: its RAMSES frontend always reads three xg records) and by
osyris; and RAMSES' output numbering (docs/outputs.md, "When outputs are written"): output_00001 is
the initial state, one output per tout and tend without duplicates, foutput counts coarse steps,
nstepmax ends the run without an output of its own, a restart numbers on."""
import numpy as np
import pytest

import kosmo
from ramses_files import load_snapshot
from test_ramses_suite_runs import RUNS, run_setup


@pytest.mark.parametrize("nrank", [1, 2])
def test_sedov3d_reads_the_same_in_the_visu_reader_yt_and_osyris(tmp_path, run_kosmo, nrank):
    import osyris
    import yt

    run_setup("sedov3d", tmp_path, run_kosmo, nrank)
    for number in (2,):  # the blast at t = 0.03 (output_00001, the initial state, is uniform but a corner)
        snapshot = load_snapshot(number, tmp_path)
        assert snapshot["info"]["ncpu"] == nrank
        d = snapshot["data"]
        order = np.lexsort((d["z"], d["y"], d["x"]))
        mass = float(np.sum(d["density"] * d["dx"] ** 3))

        ds = yt.load(str(tmp_path / f"output_{number:05d}" / f"info_{number:05d}.txt"))
        data = ds.all_data()
        # yt's code_length is the box (unit_l * boxlen); RAMSES' code unit is unit_l = 1 cm here.
        yt_x = [data["index", axis].to_value("cm") for axis in "xyz"]
        yt_density = data["gas", "density"].to_value("code_density")
        assert yt_density.size == d["density"].size
        theirs = np.lexsort((yt_x[2], yt_x[1], yt_x[0]))
        for axis, values in zip("xyz", yt_x):
            np.testing.assert_allclose(values[theirs], d[axis][order], rtol=0, atol=1e-12)
        np.testing.assert_array_equal(yt_density[theirs], d["density"][order])
        assert float(ds.current_time.to_value("code_time")) == pytest.approx(snapshot["info"]["time"], rel=1e-14)

        mesh = osyris.RamsesDataset(number, path=str(tmp_path)).load()["mesh"]
        position = mesh["position"]
        ox = [position.x.values, position.y.values, position.z.values]
        theirs = np.lexsort((ox[2], ox[1], ox[0]))
        np.testing.assert_allclose(ox[0][theirs], d["x"][order], rtol=0, atol=1e-12)
        np.testing.assert_array_equal(mesh["density"].values[theirs], d["density"][order])
        np.testing.assert_array_equal(mesh["pressure"].values[theirs], d["pressure"][order])
        assert float(np.sum(mesh["density"].values * mesh["dx"].values ** 3)) == pytest.approx(mass, rel=1e-12)


@pytest.mark.parametrize("name,ndim", [("sod-tube", 1), ("implosion", 2)])
def test_one_and_two_dimensional_outputs_read_the_same_in_osyris(tmp_path, run_kosmo, name, ndim):
    import osyris

    run_setup(name, tmp_path, run_kosmo, nrank=2)
    snapshot = load_snapshot(2, tmp_path)
    d = snapshot["data"]
    assert snapshot["info"]["ndim"] == ndim and snapshot["info"]["ncpu"] == 2
    mesh = osyris.RamsesDataset(2, path=str(tmp_path)).load()["mesh"]
    if ndim == 1:
        theirs, mine = np.argsort(mesh["position_x"].values), np.argsort(d["x"])
        np.testing.assert_allclose(mesh["position_x"].values[theirs], d["x"][mine], rtol=0, atol=1e-12)
    else:
        position = mesh["position"]
        theirs = np.lexsort((position.y.values, position.x.values))
        mine = np.lexsort((d["y"], d["x"]))
        np.testing.assert_allclose(position.y.values[theirs], d["y"][mine], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(mesh["density"].values[theirs], d["density"][mine])
    np.testing.assert_array_equal(mesh["level"].values[theirs], d["level"][mine])


def outputs(where) -> list:
    return sorted(p.name for p in where.glob("output_*"))


def test_foutput_counts_steps_and_nstepmax_writes_no_output_of_its_own(tmp_path, run_kosmo):
    """RAMSES (amr/amr_step.f90) writes when mod(nstep_coarse, foutput) = 0 and stops at nstepmax
    without another output: nstepmax=5, foutput=2 gives the steps 0, 2 and 4."""
    text = (RUNS / "sod-tube.nml").read_text().replace("&RUN_PARAMS\n", "&RUN_PARAMS\nnstepmax=5\n", 1)
    (tmp_path / "tube.nml").write_text(text.replace("&OUTPUT_PARAMS\n", "&OUTPUT_PARAMS\nfoutput=2\n", 1))
    result = run_kosmo(["run", "tube.nml", "--ndim", "1"], tmp_path)
    assert result.stdout.count("Main step=") == 5
    assert outputs(tmp_path) == ["output_00001", "output_00002", "output_00003"]
    steps = [kosmo.load(tmp_path / name).step for name in outputs(tmp_path)]
    assert steps == [0, 2, 4]


def test_tend_on_the_last_tout_is_one_output_and_tend_alone_is_one(tmp_path, run_kosmo):
    """RAMSES appends tend to the tout list (amr/read_params.f90); when it equals the last tout the
    one output consumes both."""
    base = (RUNS / "sod-tube.nml").read_text()
    for case, extra, expected in (("same", "tend=0.245\n", [0.0, 0.245]),
                                  ("later", "tend=0.3\n", [0.0, 0.245, 0.3]),
                                  ("alone", "tend=0.1\nnoutput=0\n", [0.0, 0.1])):
        where = tmp_path / case
        where.mkdir()
        text = base.replace("&OUTPUT_PARAMS\nnoutput=1\n", "&OUTPUT_PARAMS\n" + extra if "noutput" in extra
                            else "&OUTPUT_PARAMS\nnoutput=1\n" + extra, 1)
        (where / "tube.nml").write_text(text)
        run_kosmo(["run", "tube.nml", "--ndim", "1"], where)
        times = [kosmo.load(where / name).time for name in outputs(where)]
        assert times == pytest.approx(expected, rel=1e-14, abs=0), case


def test_every_output_has_its_header_and_namelist_copy(tmp_path, run_kosmo):
    """header_NNNNN.txt (RAMSES' layout, zero counts without particles) and namelist.txt, the run's
    namelist byte for byte, in HDF5-only outputs too."""
    text = (RUNS / "advect1d.nml").read_text()
    (tmp_path / "advect.nml").write_text(text)
    run_kosmo(["run", "advect.nml", "--ndim", "1"], tmp_path)
    for number in (1, 2):
        output = tmp_path / f"output_{number:05d}"
        assert (output / "namelist.txt").read_text() == text
        header = (output / f"header_{number:05d}.txt").read_text().splitlines()
        assert header[0] == "#      Family     Count"
        assert len(header) == 1 + 11 + 1 + 2 and header[-2] == " Particle fields"
        assert all(line.split()[1] == "0" for line in header[1:13])
        assert header[-1] == "pos vel mass iord level family tag "
