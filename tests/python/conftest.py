"""Shared fixtures: the kosmo binary built by the launcher, and a way to run it."""
import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("KOSMO_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
BUILD_DIR = pathlib.Path(os.environ.get("KOSMO_BUILD_DIR", SOURCE_DIR / "build"))


@pytest.fixture(scope="session")
def kosmo_binary() -> pathlib.Path:
    binary = BUILD_DIR / "kosmo"
    assert binary.is_file(), f"kosmo binary not found at {binary}: run ./kosmo test (it builds first)"
    return binary


def mpirun_prefix(nrank: int) -> list[str]:
    """mpirun for nrank ranks on any machine: oversubscribed, and allowed as root (CI runs as root)."""
    if nrank == 1:
        return []
    prefix = ["mpirun", "-np", str(nrank), "--oversubscribe"]
    if os.geteuid() == 0:
        prefix.append("--allow-run-as-root")
    return prefix


@pytest.fixture(scope="session")
def run_kosmo(kosmo_binary):
    def run(args: list[str], cwd: pathlib.Path, nrank: int = 1, check: bool = True) -> subprocess.CompletedProcess:
        env = dict(os.environ, OMP_NUM_THREADS="1")
        result = subprocess.run(mpirun_prefix(nrank) + [str(kosmo_binary)] + args, cwd=cwd, env=env,
                                capture_output=True, text=True, timeout=600)
        if check:
            assert result.returncode == 0, f"kosmo {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}"
        return result
    return run
