"""The default output (no outformat key) opens in yt, pynbody and osyris unchanged: a small
cosmological box (examples/cosmology_box.nml shrunk to a 16^3 base, levelmax 6, run to a = 0.05:
the suite's time budget; test_showcase.py applies the same checks to the showcase itself at z = 0)
and a 3-D Sedov blast. Each reader must find the cells and particles kosmo wrote, the gas and
dark-matter masses of rho_crit Omega V, the redshift and the box size in Mpc/h, and none of the
leapfrog's restart-only state among its fields (docs/outputs.md, "RAMSES binary format")."""
import numpy as np
import pynbody
import osyris
import pytest
import yt

import kosmo
from namelists import sedov3d

# RAMSES' critical density as it rounds it (amr/units.f90: rhoc = 1.88e-29 g/cm^3 h^2), in Msun/Mpc^3
# h^2: the exact 2.7754e11 differs by 0.06 %.
RHO_CRIT = 1.88e-29 * 3.0856776e24**3 / 1.98892e33
BOXLEN_MPC_H = 20.0
OMEGA_M, OMEGA_B, H = 0.3, 0.045, 0.7
AEXP_END = 0.05
# Masses against rho_crit Omega V: RAMSES' rounding of rho_crit and M_sun differs from each reader's
# constants by up to 0.1 %; a wrong unit or a missing species is off by far more.
MASS_TOLERANCE = 2e-3

COSMOLOGY_BOX = f"""&RUN_PARAMS
cosmo=.true.
pic=.true.
poisson=.true.
hydro=.true.
/
&AMR_PARAMS
levelmin=4
levelmax=6
/
&INIT_PARAMS
filetype='gaussian'
aexp_ini=0.02
boxlen_ini={BOXLEN_MPC_H}
omega_m={OMEGA_M}
omega_l={1 - OMEGA_M}
omega_b={OMEGA_B}
h0={100 * H}
sigma8=0.8
n_s=0.96
seed=42
/
&HYDRO_PARAMS
gamma=1.6666666666666667
courant_factor=0.8
riemann='hllc'
/
&REFINE_PARAMS
m_refine=10*8.0
/
&OUTPUT_PARAMS
noutput=1
aout={AEXP_END}
/
"""

# What only a restart needs (the leapfrog's provisional kicks, the potential's history): never an
# analysis field.
RESTART_ONLY = ("pending", "half_kick", "potential_previous", "solve_time", "solve_level")



def expected_masses(boxlen_mpc_h):
    """Gas and dark-matter mass of the box in Msun: rho_crit h^2 Omega (L / h)^3."""
    volume = boxlen_mpc_h**3 / H**3 * H**2
    return RHO_CRIT * OMEGA_B * volume, RHO_CRIT * (OMEGA_M - OMEGA_B) * volume


def assert_no_restart_state(names, reader):
    leaked = [name for name in map(str, names) if any(word in name for word in RESTART_ONLY)]
    assert not leaked, f"{reader} shows restart-only fields {leaked}"


