"""Bad restart files through `kosmo run`: a truncated HDF5 snapshot, a missing RAMSES cpu file and a
RAMSES header of the wrong dimensionality each stop the run with an error naming the file and a
non-zero exit status, and leave no new output behind."""
import shutil

import pytest

from namelists import sedov3d


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory, run_kosmo):
    """output_00002 of a short 3-D run on 2 ranks, in both formats (two RAMSES cpu files)."""
    where = tmp_path_factory.mktemp("written")
    (where / "sedov.nml").write_text(sedov3d(levelmax=4, tout=(0.0, 0.002), output_params="outformat='both'"))
    run_kosmo(["run", "sedov.nml"], where, nrank=2)
    assert (where / "output_00002" / "amr_00002.out00002").is_file()
    return where / "output_00002"


def restart(tmp_path, run_kosmo, snapshot, informat, spoil):
    shutil.copytree(snapshot, tmp_path / "output_00002")
    spoil(tmp_path / "output_00002")
    (tmp_path / "restart.nml").write_text(
        sedov3d(levelmax=4, tout=(0.0, 0.002, 0.004), run_params="nrestart=2", output_params=f"informat='{informat}'"))
    result = run_kosmo(["run", "restart.nml"], tmp_path, check=False)
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if line.startswith("kosmo: error")]
    assert len(errors) == 1, result.stderr
    assert not (tmp_path / "output_00003").exists()
    return errors[0]


def test_truncated_hdf5_snapshot(tmp_path, run_kosmo, snapshot):
    def cut(output):
        h5 = output / "kosmo_00002.h5"
        data = h5.read_bytes()
        h5.write_bytes(data[: len(data) // 2])

    error = restart(tmp_path, run_kosmo, snapshot, "hdf5", cut)
    assert "kosmo_00002.h5" in error


def test_missing_ramses_cpu_file(tmp_path, run_kosmo, snapshot):
    error = restart(tmp_path, run_kosmo, snapshot, "ramses", lambda output: (output / "amr_00002.out00002").unlink())
    assert "amr_00002.out00002" in error and "missing" in error


def test_ramses_header_of_the_wrong_dimensionality(tmp_path, run_kosmo, snapshot):
    def flatten(output):
        info = output / "info_00002.txt"
        text = info.read_text()
        assert "ndim        =          3" in text
        info.write_text(text.replace("ndim        =          3", "ndim        =          2"))

    error = restart(tmp_path, run_kosmo, snapshot, "ramses", flatten)
    assert "ndim" in error and "amr_00002.out00001" in error
