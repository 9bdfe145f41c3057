"""Units in kosmo.load (docs/analysis.md, "Units, redshift and derived fields"): unit-carrying
arrays from the snapshot's metadata, redshift and age against the Friedmann equation, the derived
fields (temperature, cell mass, particle density), power spectra in h/Mpc, z = 0 exactly at the end
of a run to a = 1, and no restart-only state among the analysis arrays.

Two cheap runs: a 16^3 dark-matter box from a = 0.25 to 1 (14 coarse steps, ~0.3 s) and the
initial output of a uniform 8^3 gas with physical units (~0.1 s)."""
from __future__ import annotations

import math
import pathlib
import re

import numpy as np
import pytest
import unyt

import kosmo
from kosmo.units import SnapshotArray, attach_units, snapshot_registry
from namelists import sedov3d

# Literal constants, independent of the package: RAMSES' (amr/units.f90) and the IAU/CODATA ones.
RAMSES_MPC_CM = 3.0856776e24
RAMSES_RHO_CRIT_H2 = 1.88e-29  # g/cm^3 for h = 1
RAMSES_HYDROGEN_MASS = 1.66e-24
RAMSES_BOLTZMANN = 1.38062e-16
MPC_KM = 3.0856775814913673e19
JULIAN_GYR_S = 3.15576e16
SOLAR_MASS_G = 1.98841e33  # IAU 2015 GM_sun / G: known to ~1e-5, as G
KPC_CM = 3.0856775814913673e21

OMEGA_M, OMEGA_L, OMEGA_B, H0, BOX_MPC_H = 0.3, 0.7, 0.045, 70.0, 50.0

COSMOLOGICAL_BOX = f"""&RUN_PARAMS
cosmo=.true.
pic=.true.
poisson=.true.
hydro=.false.
/
&AMR_PARAMS
levelmin=4
levelmax=4
/
&INIT_PARAMS
filetype='gaussian'
aexp_ini=0.25
boxlen_ini={BOX_MPC_H}
omega_m={OMEGA_M}
omega_l={OMEGA_L}
omega_b={OMEGA_B}
h0={H0}
sigma8=0.8
n_s=0.96
seed=42
/
&OUTPUT_PARAMS
noutput=1
aout=0.5
aend=1.0
/
"""

# Uniform gas (the blast region has the background's pressure and density) in units of a hydrogen
# atom per cm^3, a kpc and a Julian Myr.
UNIT_D, UNIT_L, UNIT_T = 1.66e-24, 3.0856776e21, 3.15576e13
UNIFORM_PRESSURE = 1e-5


@pytest.fixture(scope="module")
def cosmological_run(tmp_path_factory, run_kosmo) -> pathlib.Path:
    where = tmp_path_factory.mktemp("cosmological_box")
    (where / "box.nml").write_text(COSMOLOGICAL_BOX)
    run_kosmo(["run", "box.nml"], where)
    return where


@pytest.fixture(scope="module")
def uniform_gas(tmp_path_factory, run_kosmo) -> kosmo.Dataset:
    where = tmp_path_factory.mktemp("uniform_gas")
    text = sedov3d(levelmin=3, levelmax=3, pressure=UNIFORM_PRESSURE, density=1.0, tout=(0.0,))
    text += f"\n&UNITS_PARAMS\nunits_density={UNIT_D!r}\nunits_length={UNIT_L!r}\nunits_time={UNIT_T!r}\n/\n"
    (where / "uniform.nml").write_text(text)
    run_kosmo(["run", "uniform.nml"], where)
    return kosmo.load(where / "output_00001")


def age_flat_lcdm_gyr(a: float) -> float:
    """t(a) = 2 / (3 H0 sqrt(Omega_L)) asinh(sqrt(Omega_L / Omega_m) a^1.5), flat Lambda-CDM."""
    hubble_time = MPC_KM / H0 / JULIAN_GYR_S
    return 2.0 / (3.0 * math.sqrt(OMEGA_L)) * math.asinh(math.sqrt(OMEGA_L / OMEGA_M) * a**1.5) * hubble_time