@pytest.fixture(scope="module")
def cosmology_output(tmp_path_factory, kosmo_binary):
    import os
    import subprocess
    from conftest import mpirun_prefix
    directory = tmp_path_factory.mktemp("box")
    (directory / "box.nml").write_text(COSMOLOGY_BOX)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    result = subprocess.run(mpirun_prefix(2) + [str(kosmo_binary), "run", "box.nml"], cwd=directory, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    output = directory / "output_00002"
    reference = kosmo.load(output)
    assert abs(reference.aexp - AEXP_END) < 1e-9
    return output, reference


def check_yt(output, number, reference, boxlen_mpc_h, nparticles, aexp):
    ds = yt.load(str(output / f"info_{number:05d}.txt"))
    data = ds.all_data()
    assert data["gas", "density"].size == reference.cells.ncells
    expected_gas, expected_dm = expected_masses(boxlen_mpc_h)
    gas = float(data["gas", "mass"].to_value("Msun").sum())
    assert abs(gas / expected_gas - 1) < MASS_TOLERANCE, (gas, expected_gas)
    dm = float(data["DM", "particle_mass"].to_value("Msun").sum())
    assert data["DM", "particle_mass"].size == nparticles
    assert abs(dm / expected_dm - 1) < MASS_TOLERANCE, (dm, expected_dm)
    assert abs(ds.current_redshift - (1 / aexp - 1)) < 1e-6
    width = ds.domain_width.to_value("Mpccm/h")
    np.testing.assert_allclose(width, boxlen_mpc_h, rtol=1e-6)
    assert_no_restart_state([name for _, name in ds.field_list], "yt")


def check_pynbody(output, reference, boxlen_mpc_h, nparticles, aexp):
    snapshot = pynbody.load(str(output))
    assert len(snapshot.gas) == reference.cells.ncells and len(snapshot.dm) == nparticles
    expected_gas, expected_dm = expected_masses(boxlen_mpc_h)
    gas = float(snapshot.gas["mass"].in_units("Msol").sum())
    dm = float(snapshot.dm["mass"].in_units("Msol").sum())
    assert abs(gas / expected_gas - 1) < MASS_TOLERANCE, (gas, expected_gas)
    assert abs(dm / expected_dm - 1) < MASS_TOLERANCE, (dm, expected_dm)
    assert abs(snapshot.properties["z"] - (1 / aexp - 1)) < 1e-6
    box = float(snapshot.properties["boxsize"].in_units("Mpc a h**-1", **snapshot.conversion_context()))
    assert abs(box / boxlen_mpc_h - 1) < 1e-6, box
    assert_no_restart_state(list(snapshot.gas.loadable_keys()) + list(snapshot.dm.loadable_keys()), "pynbody")


def check_osyris(output, number, reference, boxlen_mpc_h, nparticles, aexp):
    data = osyris.RamsesDataset(number, path=str(output.parent)).load()
    mesh, particles = data["mesh"], data["part"]
    assert mesh["density"].shape[0] == reference.cells.ncells and particles["mass"].shape[0] == nparticles
    expected_gas, expected_dm = expected_masses(boxlen_mpc_h)
    gas = float((mesh["density"] * mesh["dx"] ** 3).to("M_sun").values.sum())
    dm = float(particles["mass"].to("M_sun").values.sum())
    assert abs(gas / expected_gas - 1) < MASS_TOLERANCE, (gas, expected_gas)
    assert abs(dm / expected_dm - 1) < MASS_TOLERANCE, (dm, expected_dm)
    assert abs(1 / data.meta["aexp"] - 1 - (1 / aexp - 1)) < 1e-6
    # osyris' lengths are physical: the comoving box is boxlen / aexp times h in Mpc/h.
    box = float(data.meta["boxlen"] * data.meta["unit_l"]) / 3.0856776e24 / data.meta["aexp"] * H
    assert abs(box / boxlen_mpc_h - 1) < 1e-6, box
    assert_no_restart_state(list(mesh.keys()) + list(particles.keys()), "osyris")


def test_yt_opens_the_default_cosmological_output(cosmology_output):
    output, reference = cosmology_output
    check_yt(output, 2, reference, BOXLEN_MPC_H, 16**3, AEXP_END)


def test_pynbody_opens_the_default_cosmological_output(cosmology_output):
    output, reference = cosmology_output
    check_pynbody(output, reference, BOXLEN_MPC_H, 16**3, AEXP_END)


def test_osyris_opens_the_default_cosmological_output(cosmology_output):
    output, reference = cosmology_output
    check_osyris(output, 2, reference, BOXLEN_MPC_H, 16**3, AEXP_END)


def test_every_reader_opens_the_default_sedov_output(tmp_path, run_kosmo):
    (tmp_path / "sedov.nml").write_text(sedov3d(size=0.25, pressure=1.0, tout=(0.0, 0.01)))
    run_kosmo(["run", "sedov.nml"], tmp_path, nrank=2)
    output = tmp_path / "output_00002"
    reference = kosmo.load(output)
    cells = reference.cells
    mass = float(np.sum(cells.density * cells.dx**3))
    ds = yt.load(str(output / "info_00002.txt"))
    data = ds.all_data()
    assert data["gas", "density"].size == cells.ncells
    assert abs(float(data["gas", "mass"].to_value("code_mass").sum()) - mass) <= 1e-12 * mass
    assert ds.cosmological_simulation == 0
    snapshot = pynbody.load(str(output))
    assert len(snapshot.gas) == cells.ncells
    mesh = osyris.RamsesDataset(2, path=str(tmp_path)).load()["mesh"]
    assert mesh["density"].shape[0] == cells.ncells
    assert_no_restart_state([name for _, name in ds.field_list], "yt")
    assert_no_restart_state(mesh.keys(), "osyris")
