"""Star particles in outputs (docs/galaxy.md, "Star formation"): a dense uniform box forming stars on
two ranks writes both formats; kosmo.load reads the stars' attributes from the HDF5 snapshot, and yt
reads the RAMSES part_ files with a 'star' particle type (family 2) whose birth times and
metallicities are the HDF5 values."""
import numpy as np
import pytest
import yt

import kosmo

# tests/mpi/test_star_formation.cpp's uniform box: every cell above the threshold, about 0.18 star
# masses per cell a step of 0.1; five steps, outputs at the start and at t = 0.5.
BOX = """&RUN_PARAMS
hydro=.true.
pic=.true.
ndim=3
/
&AMR_PARAMS
levelmin=3
levelmax=3
/
&INIT_PARAMS
nregion=1
region_type(1)='square'
x_center=0.5
y_center=0.5
z_center=0.5
length_x=10.0
length_y=10.0
length_z=10.0
exp_region=10.0
d_region=1.0
p_region=1e-3
/
&HYDRO_PARAMS
gamma=1.4
courant_factor=0.8
/
&OUTPUT_PARAMS
noutput=2
tout=0.0,0.5
outformat='both'
/
&REFINE_PARAMS
mass_sph=0.001953125
/
&UNITS_PARAMS
units_density=2.1849197e-24
units_time=3.15576e13
units_length=1.0
/
&SF_PARAMS
eps_star=0.05
n_star=0.5
m_star=0.01
/
"""


@pytest.fixture(scope="module")
def star_output(tmp_path_factory, run_kosmo):
    where = tmp_path_factory.mktemp("stars")
    (where / "box.nml").write_text(BOX)
    run_kosmo(["run", "box.nml"], where, nrank=2)
    return where / "output_00002"


def test_hdf5_snapshot_holds_the_stars_attributes(star_output):
    particles = kosmo.load(star_output).particles
    stars = particles["family"] == 2
    assert stars.sum() > 50
    for name in ("birth_time", "birth_time_proper", "initial_mass", "metallicity", "exploded"):
        assert name in particles, name
    born = particles["birth_time"][stars]
    assert np.all((born > 0.0) & (born <= 0.5 + 1e-12))
    np.testing.assert_array_equal(particles["birth_time_proper"][stars], born)
    np.testing.assert_array_equal(particles["initial_mass"][stars], particles["mass"][stars])
    assert particles.fields["birth_time"].units == "code_time"
    assert len(np.unique(particles["id"])) == len(particles["id"])


def test_yt_reads_the_stars_from_the_ramses_files(star_output):
    particles = kosmo.load(star_output).particles
    stars = particles["family"] == 2
    order = np.argsort(particles["id"][stars])
    ds = yt.load(str(star_output / "info_00002.txt"))
    ad = ds.all_data()
    ids = ad["star", "particle_identity"].v.astype(np.int64)
    # yt's family filters (registered on first use) make 'star' a particle type.
    assert "star" in ds.particle_types
    yt_order = np.argsort(ids)
    np.testing.assert_array_equal(ids[yt_order], particles["id"][stars][order])
    birth = ad["star", "particle_birth_time"]
    # units_time = 1 Myr: yt's birth times in Myr are the code values.
    np.testing.assert_allclose(birth.to_value("Myr")[yt_order], particles["birth_time"][stars][order], rtol=1e-12)
    metallicity = ad["star", "particle_metallicity"].v[yt_order]
    np.testing.assert_array_equal(metallicity, particles["metallicity"][stars][order])
