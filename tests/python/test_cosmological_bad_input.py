"""Bad cosmological input stops `kosmo run` with one message naming the file and the key, exits
non-zero and writes no output: missing or truncated grafic files, generator-only keys given with
grafic files, impossible cosmological parameters."""
import struct

import numpy as np
import pytest

NAMELIST = """&RUN_PARAMS
cosmo=.true.
pic=.true.
poisson=.true.
ndim=3
/
&AMR_PARAMS
levelmin=3
levelmax=3
/
&INIT_PARAMS
{init}
/
&OUTPUT_PARAMS
noutput=1
aout=0.1
/
"""


def fortran_record(payload: bytes) -> bytes:
    marker = struct.pack("<i", len(payload))
    return marker + payload + marker


def write_grafic(path, n=8, astart=0.02):
    """A grafic file in MUSIC's layout: one header record, then one record per z plane."""
    header = struct.pack("<3i8f", n, n, n, 1.0, 0.0, 0.0, 0.0, astart, 0.3, 0.7, 70.0)
    planes = b"".join(fortran_record(np.zeros(n * n, dtype="<f4").tobytes()) for _ in range(n))
    path.write_bytes(fortran_record(header) + planes)


@pytest.fixture
def grafic_directory(tmp_path):
    directory = tmp_path / "ics"
    directory.mkdir()
    for name in ("ic_deltab", "ic_velcx", "ic_velcy", "ic_velcz"):
        write_grafic(directory / name)
    return directory


def run_bad(tmp_path, run_kosmo, init, nrank=1):
    namelist = tmp_path / "cosmo.nml"
    namelist.write_text(NAMELIST.format(init=init))
    result = run_kosmo(["run", str(namelist)], tmp_path, nrank=nrank, check=False)
    assert result.returncode != 0
    # One line from kosmo, however many ranks (mpirun adds its own report of the exit status).
    lines = result.stderr.strip().splitlines() if nrank == 1 else [
        line for line in result.stderr.splitlines() if line.startswith("kosmo")]
    assert len(lines) == 1, result.stderr
    assert not list(tmp_path.glob("output_*")), "a failed start wrote an output"
    return lines[0]


def test_the_valid_grafic_directory_starts(tmp_path, run_kosmo, grafic_directory):
    # The fixture itself is good input: the failures below come from what each test breaks.
    namelist = tmp_path / "cosmo.nml"
    namelist.write_text(NAMELIST.format(init=f"filetype='grafic'\ninitfile(1)='{grafic_directory}'\naexp_ini=0.099"))
    run_kosmo(["run", str(namelist)], tmp_path)
    assert (tmp_path / "output_00001").is_dir()


def test_missing_grafic_directory(tmp_path, run_kosmo):
    message = run_bad(tmp_path, run_kosmo, f"filetype='grafic'\ninitfile(1)='{tmp_path / 'nowhere'}'")
    assert "nowhere" in message


def test_missing_velocity_file(tmp_path, run_kosmo, grafic_directory):
    (grafic_directory / "ic_velcy").unlink()
    message = run_bad(tmp_path, run_kosmo, f"filetype='grafic'\ninitfile(1)='{grafic_directory}'")
    assert "ic_velcy" in message


@pytest.mark.parametrize("nrank", [1, 2])
def test_truncated_grafic_file(tmp_path, run_kosmo, grafic_directory, nrank):
    velocity = grafic_directory / "ic_velcx"
    velocity.write_bytes(velocity.read_bytes()[:-100])
    message = run_bad(tmp_path, run_kosmo, f"filetype='grafic'\ninitfile(1)='{grafic_directory}'", nrank)
    assert "ic_velcx" in message and "truncated" in message


def test_grafic_grid_that_levelmin_does_not_match(tmp_path, run_kosmo, grafic_directory):
    namelist = tmp_path / "cosmo.nml"
    namelist.write_text(NAMELIST.format(init=f"filetype='grafic'\ninitfile(1)='{grafic_directory}'")
                        .replace("levelmin=3\nlevelmax=3", "levelmin=2\nlevelmax=2"))
    result = run_kosmo(["run", str(namelist)], tmp_path, check=False)
    assert result.returncode != 0 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "ic_deltab" in result.stderr and "levelmin" in result.stderr and "cosmo.nml" in result.stderr
    assert not list(tmp_path.glob("output_*"))


@pytest.mark.parametrize("key", ["ic_lattice=4", "ic_invert_phases=.true.", "ic_fix_amplitudes=.true."])
def test_generator_keys_with_grafic_files(tmp_path, run_kosmo, grafic_directory, key):
    message = run_bad(tmp_path, run_kosmo, f"filetype='grafic'\ninitfile(1)='{grafic_directory}'\n{key}")
    assert "cosmo.nml" in message and "INIT_PARAMS" in message and key.split("=")[0] in message


@pytest.mark.parametrize("init, named", [
    ("filetype='gaussian'\nomega_b=0.5\nomega_m=0.3", "omega_b"),
    ("filetype='gaussian'\naexp_ini=1.5", "aexp_ini"),
    ("filetype='gaussian'\nic_lattice=3", "ic_lattice"),
    ("filetype='ascii'", "filetype"),
])
def test_impossible_generator_parameters(tmp_path, run_kosmo, init, named):
    message = run_bad(tmp_path, run_kosmo, init)
    assert "cosmo.nml" in message and named in message