def age_by_trapezoid_gyr(a: float) -> float:
    """int_0^a da' / (a' H(a')) by the trapezoid rule in s = sqrt(a') (smooth integrand)."""
    s = np.linspace(0.0, math.sqrt(a), 200_001)
    integrand = 2.0 * s**2 / np.sqrt(OMEGA_M + OMEGA_L * s**6)
    return float(np.trapezoid(integrand, s)) * MPC_KM / H0 / JULIAN_GYR_S


# ------------------------------------------------------------------------------------------------
# The cosmological box
# ------------------------------------------------------------------------------------------------

def test_a_run_to_a_equal_1_ends_with_z_exactly_0_in_both_info_files(cosmological_run):
    final = kosmo.load(cosmological_run / "output_00003")
    assert final.aexp == 1.0 and final.time == 0.0
    assert final.current_redshift == 0.0 and str(final.current_redshift) == "0.0"
    info = (cosmological_run / "output_00003" / "info_00003.txt").read_text()
    assert float(re.search(r"^aexp\s*=\s*(\S+)", info, re.MULTILINE).group(1)) == 1.0
    for path in sorted((cosmological_run / "output_00003").glob("info_*.txt")):  # RAMSES' too, if written
        text = path.read_text()
        if re.search(r"^aexp\s*=", text, re.MULTILINE):
            assert float(re.search(r"^aexp\s*=\s*(\S+)", text, re.MULTILINE).group(1)) == 1.0, path


def test_redshift_and_age_against_the_friedmann_equation(cosmological_run):
    for number in (1, 2, 3):
        ds = kosmo.load(cosmological_run / f"output_{number:05d}")
        assert ds.current_redshift == pytest.approx(1.0 / ds.aexp - 1.0, rel=1e-15, abs=0.0)
        assert ds.current_time.units == unyt.Unit("Gyr")
        assert float(ds.current_time) == pytest.approx(age_flat_lcdm_gyr(ds.aexp), rel=1e-10)
        assert float(ds.current_time) == pytest.approx(age_by_trapezoid_gyr(ds.aexp), rel=1e-8)
    start = kosmo.load(cosmological_run / "output_00001")
    assert start.aexp == pytest.approx(0.25, rel=1e-12) and start.current_redshift == pytest.approx(3.0, rel=1e-11)
    assert float(kosmo.load(cosmological_run / "output_00003").current_time) == pytest.approx(13.466984, rel=1e-6)


def test_cosmology_box_size_and_masses_in_physical_units(cosmological_run):
    ds = kosmo.load(cosmological_run / "output_00002")
    h = H0 / 100.0
    assert ds.cosmology == {"H0": H0, "h": h, "omega_m": OMEGA_M, "omega_l": OMEGA_L, "omega_k": 0.0,
                            "omega_b": OMEGA_B}
    # The box: boxlen_ini comoving Mpc/h (RAMSES' Mpc is 6e-9 longer than unyt's).
    assert ds.domain_width.units == unyt.Unit("Mpccm/h", registry=ds.unit_registry)
    np.testing.assert_allclose(ds.domain_width.to_value("Mpccm/h"), BOX_MPC_H, rtol=1e-8)
    np.testing.assert_allclose(ds.domain_width.to_value("Mpc"), BOX_MPC_H / h * ds.aexp, rtol=1e-8)  # proper
    p = ds.particles
    assert p.x.units == unyt.Unit("code_length", registry=ds.unit_registry)
    assert float(p.x.to_value("Mpccm/h").max()) < BOX_MPC_H * (1 + 1e-8) and float(p.x.min()) >= 0.0
    # All matter is dark matter: Omega_m rho_crit h^2 (boxlen_ini Mpc/h)^3 with RAMSES' constants.
    expected_g = OMEGA_M * RAMSES_RHO_CRIT_H2 * h**2 * (BOX_MPC_H / h * RAMSES_MPC_CM) ** 3
    assert float(p.mass.sum().to_value("g")) == pytest.approx(expected_g, rel=1e-12)
    assert float(p.mass.sum().to_value("Msun")) == pytest.approx(expected_g / SOLAR_MASS_G, rel=1e-5)
    # The particle density on the leaf cells conserves that mass; its mean is the mean matter
    # density, Omega_m rho_crit h^2 / a^3 proper.
    c = ds.cells
    assert "particle_density" in c.derived_fields and "particle_density" not in set(c.keys())
    cell_mass = c.particle_density * c.cell_volume
    assert float(cell_mass.sum().to_value("g")) == pytest.approx(expected_g, rel=1e-12)
    mean = float(c.particle_density.mean().to_value("g/cm**3"))
    assert mean == pytest.approx(OMEGA_M * RAMSES_RHO_CRIT_H2 * h**2 / ds.aexp**3, rel=1e-12)
    assert np.count_nonzero(np.asarray(c.particle_density)) > c.ncells // 2


