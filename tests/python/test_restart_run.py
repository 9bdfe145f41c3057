"""`kosmo run` with nrestart: continuing from a snapshot on another number of ranks gives the same
next snapshot as the uninterrupted run, bit for bit; a missing snapshot stops with one message."""
import shutil

import numpy as np

import kosmo
from namelists import sedov3d


def _sorted_cells(path):
    ds = kosmo.load(path)
    c = ds.cells
    order = np.lexsort((c.z, c.y, c.x, c.level))
    return ds, {name: c[name][order] for name in ("x", "y", "z", "level", "density", "velocity_x", "pressure")}


def test_restart_on_another_rank_count_continues_bit_for_bit(tmp_path, run_kosmo):
    whole = tmp_path / "whole"
    whole.mkdir()
    (whole / "sedov.nml").write_text(sedov3d(run_params="nrestart=0"))
    run_kosmo(["run", "sedov.nml"], whole, nrank=2)

    restarted = tmp_path / "restarted"
    restarted.mkdir()
    shutil.copytree(whole / "output_00002", restarted / "output_00002")
    (restarted / "sedov.nml").write_text(sedov3d(run_params="nrestart=2"))
    result = run_kosmo(["run", "sedov.nml"], restarted, nrank=3)
    assert "Restarted from output_00002" in result.stdout
    assert not (restarted / "output_00001").exists()  # numbering continues after the restart output

    ds_whole, a = _sorted_cells(whole / "output_00003")
    ds_restarted, b = _sorted_cells(restarted / "output_00003")
    assert ds_restarted.ncpu == 3 and ds_whole.ncpu == 2
    assert ds_restarted.step == ds_whole.step and ds_restarted.time == ds_whole.time
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def test_restart_from_a_missing_output_is_one_clear_error(tmp_path, run_kosmo):
    (tmp_path / "sedov.nml").write_text(sedov3d(run_params="nrestart=5"))
    result = run_kosmo(["run", "sedov.nml"], tmp_path, nrank=2, check=False)
    assert result.returncode != 0
    assert "output_00005/kosmo_00005.h5" in result.stderr and "does not exist" in result.stderr
    assert not list(tmp_path.glob("output_*"))
