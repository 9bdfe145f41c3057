"""Every namelist shipped in examples/ is accepted by kosmo's parameter checks (a run that would
stop on a typo is caught here, not by a user)."""
import pathlib

import pytest

import kosmo

EXAMPLES = sorted((pathlib.Path(__file__).resolve().parents[2] / "examples").glob("*.nml"))


@pytest.mark.parametrize("namelist", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_namelist_runs_its_first_steps(namelist, tmp_path, run_kosmo):
    # Two coarse steps are enough to check the file; nstepmax is overridden through a copy.
    text = namelist.read_text().replace("&RUN_PARAMS\n", "&RUN_PARAMS\nnstepmax=2\n", 1)
    copy = tmp_path / namelist.name
    copy.write_text(text)
    result = run_kosmo(["run", str(copy)], tmp_path)
    assert "Run completed" in result.stdout
    if "hydro=.true." in text or "pic=.true." in text:
        assert result.stdout.count("Main step=") == 2
    if "cosmo=.true." in text:
        # Outputs come at the expansion factors aout: within two steps of z = 50 only the output of
        # the initial state, output_00001.
        for output in sorted(tmp_path.glob("output_*")):
            ds = kosmo.load(output)
            assert ds.particles.nparticles > 0 and ds.aexp < 0.03
        return
    ds = kosmo.load(tmp_path / "output_00001")
    assert ds.cells.ncells > 0
    # The leaves tile the box and the stored density is the physical, positive one.
    assert abs(float((ds.cells.dx ** ds.ndim).sum()) - ds.boxlen ** ds.ndim) < 1e-12 * ds.boxlen ** ds.ndim
    assert (ds.cells.density > 0).all()