def test_restart_state_stays_in_the_checkpoint(cosmological_run):
    import h5py
    ds = kosmo.load(cosmological_run / "output_00003")
    restart_only = {"pending_kick_x", "pending_kick_y", "pending_kick_z", "pending_half_dt"}
    with h5py.File(ds.filename) as f:
        assert restart_only <= set(f["particles/restart"].keys())  # the checkpoint keeps it
    offered = set(ds.particles) | set(ds.particles.fields) | set(ds.cells) | set(ds.fields)
    assert not {name for name in offered if "pending" in name or "restart" in name}
    assert list(ds.particles) == ["x", "y", "z", "vx", "vy", "vz", "mass", "id", "level", "family"]


def test_power_spectrum_is_in_h_per_mpc_for_a_cosmological_run(cosmological_run):
    ds = kosmo.load(cosmological_run / "output_00003")
    fundamental = 2.0 * math.pi / BOX_MPC_H  # 0.1257 h/Mpc
    particles = kosmo.power_spectrum(ds, particles=True)
    assert particles.length_unit == "Mpc/h"
    assert particles.edges[0] == pytest.approx(0.5 * fundamental, rel=1e-7)  # bins k_f wide, centred on n k_f
    code = kosmo.power_spectrum(ds, particles=True, units="code_length")
    assert code.length_unit == "code_length" and code.edges[0] == pytest.approx(math.pi, rel=1e-12)
    np.testing.assert_allclose(particles.k, code.k / BOX_MPC_H, rtol=1e-7)
    np.testing.assert_allclose(particles.power, code.power * BOX_MPC_H**3, rtol=1e-6)
    # A known field on the 16^3 leaf cells: 2 + cos(3 k_f x) has delta = cos(3 k_f x) / 2, all its
    # power on the two modes +-3 k_f: P = V A^2 / 4 = 50^3 / 16 (Mpc/h)^3 at k = 3 k_f = 0.377 h/Mpc.
    c = ds.cells
    wave = 2.0 + np.cos(3.0 * 2.0 * math.pi * np.asarray(c.x))
    spectrum = kosmo.power_spectrum(ds, field=wave, bins=[2.9 * fundamental, 3.1 * fundamental, 5.0 * fundamental])
    assert spectrum.k[0] == pytest.approx(3.0 * fundamental, rel=1e-7)  # |m| = 3 only: 0.377 h/Mpc
    # The bin's mean over its modes, of which only (+-3, 0, 0) hold power.
    assert spectrum.power[0] * spectrum.modes[0] == pytest.approx(2 * BOX_MPC_H**3 / 16.0, rel=1e-6)
    assert abs(spectrum.power[1]) < 1e-20 * spectrum.power[0]


# ------------------------------------------------------------------------------------------------
# Uniform gas with physical units
# ------------------------------------------------------------------------------------------------

