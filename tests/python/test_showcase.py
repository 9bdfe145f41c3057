"""`./kosmo run` with no namelist: the showcase cosmological box (examples/cosmology_box.nml) from
z = 50 to z = 0 on two ranks through the launcher, its outputs at the requested expansion factors,
and the projection image the launcher draws at the end."""
import os
import re
import subprocess

import numpy as np
import pytest

import kosmo
from conftest import BUILD_DIR, SOURCE_DIR

STEP = re.compile(r"^ Main step=\s*(\d+) .* mcons=\s*(\S+) .* a=\s*(\S+) z=\s*(\S+) npart=(\d+)", re.M)


@pytest.fixture(scope="module")
def showcase(tmp_path_factory):
    where = tmp_path_factory.mktemp("showcase")
    env = dict(os.environ, OMP_NUM_THREADS="1", KOSMO_BUILD_DIR=str(BUILD_DIR))
    result = subprocess.run([str(SOURCE_DIR / "kosmo"), "run", "--np", "2"], cwd=where, env=env, capture_output=True, text=True,
                            timeout=1200)
    assert result.returncode == 0, f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return where, result.stdout


def test_runs_from_redshift_fifty_to_today_with_a_line_per_step(showcase):
    _, stdout = showcase
    steps = STEP.findall(stdout)
    assert len(steps) > 20
    first, last = steps[0], steps[-1]
    assert 0.02 < float(first[2]) < 0.025
    assert float(last[2]) == pytest.approx(1.0, abs=1e-6) and abs(float(last[3])) < 1e-6
    # Mass (gas + particles) to round-off, and every particle kept.
    assert max(abs(float(s[1])) for s in steps) < 1e-12
    assert {int(s[4]) for s in steps} == {32 ** 3}


def test_outputs_at_the_requested_expansion_factors(showcase):
    where, _ = showcase
    # output_00001 is the initial state (RAMSES' numbering), then one output per aout.
    expected = [0.02, 0.25, 0.5, 1.0]
    for number, a in enumerate(expected, start=1):
        ds = kosmo.load(where / f"output_{number:05d}")
        assert ds.aexp == pytest.approx(a, rel=1e-9)
        assert ds.particles.nparticles == 32 ** 3
        # The gas carries omega_b / omega_m of the mean matter density 1 (code units, boxlen 1).
        gas = float((ds.cells.density * ds.cells.dx ** 3).sum())
        dark = float(ds.particles.mass.sum())
        assert gas == pytest.approx(0.045 / 0.3, rel=1e-12)
        assert gas + dark == pytest.approx(1.0, rel=1e-12)
    # Structure forms: the densest dark-matter pixel grows and the box refined below the base.
    late = kosmo.load(where / "output_00004")
    early = kosmo.load(where / "output_00002")
    assert late.cells.level.max() > late.levelmin
    projected = [kosmo.density_projection(ds, axis="z", n=64, particles=True).max() for ds in (early, late)]
    assert projected[1] > 3 * projected[0]


def test_the_launcher_draws_the_projection(showcase):
    where, stdout = showcase
    image = where / "showcase_projection.png"
    assert image.is_file() and image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "showcase_projection.png" in stdout
