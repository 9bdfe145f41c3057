"""`kosmo run examples/collapse3d.nml` on 2 ranks: a self-gravitating cloud in an isolated box, from
the namelist to the snapshot. The snapshot carries the potential and the acceleration, the potential
well sits at the cloud's centre, gravity points inwards, and the cloud has started to collapse."""
import pathlib

import numpy as np

import kosmo

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "collapse3d.nml"


def test_collapsing_cloud_end_to_end(tmp_path, run_kosmo):
    (tmp_path / "collapse.nml").write_text(EXAMPLE.read_text())
    result = run_kosmo(["run", "collapse.nml"], tmp_path, nrank=2)
    steps = [line for line in result.stdout.splitlines() if "Main step=" in line]
    assert steps and all("epot=" in line for line in steps)

    initial = kosmo.load(tmp_path / "output_00001")
    final = kosmo.load(tmp_path / "output_00002")
    for ds in (initial, final):
        assert {"potential", "acceleration_x", "acceleration_y", "acceleration_z"} <= set(ds.cells.keys())
    c = final.cells
    r = np.sqrt((c.x - 0.5) ** 2 + (c.y - 0.5) ** 2 + (c.z - 0.5) ** 2)
    # The potential well is at the centre of the cloud (within a few finest cells).
    deepest = np.argmin(c.potential)
    assert r[deepest] < 4 * c.dx.min()
    # Inside and around the cloud (0.05 < r < 0.3) gravity points inwards: g . r_hat < 0.
    shell = (r > 0.05) & (r < 0.3)
    radial = (c.acceleration_x * (c.x - 0.5) + c.acceleration_y * (c.y - 0.5) + c.acceleration_z * (c.z - 0.5)) / r
    assert shell.sum() > 100 and (radial[shell] < 0).all()
    # Outside the cloud the field is that of its mass: |g| r^2 = M within 10 % at r = 0.3-0.45.
    a = initial.cells
    ra = np.sqrt((a.x - 0.5) ** 2 + (a.y - 0.5) ** 2 + (a.z - 0.5) ** 2)
    mass = float((a.density * a.dx ** 3)[ra < 0.15 + 0.5 * a.dx].sum())
    far = (ra > 0.3) & (ra < 0.45)
    g = np.sqrt(a.acceleration_x ** 2 + a.acceleration_y ** 2 + a.acceleration_z ** 2)
    enclosed = mass + 1.0 * 4 / 3 * np.pi * (ra[far] ** 3 - 0.15 ** 3)  # the background inside r too
    np.testing.assert_allclose(g[far] * ra[far] ** 2, enclosed, rtol=0.1)
    # The cloud has begun to collapse: its central density has grown.
    centre_initial = a.density[ra < 0.05].mean()
    centre_final = c.density[r < 0.05].mean()
    assert centre_final > 1.2 * centre_initial