def test_cell_fields_carry_their_units_and_convert_to_physical(uniform_gas):
    c = uniform_gas.cells
    assert isinstance(c.density, SnapshotArray) and isinstance(c["density"].units, unyt.Unit)
    assert str(c.density.units) == "code_density" and str(c.x.units) == "code_length"
    assert str(c.pressure.units) == "code_pressure" and str(c.velocity_x.units) == "code_velocity"
    np.testing.assert_array_equal(c.density.view(np.ndarray), 1.0)  # the stored values
    np.testing.assert_allclose(c.density.to_value("g/cm**3"), UNIT_D, rtol=1e-14)
    np.testing.assert_allclose(c.density.to_value("Msun/kpc**3"), UNIT_D * KPC_CM**3 / SOLAR_MASS_G, rtol=1e-5)
    np.testing.assert_allclose(c.pressure.to_value("erg/cm**3"), UNIFORM_PRESSURE * UNIT_D * (UNIT_L / UNIT_T) ** 2,
                               rtol=1e-14)
    # Cell mass and volume: 512 cells of the unit box.
    assert float(c.cell_volume.sum().to_value("cm**3")) == pytest.approx(UNIT_L**3, rel=1e-14)
    assert float(c.cell_mass.sum().to_value("g")) == pytest.approx(UNIT_D * UNIT_L**3, rel=1e-14)
    assert float((c.density * c.dx**3).sum().to_value("g")) == pytest.approx(UNIT_D * UNIT_L**3, rel=1e-14)
    assert uniform_gas.current_redshift == 0.0 and uniform_gas.cosmology.get("h") is None
    assert str(uniform_gas.domain_width.units) == "code_length"


def test_temperature_of_uniform_gas_is_the_analytic_value(uniform_gas):
    t2 = UNIFORM_PRESSURE * (UNIT_L / UNIT_T) ** 2 * RAMSES_HYDROGEN_MASS / RAMSES_BOLTZMANN  # 1149 K
    c = uniform_gas.cells
    assert str(c.temperature.units) == "K"
    np.testing.assert_allclose(c.temperature_over_mu.to_value("K"), t2, rtol=1e-13)
    np.testing.assert_allclose(c.temperature.to_value("K"), t2 * 4.0 / (3.0 + 5.0 * 0.76), rtol=1e-13)
    neutral = kosmo.load(uniform_gas.filename)
    np.testing.assert_allclose(neutral.cells.temperature.to_value("K"), t2 * 4.0 / (3.0 + 5.0 * 0.76), rtol=1e-13)
    neutral.mean_molecular_weight = 1.22  # the temperature follows mu
    np.testing.assert_allclose(neutral.cells.temperature.to_value("K"), t2 * 1.22, rtol=1e-13)


# ------------------------------------------------------------------------------------------------
# The array class
# ------------------------------------------------------------------------------------------------

def test_bare_numbers_are_in_the_arrays_own_units():
    registry = snapshot_registry(UNIT_L, UNIT_D, UNIT_T)
    x = attach_units(np.array([0.25, 0.5, 0.75]), "code_length", registry)
    density = attach_units(np.array([1.0, 2.0, 3.0]), "code_density", registry)
    shifted = x - 0.5
    assert isinstance(shifted, SnapshotArray) and str(shifted.units) == "code_length"
    np.testing.assert_array_equal(shifted.view(np.ndarray), [-0.25, 0.0, 0.25])
    np.testing.assert_array_equal(density > 1.5, [False, True, True])
    np.testing.assert_array_equal(np.where(x > 0.3, density, 0.0).to_value("code_density"), [0.0, 2.0, 3.0])
    assert np.array_equal(density, [1.0, 2.0, 3.0]) and np.allclose(density - np.array([1.0, 2.0, 3.0]), 0.0)
    total = np.sum(density * x**3)
    assert {float(total)} == {total} and float(total) == pytest.approx(total)  # hashable, compares as before
    assert total.to_value("g") == pytest.approx((0.25**3 + 2 * 0.5**3 + 3 * 0.75**3) * UNIT_D * UNIT_L**3, rel=1e-14)
    with pytest.raises(unyt.exceptions.UnitOperationError):
        density + x  # two quantities of different dimensions still do not add
