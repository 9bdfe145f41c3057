"""Job control of `kosmo run`: a command file asks for an extra snapshot or a graceful stop, and
walltime_hrs stops a run with a snapshot before the wall-clock limit."""
import pathlib

import kosmo

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def tube(extra_run_params: str, extra_output_params: str = "") -> str:
    """examples/tube1d.nml (levels 3-10, outputs at t = 0 and 0.245) with more &RUN_PARAMS and
    &OUTPUT_PARAMS keys."""
    text = (EXAMPLES / "tube1d.nml").read_text()
    assert "&RUN_PARAMS\n" in text and "&OUTPUT_PARAMS\n" in text
    text = text.replace("&OUTPUT_PARAMS\n", "&OUTPUT_PARAMS\n" + extra_output_params + "\n", 1)
    return text.replace("&RUN_PARAMS\n", "&RUN_PARAMS\n" + extra_run_params + "\n", 1)


def test_stop_command_writes_a_snapshot_and_ends_the_run(tmp_path, run_kosmo):
    (tmp_path / "tube.nml").write_text(tube("jobcontrolfile='control.txt'"))
    (tmp_path / "control.txt").write_text("stop\n")
    result = run_kosmo(["run", "tube.nml"], tmp_path, nrank=2)
    assert "Job control: stop requested in control.txt" in result.stdout
    # output_00001 at t = 0, then the stop snapshot after the first coarse step, long before 0.245.
    ds = kosmo.load(tmp_path / "output_00002")
    assert ds.step == 1 and 0.0 < ds.time < 0.245
    assert not (tmp_path / "output_00003").exists()
    assert (tmp_path / "control.txt.done").exists() and not (tmp_path / "control.txt").exists()


def test_output_command_adds_a_snapshot_and_the_run_goes_on(tmp_path, run_kosmo):
    (tmp_path / "tube.nml").write_text(tube("jobcontrolfile='control.txt'"))
    (tmp_path / "control.txt").write_text("output\n")
    result = run_kosmo(["run", "tube.nml"], tmp_path)
    assert "Job control: output requested in control.txt" in result.stdout
    extra = kosmo.load(tmp_path / "output_00002")
    assert extra.step == 1
    final = kosmo.load(tmp_path / "output_00003")
    assert abs(final.time - 0.245) < 1e-12


def test_walltime_limit_stops_with_a_snapshot(tmp_path, run_kosmo):
    # A limit of 3.6 ms from the start of the run with no margin: passed before the first coarse
    # step ends (setting up the mesh alone takes longer), so the run stops right after it.
    (tmp_path / "tube.nml").write_text(tube("", "walltime_hrs=1e-6\nminutes_dump=0.0"))
    result = run_kosmo(["run", "tube.nml"], tmp_path)
    assert "Job control: wall-clock limit" in result.stdout
    ds = kosmo.load(tmp_path / "output_00002")
    assert ds.step == 1 and ds.time < 0.245
    assert not (tmp_path / "output_00003").exists()


def test_snapshot_steps_write_after_each_listed_step_and_stop_after_the_last(tmp_path, run_kosmo):
    # kosmo run --snapshot-steps: job control known in advance, for an unchanged namelist.
    (tmp_path / "tube.nml").write_text(tube(""))
    result = run_kosmo(["run", "tube.nml", "--snapshot-steps", "2,3"], tmp_path, nrank=2)
    assert "Job control: snapshot after step 2 (--snapshot-steps)" in result.stdout
    assert "Job control: snapshot and stop after step 3 (--snapshot-steps)" in result.stdout
    assert [kosmo.load(tmp_path / f"output_0000{n}").step for n in (1, 2, 3)] == [0, 2, 3]
    assert not (tmp_path / "output_00004").exists()


def test_snapshot_steps_must_be_increasing_positive_steps(tmp_path, run_kosmo):
    (tmp_path / "tube.nml").write_text(tube(""))
    for bad in ("3,2", "x"):
        result = run_kosmo(["run", "tube.nml", "--snapshot-steps", bad], tmp_path, check=False)
        assert result.returncode != 0 and "--snapshot-steps" in result.stderr, result.stderr
    assert not list(tmp_path.glob("output_*"))
