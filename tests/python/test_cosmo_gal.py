"""RAMSES' namelist/cosmo_gal.nml (kosmo's look-alike in tests/ramses_suite/namelists, the same
blocks, keys and values) runs unchanged but for initfile(1), the grafic files this test writes,
and forms stars (docs/galaxy.md, "Star formation"): the stars have conformal and proper birth times
and metallicities in the HDF5 snapshot, yt reads them as its 'star' particle type from the RAMSES
part_ files, and a restart on another rank count continues bit for bit.

The namelist's base grid is levelmin=7 (128^3 cells), so a step costs seconds: the runs stop after
two coarse steps (kosmo run --snapshot-steps, job control known in advance, since the namelist's
nstepmax and foutput=10 are kept). The grafic grid is 32^3 (a particle lattice coarser than the mesh,
docs/cosmology.md) in a 4 Mpc/h box at z = 9: the dark matter on the unperturbed lattice and a gas
cloud of overdensity 1000 in the central 2^3 grafic cells, n_H about 0.19 cm^-3 above n_star = 0.1,
so stars form from the first step. Cost: one run of two steps on 2 ranks, a restart of one step on
1 rank, about 160 s of CPU (the 128^3 base grid: initial conditions and cooling of 2 M cells) and
0.7 GB per snapshot, removed at the end."""
import pathlib
import re
import shutil
import struct

import numpy as np
import pytest
import yt

import kosmo

NAMELIST = pathlib.Path(__file__).resolve().parents[1] / "ramses_suite" / "namelists" / "cosmo_gal.nml"
RAMSES_INITFILE = "initfile(1)='/scratchdir/teyssier/boxlen6p25_n128/ic_files'"

GRAFIC_CELLS = 32
BOX_MPC_PER_H = 4.0
HUBBLE = 70.0
ASTART = 0.1
CLOUD_OVERDENSITY = 1000.0


def fortran_record(payload: bytes) -> bytes:
    marker = struct.pack("<i", len(payload))
    return marker + payload + marker


def write_grafic(path: pathlib.Path, field: np.ndarray) -> None:
    """One grafic file (MUSIC's layout): the header record (n1 n2 n3, dx in comoving Mpc, offsets,
    astart, omega_m, omega_v, h0), then one record of single-precision values per z plane."""
    n = field.shape[0]
    dx = BOX_MPC_PER_H / n / (HUBBLE / 100.0)
    header = struct.pack("<3i8f", n, n, n, dx, 0.0, 0.0, 0.0, ASTART, 0.3, 0.7, HUBBLE)
    planes = b"".join(fortran_record(np.ascontiguousarray(field[k]).astype("<f4").tobytes()) for k in range(n))
    path.write_bytes(fortran_record(header) + planes)


def write_initial_conditions(directory: pathlib.Path) -> None:
    directory.mkdir()
    n, middle = GRAFIC_CELLS, GRAFIC_CELLS // 2
    delta = np.zeros((n, n, n))
    delta[middle - 1:middle + 1, middle - 1:middle + 1, middle - 1:middle + 1] = CLOUD_OVERDENSITY
    write_grafic(directory / "ic_deltab", delta)
    for axis in "xyz":
        write_grafic(directory / f"ic_velc{axis}", np.zeros((n, n, n)))


def cosmo_gal(initfile: pathlib.Path, nrestart: int = 0) -> str:
    """The namelist with only initfile(1) replaced (and nrestart, for the restart leg)."""
    text = NAMELIST.read_text()
    assert text.count(RAMSES_INITFILE) == 1 and text.count("nrestart=0\n") == 1
    text = text.replace(RAMSES_INITFILE, f"initfile(1)='{initfile}'")
    return text.replace("nrestart=0\n", f"nrestart={nrestart}\n")


@pytest.fixture(scope="module")
def runs(tmp_path_factory, run_kosmo):
    """The uninterrupted run on 2 ranks (snapshots after steps 1 and 2), and a restart from its step-1
    snapshot on 1 rank to step 2."""
    where = tmp_path_factory.mktemp("cosmo_gal")
    write_initial_conditions(where / "ics")
    whole = where / "whole"
    whole.mkdir()
    (whole / "cosmo_gal.nml").write_text(cosmo_gal(where / "ics"))
    log = run_kosmo(["run", "cosmo_gal.nml", "--snapshot-steps", "1,2"], whole, nrank=2).stdout
    restarted = where / "restarted"
    restarted.mkdir()
    shutil.copytree(whole / "output_00002", restarted / "output_00002")
    (restarted / "cosmo_gal.nml").write_text(cosmo_gal(where / "ics", nrestart=2))
    restart_log = run_kosmo(["run", "cosmo_gal.nml", "--snapshot-steps", "2"], restarted, nrank=1).stdout
    yield whole, restarted, log, restart_log
    # A 128^3 snapshot in both formats is about 0.7 GB: pytest keeps its last temporary directories.
    shutil.rmtree(where)


def test_the_namelist_differs_from_ramses_only_in_the_grafic_directory(tmp_path):
    original = NAMELIST.read_text().splitlines()
    ours = cosmo_gal(tmp_path / "ics").splitlines()
    changed = [(a, b) for a, b in zip(original, ours) if a != b]
    assert len(original) == len(ours) and changed == [(RAMSES_INITFILE, f"initfile(1)='{tmp_path / 'ics'}'")]


