"""A restart from the default analysis output, the RAMSES-format files (informat='ramses'), of a
gravity + particles + gas run (the cosmological box at a 16^3 base, refined where the mass asks)
continues within 1e-12 of the uninterrupted run on another rank count: the files hold no
restart-only state, and the restart rebuilds the leapfrog's provisional half kicks from the grav_
files' acceleration and each level's latest step, as RAMSES does (docs/outputs.md, "Restarts")."""
import shutil

import numpy as np
import pytest

import kosmo
from test_readers_default_output import COSMOLOGY_BOX

# Two outputs after the initial one; m_refine low enough that a part of the box is at level 5.
WHOLE = (COSMOLOGY_BOX.replace("noutput=1\naout=0.05", "noutput=2\naout=0.03,0.04")
         .replace("m_refine=10*8.0", "m_refine=10*1.5"))
RESTART = (WHOLE.replace("&RUN_PARAMS\n", "&RUN_PARAMS\nnrestart=2\n")
           .replace("&OUTPUT_PARAMS\n", "&OUTPUT_PARAMS\ninformat='ramses'\n"))
TOLERANCE = 1e-12  # relative to each quantity's largest magnitude


def sorted_cells(ds):
    c = ds.cells
    order = np.lexsort((c.z, c.y, c.x, c.level))
    return {name: c[name][order] for name in c.keys()}


@pytest.mark.parametrize("written_on, restarted_on", [(1, 2), (2, 1)])
def test_restart_from_ramses_files_continues_the_run(tmp_path, run_kosmo, written_on, restarted_on):
    assert "outformat" not in WHOLE and "informat" in RESTART and WHOLE != COSMOLOGY_BOX
    whole = tmp_path / "whole"
    whole.mkdir()
    (whole / "box.nml").write_text(WHOLE)
    run_kosmo(["run", "box.nml"], whole, nrank=written_on)
    restarted = tmp_path / "restarted"
    restarted.mkdir()
    shutil.copytree(whole / "output_00002", restarted / "output_00002")
    (restarted / "output_00002" / "kosmo_00002.h5").unlink()  # the RAMSES files alone
    assert sorted(p.name.split("_")[0] for p in (restarted / "output_00002").glob("grav_*")) == ["grav"] * written_on
    (restarted / "box.nml").write_text(RESTART)
    result = run_kosmo(["run", "box.nml"], restarted, nrank=restarted_on)
    assert "Restarted from output_00002" in result.stdout

    a, b = kosmo.load(whole / "output_00003"), kosmo.load(restarted / "output_00003")
    assert a.step == b.step and a.time == b.time
    assert a.octs_per_level().get(5, 0) > 0, "the box should have refined beyond levelmin"
    cells_a, cells_b = sorted_cells(a), sorted_cells(b)
    for name in ("x", "y", "z", "level"):
        np.testing.assert_array_equal(cells_a[name], cells_b[name], err_msg=name)
    for name in ("density", "velocity_x", "velocity_y", "velocity_z", "pressure", "potential", "acceleration_x"):
        scale = np.max(np.abs(cells_a[name]))
        assert np.max(np.abs(cells_a[name] - cells_b[name])) <= TOLERANCE * scale, name
    pa, pb = a.particles, b.particles
    oa, ob = np.argsort(pa.id), np.argsort(pb.id)
    np.testing.assert_array_equal(pa.id[oa], pb.id[ob])
    for name in ("x", "y", "z", "vx", "vy", "vz"):
        difference = pa[name][oa] - pb[name][ob]
        if name in "xyz":
            difference -= np.round(difference / a.boxlen) * a.boxlen  # periodic
        assert np.max(np.abs(difference)) <= TOLERANCE * np.max(np.abs(pa[name])), name
