"""`./kosmo run` with no namelist: the showcase cosmological box (examples/cosmology_box.nml) from
z = 50 to z = 0 on two ranks through the launcher, its outputs at the requested expansion factors,
its run log (a progress line per step, no build chatter), the pictures the launcher draws at the
end (python/kosmo/showcase.py) and kosmo-plot on its outputs."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from matplotlib import image as mpimg
from PIL import Image

import kosmo
from conftest import BUILD_DIR, SOURCE_DIR
from kosmo.particle_projection import dark_matter, particle_projection
from kosmo.plot_units import surface_density_unit

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
    # In code units, comoving here: unyt would compare the two outputs' physical surface densities,
    # whose code units differ by (a_late / a_early)^2.
    projected = [float(np.asarray(kosmo.density_projection(ds, axis="z", n=64, particles=True)).max()) for ds in (early, late)]
    assert projected[1] > 3 * projected[0]


PROGRESS = re.compile(r"^ Progress: +(\d+\.\d)% \(a=(\S+) of (\S+)\), .* elapsed, ETA (.+)$", re.M)


def test_every_step_line_is_followed_by_a_progress_line_and_no_build_chatter(showcase):
    _, stdout = showcase
    lines = stdout.splitlines()
    steps = [i for i, line in enumerate(lines) if line.startswith(" Main step=")]
    assert all(PROGRESS.match(lines[i + 1]) for i in steps)
    progress = PROGRESS.findall(stdout)
    assert len(progress) == len(steps)
    done = [float(p[0]) for p in progress]
    assert done == sorted(done) and done[-1] == 100.0 and progress[-1][3] == "0 s"
    assert all(float(p[2]) == pytest.approx(1.0) for p in progress)  # toward aend = last aout = 1
    assert all(p[3] != "unknown" for p in progress)
    # The compiler's progress goes to build/build.log, never into the run's output.
    assert not re.search(r"Built target|Linking CXX|Scanning dependencies|^\[ *\d+%\]", stdout, re.M)
    assert lines[0].strip(), "the run log starts with the banner"


def title_of(png) -> str:
    """The "Title" text chunk of a PNG (savefig's metadata)."""
    with Image.open(png) as image:
        return image.text.get("Title", "")


@pytest.mark.parametrize("name", ["showcase_projection.png", "showcase_power_spectrum.png"])
def test_the_launcher_draws_the_pictures_titled_with_the_redshift(showcase, name):
    where, stdout = showcase
    png = where / name
    assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert 10_000 < png.stat().st_size <= 300_000
    pixels = mpimg.imread(png)
    assert not np.isnan(pixels).any() and pixels[..., :3].std() > 0.05  # drawn, not blank
    assert "z = 0.00" in title_of(png) and "50 Mpc/h" in title_of(png)
    summary = [line for line in stdout.splitlines() if line.startswith(" Showcase,")]
    assert len(summary) == 1 and name in summary[0] and "z = 0.00" in summary[0]


def test_the_dark_matter_image_has_no_empty_pixel_and_the_box_mass_in_solar_masses(showcase):
    where, _ = showcase
    ds = kosmo.load(where / "output_00004")
    surface, extent = particle_projection(ds, "z", 256)
    assert (surface > 0.0).all()
    pixel_area = (extent[1] / 256) ** 2
    assert surface.sum() * pixel_area == pytest.approx(dark_matter(ds)[1].sum(), rel=1e-12)  # every particle's mass
    # Comoving M_sun/h per (Mpc/h)^2: the mean column is rho_crit (Omega_m - Omega_b) L with
    # rho_crit = 2.775e11 h^2 M_sun / Mpc^3 and L = 50 Mpc/h (0.1 %: RAMSES' rounded constants).
    factor, units = surface_density_unit(ds)
    assert "M" in units and "Mpc/h" in units
    assert surface.mean() * factor == pytest.approx(2.775e11 * (0.3 - 0.045) * 50.0, rel=2e-3)


def kosmo_plot(args, cwd):
    return subprocess.run([sys.executable, "-m", "kosmo.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_kosmo_plot_temperature_and_the_densest_halo_profile(showcase, tmp_path):
    where, _ = showcase
    result = kosmo_plot([str(where / "output_00003"), "--field", "temperature"], tmp_path)
    assert result.returncode == 0, result.stderr
    png = tmp_path / "slice_temperature_00003.png"
    assert result.stdout.strip() == png.name and mpimg.imread(png)[..., :3].std() > 0.01
    assert title_of(png).startswith("temperature") and "z = 1.00" in title_of(png)
    # The dark matter around the densest halo: a steep profile whose centre is far above the mean.
    profile_png = tmp_path / "halo.png"
    result = kosmo_plot([str(where / "output_00004"), "--field", "particle_density", "--kind", "profile",
                         "--center", "max", "--bins", "8", "--rmax", "0.04", "--output", str(profile_png)], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "densest halo" in title_of(profile_png) and "z = 0.00" in title_of(profile_png)
    profile = kosmo.radial_profile(kosmo.load(where / "output_00004"), "particle_density", center="max", bins=8,
                                   rmax=0.04, periodic=True)
    assert profile.values[0] > 200.0 and profile.values[0] > 10 * profile.values[-1]


def test_every_output_has_positive_pressure(showcase):
    """No cell with pressure <= 0 at any output (docs/hydro.md "Positive pressure"): before the pressure
    fix was on by default in cosmological runs, 40-44 % of this box's volume had p <= 0 after z = 3."""
    where, _ = showcase
    for number in range(1, 5):
        pressure = np.asarray(kosmo.load(where / f"output_{number:05d}").cells["pressure"])
        assert pressure.size > 0 and (pressure > 0).all(), f"output {number}: {(pressure <= 0).sum()} cells with p <= 0"


def test_yt_pynbody_and_osyris_open_the_showcase_at_redshift_zero(showcase):
    """The showcase's default output, with no option: the checks of test_readers_default_output.py
    (cell and particle counts, gas and dark-matter mass against rho_crit Omega V in Msun, z, the box in
    Mpc/h, no restart-only field) with yt, pynbody and osyris."""
    from test_readers_default_output import check_osyris, check_pynbody, check_yt
    where, _ = showcase
    output = where / "output_00004"
    reference = kosmo.load(output)
    check_yt(output, 4, reference, 50.0, 32**3, 1.0)
    check_pynbody(output, reference, 50.0, 32**3, 1.0)
    check_osyris(output, 4, reference, 50.0, 32**3, 1.0)