def test_stars_form_in_the_first_steps(runs):
    whole, _, log, _ = runs
    steps = [line for line in log.splitlines() if line.startswith(" Main step=")]
    assert len(steps) == 2, log
    npart = [int(re.search(r"npart=(\d+)", line).group(1)) for line in steps]
    dark_matter = GRAFIC_CELLS ** 3
    assert dark_matter < npart[0] <= npart[1], steps
    # Supernovae (t_sne = 10 Myr, shorter than the first step) enrich the gas, and the metal
    # account of the step line (Mz of gas and stars, Zsn made by the supernovae) closes.
    made = [float(re.search(r"Zsn=\s*(\S+)", line).group(1)) for line in steps]
    zcons = [float(re.search(r"zcons=\s*(\S+)", line).group(1)) for line in steps]
    assert 0.0 < made[0] <= made[1] and max(abs(z) for z in zcons) < 1e-12, steps
    assert "Job control: snapshot and stop after step 2 (--snapshot-steps)" in log
    # Snapshots at the start (the namelist's own), after step 1 and after step 2; nothing more.
    assert sorted(p.name for p in whole.glob("output_*")) == ["output_00001", "output_00002", "output_00003"]


def test_hdf5_stars_have_birth_times_and_metallicities(runs):
    whole = runs[0]
    ds = kosmo.load(whole / "output_00003")
    particles = ds.particles
    stars = particles["family"] == 2
    assert stars.sum() > 100 and (particles["family"] == 1).sum() == GRAFIC_CELLS ** 3
    for name in ("birth_time", "birth_time_proper", "metallicity"):
        assert name in particles, name
    born, proper = particles["birth_time"][stars], particles["birth_time_proper"][stars]
    start = kosmo.load(whole / "output_00001")
    # Conformal (super-comoving) and proper birth times are two clocks: both between the start and
    # this snapshot, and different from each other in a cosmological run.
    # (A star born in a level's last substep carries that level's clock, which may pass the coarse
    # clock by an ulp.)
    assert np.all((born > start.time) & (born <= ds.time + 1e-12 * abs(ds.time)))
    assert np.all(proper < 0.0) and not np.allclose(proper, born)
    # Metallicity: the gas's at birth, at least the z_ave floor's 0 and below the yield.
    assert np.all((particles["metallicity"][stars] >= 0.0) & (particles["metallicity"][stars] < 0.1))


def test_yt_reads_the_stars_of_the_ramses_files(runs):
    whole = runs[0]
    particles = kosmo.load(whole / "output_00003").particles
    stars = particles["family"] == 2
    ds = yt.load(str(whole / "output_00003" / "info_00003.txt"))
    ad = ds.all_data()
    mass = ad["star", "particle_mass"]
    assert "star" in ds.particle_types and len(mass) == stars.sum()
    ids = ad["star", "particle_identity"].v.astype(np.int64)
    order, yt_order = np.argsort(particles["id"][stars]), np.argsort(ids)
    np.testing.assert_array_equal(ids[yt_order], particles["id"][stars][order])
    np.testing.assert_array_equal(mass.to_value("code_mass")[yt_order], particles["mass"][stars][order])
    np.testing.assert_array_equal(ad["star", "particle_metallicity"].v[yt_order], particles["metallicity"][stars][order])
    # yt turns the files' conformal birth times into the age of the universe with its own Friedmann
    # tables: the spread of the stars' ages is that of kosmo's proper birth times (units of 1/H0).
    born = ad["star", "particle_birth_time"].to_value("Gyr")[yt_order]
    hubble_time_gyr = 3.0856776e19 / HUBBLE / 3.15576e16
    proper = (particles["birth_time_proper"][stars][order] - particles["birth_time_proper"][stars].min()) * hubble_time_gyr
    assert proper.max() > 0.005 and born.max() <= ds.current_time.to_value("Gyr") * (1.0 + 1e-9)
    np.testing.assert_allclose(born - born.min(), proper, rtol=0.0, atol=1e-3 * proper.max())


def _sorted(path: pathlib.Path):
    ds = kosmo.load(path)
    cells, particles = ds.cells, ds.particles
    cell_order = np.lexsort((cells["z"], cells["y"], cells["x"], cells["level"]))
    particle_order = np.argsort(particles["id"])
    return (ds, {name: np.asarray(cells[name])[cell_order] for name in cells},
            {name: np.asarray(particles[name])[particle_order] for name in particles})


def test_restart_on_another_rank_count_continues_bit_for_bit(runs):
    whole, restarted, _, restart_log = runs
    assert "Restarted from output_00002" in restart_log
    ds_whole, cells_whole, particles_whole = _sorted(whole / "output_00003")
    ds_restarted, cells_restarted, particles_restarted = _sorted(restarted / "output_00003")
    assert ds_whole.ncpu == 2 and ds_restarted.ncpu == 1
    assert ds_restarted.step == ds_whole.step == 2 and ds_restarted.time == ds_whole.time
    # The restart snapshot already held stars, and more formed after it.
    born_before = kosmo.load(restarted / "output_00002").particles["family"] == 2
    assert 0 < born_before.sum() < (particles_whole["family"] == 2).sum()
    assert set(cells_whole) == set(cells_restarted) and set(particles_whole) == set(particles_restarted)
    for name in cells_whole:
        np.testing.assert_array_equal(cells_whole[name], cells_restarted[name], err_msg=name)
    for name in particles_whole:
        np.testing.assert_array_equal(particles_whole[name], particles_restarted[name], err_msg=name)
