"""The step log's energy account with cooling (docs/galaxy.md, "Energy accounting"): RAMSES'
tests/hydro/cooling-frig set-up without its turbulence driving (uniform ISM gas cooling with
cooling_ism), on an 8^3 mesh. The gas radiates about 40 % of its energy; econs counts what the
cooling module reports as radiated (Ecool), so it stays at round-off, on 1 rank and on 2."""
import re

import pytest

NUMBER = r"(-?\d+\.\d+e[+-]\d+)"

COOLING_FRIG = """&RUN_PARAMS
hydro=.true.
/
&AMR_PARAMS
levelmin=3
levelmax=3
boxlen=500
/
&HYDRO_PARAMS
gamma=1.666667
courant_factor=0.8
scheme='muscl'
slope_type=1
riemann='hllc'
pressure_fix=.true.
beta_fix=0.5
/
&INIT_PARAMS
nregion=1
region_type='square'
x_center=250
y_center=250
z_center=250
length_x=500
length_y=500
length_z=500
exp_region=10
d_region=1
p_region=319266
/
&OUTPUT_PARAMS
noutput=2
tout=0.0,0.62
/
&UNITS_PARAMS
units_density=2.3247434d-24
units_time=2.5395079d15
units_length=3.0857d18
/
&COOLING_PARAMS
isothermal=.false.
cooling=.true.
cooling_ism=.true.
mu_gas=1.4d0
z_ave=1.0
/
"""


@pytest.mark.parametrize("nrank", [1, 2])
def test_econs_counts_the_energy_radiated(tmp_path, run_kosmo, nrank):
    (tmp_path / "frig.nml").write_text(COOLING_FRIG)
    stdout = run_kosmo(["run", "frig.nml"], tmp_path, nrank=nrank).stdout
    steps = [line for line in stdout.splitlines() if line.startswith(" Main step=")]
    assert len(steps) > 10
    econs = [float(re.search(r"econs=\s*" + NUMBER, line).group(1)) for line in steps]
    cooling = [float(re.search(r"Ecool=\s*" + NUMBER, line).group(1)) for line in steps]
    # The gas radiates (net of the ISM heating) until it reaches its equilibrium, a large share of
    # its energy...
    assert cooling[-1] <= cooling[0] < 0.0
    thermal = 319266.0 / (1.666667 - 1.0) * 500.0**3  # p / (gamma - 1) V, code units
    assert -cooling[-1] > 0.2 * thermal
    # ...and econs, which counts it, stays at round-off (without the account it would be ~0.4).
    assert max(abs(e) for e in econs) < 1e-11


def test_metal_mass_is_accounted_for_by_the_supernovae(tmp_path, run_kosmo):
    # The same gas forming stars (n_H = 1 above n_star) whose supernovae (t_sne = 10 Myr, 0.125 here)
    # enrich it: the step line's metal mass in gas and stars (Mz) changes by what the supernovae
    # brought (Zsn, yield plus the stars' own metals, less those the ejecta took from the stars), so
    # zcons stays at round-off while star formation, advection and injection move the metals.
    namelist = (COOLING_FRIG.replace("hydro=.true.\n", "hydro=.true.\npic=.true.\n")
                .replace("z_ave=1.0\n", "z_ave=1.0\nmetal=.true.\n").replace("tout=0.0,0.62", "tout=0.0,0.2")
                + "&SF_PARAMS\nn_star=0.1\neps_star=0.1\n/\n&FEEDBACK_PARAMS\neta_sn=0.1\nyield=0.1\n/\n")
    (tmp_path / "frig.nml").write_text(namelist)
    stdout = run_kosmo(["run", "frig.nml"], tmp_path, nrank=2).stdout
    steps = [line for line in stdout.splitlines() if line.startswith(" Main step=")]
    metals = [float(re.search(r"Mz=\s*" + NUMBER, line).group(1)) for line in steps]
    made = [float(re.search(r"Zsn=\s*" + NUMBER, line).group(1)) for line in steps]
    zcons = [float(re.search(r"zcons=\s*" + NUMBER, line).group(1)) for line in steps]
    # The gas starts without metals; several generations of supernovae enrich it.
    assert metals[0] == 0.0 and len(set(made)) > 2 and metals[-1] > 0.0
    assert metals[-1] == pytest.approx(made[-1], rel=1e-12)
    assert max(abs(z) for z in zcons) < 1e-13


@pytest.mark.parametrize("nrank", [1, 2])
def test_energy_budget_closes_with_star_formation_and_feedback(tmp_path, run_kosmo, nrank):
    # RAMSES' cooling-frig gas (pressure_fix with beta_fix=0.5, as its namelist) forming stars whose
    # supernovae explode (thermal mode): the energy of gas + stars changes only by what the step line
    # reports — radiated net of heating (Ecool), the explosions (Esn), the thermal energy of the gas
    # the stars take (Esf) and the pressure fix's replacements (Efix) — so econs, which counts all
    # four, stays at round-off although the flows are 60 times the initial energy.
    namelist = (COOLING_FRIG.replace("hydro=.true.\n", "hydro=.true.\npic=.true.\n").replace("tout=0.0,0.62", "tout=0.0,0.2")
                + "&SF_PARAMS\nn_star=0.1\neps_star=0.1\n/\n&FEEDBACK_PARAMS\neta_sn=0.1\n/\n")
    (tmp_path / "frig.nml").write_text(namelist)
    stdout = run_kosmo(["run", "frig.nml"], tmp_path, nrank=nrank).stdout
    steps = [line for line in stdout.splitlines() if line.startswith(" Main step=")]

    def column(name):
        return [float(re.search(name + r"=\s*" + NUMBER, line).group(1)) for line in steps]

    econs, cooling, supernovae = column("econs"), column("Ecool"), column("Esn")
    stars, fix = column("Esf"), column("Efix")
    thermal = 319266.0 / (1.666667 - 1.0) * 500.0**3  # the initial energy, code units
    # Every term is at work, and together they are far from round-off of the initial energy...
    assert supernovae[-1] > 10.0 * thermal and -cooling[-1] > 10.0 * thermal
    assert stars[-1] < 0.0 and abs(fix[-1]) > 1.0 * thermal
    # ...which econs stays at (without Esf and Efix it would reach -5).
    assert max(abs(e) for e in econs) < 1e-11
