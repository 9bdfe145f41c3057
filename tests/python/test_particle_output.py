"""Particles in snapshots, read from Python: kosmo.load's ds.particles on the HDF5 file and yt on the
RAMSES part_ files of the same output (layouts: docs/outputs.md).

The snapshot comes from the MPI GoogleTest tests/mpi/test_snapshot_particles.cpp: its test
ParticleSnapshotForPython.WritesBothFormats, run here under mpirun with KOSMO_PARTICLE_SNAPSHOT_DIR
set, writes output_00005/ (both formats, 3-D) into that directory and leaves it (without the
variable it is skipped). Every rank writes a different number of particles, rank 1 none; each value
follows from the particle's global index g by the formulas of that file, repeated in `expected`
below with the same floating-point operations in the same order, so the arrays must match bit for
bit."""
import os
import subprocess

import numpy as np
import pytest
import yt

import kosmo
from conftest import BUILD_DIR, mpirun_prefix

BOXLEN = 2.0
ID_BASE = 100


def particles_of(rank: int) -> int:
    return 0 if rank == 1 else 5 + 3 * rank


def expected(nrank: int) -> dict[str, np.ndarray]:
    """The particles all ranks wrote, in rank order (the order of /particles)."""
    g = np.arange(sum(particles_of(r) for r in range(nrank)), dtype=np.int64)
    arrays = {}
    for axis, name in enumerate("xyz"):
        arrays[name] = ((g * (17 + 6 * axis) + 5 + axis) % 97).astype(np.float64) / 97.0 * BOXLEN
    for axis, name in enumerate("xyz"):
        arrays["v" + name] = ((g % 13).astype(np.float64) - 6.0) / 8.0 + axis
    arrays["mass"] = 1.0 / (g + 3).astype(np.float64)
    arrays["id"] = ID_BASE + 3 * g
    arrays["level"] = (2 + g % 5).astype(np.int32)
    arrays["family"] = (g % 5 - 1).astype(np.int8)
    return arrays


@pytest.fixture(scope="module", params=[1, 3])
def particle_output(request, tmp_path_factory):
    nrank = request.param
    where = tmp_path_factory.mktemp(f"particles_np{nrank}")
    binary = BUILD_DIR / "tests" / "mpi" / "test_snapshot_particles"
    assert binary.is_file(), f"{binary} not built: run ./kosmo test (it builds first)"
    env = dict(os.environ, OMP_NUM_THREADS="1", KOSMO_PARTICLE_SNAPSHOT_DIR=str(where))
    result = subprocess.run(mpirun_prefix(nrank) + [str(binary), "--gtest_filter=ParticleSnapshotForPython.*"],
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    output = where / "output_00005"
    assert (output / "kosmo_00005.h5").is_file(), result.stdout
    return output, nrank


def test_kosmo_load_reads_every_particle_bit_for_bit(particle_output):
    output, nrank = particle_output
    particles = kosmo.load(output).particles
    want = expected(nrank)
    assert list(particles) == list(want) == ["x", "y", "z", "vx", "vy", "vz", "mass", "id", "level", "family"]
    assert particles.nparticles == len(want["id"]) == sum(particles_of(r) for r in range(nrank))
    for name, values in want.items():
        assert particles[name].dtype == values.dtype, name
        np.testing.assert_array_equal(particles[name], values, err_msg=name)


def test_region_load_keeps_the_particles_inside(particle_output):
    output, nrank = particle_output
    region = ((0.0, 1.0), (0.5, 2.0), (0.25, 1.75))
    particles = kosmo.load(output, region=region).particles
    want = expected(nrank)
    inside = np.ones(len(want["id"]), dtype=bool)
    for (low, high), name in zip(region, "xyz"):
        inside &= (want[name] >= low) & (want[name] <= high)
    assert 0 < inside.sum() < len(inside), "the region should split the particles"
    np.testing.assert_array_equal(particles.id, want["id"][inside])
    np.testing.assert_array_equal(particles.x, want["x"][inside])


def test_yt_reads_the_ramses_particle_files(particle_output):
    output, nrank = particle_output
    for cpu in range(1, nrank + 1):  # every rank's file, the empty one of rank 1 too
        assert (output / f"part_00005.out{cpu:05d}").is_file()
    want = expected(nrank)
    ds = yt.load(str(output / "info_00005.txt"))
    ad = ds.all_data()
    ids = ad["io", "particle_identity"].v.astype(np.int64)
    order = np.argsort(ids)
    np.testing.assert_array_equal(ids[order], want["id"])
    # unit_l = unit_d = 1: yt's lengths in cm and masses in g are the code values.
    for name in "xyz":
        position = ad["io", f"particle_position_{name}"].to_value("cm")[order]
        np.testing.assert_allclose(position, want[name], rtol=1e-15, atol=0, err_msg=name)
    mass = ad["io", "particle_mass"].to_value("g")[order]
    np.testing.assert_array_equal(mass, want["mass"])
    assert abs(float(mass.sum()) - float(want["mass"].sum())) <= 1e-15 * float(want["mass"].sum())
    np.testing.assert_array_equal(ad["io", "particle_family"].v[order], want["family"])
    np.testing.assert_array_equal(ad["io", "particle_level"].v[order], want["level"])
    # yt's family filters come from particle_family: dark matter is family 1.
    assert len(ad["DM", "particle_mass"]) == int(np.sum(want["family"] == 1))


def test_osyris_reads_the_ramses_particle_files(particle_output):
    """osyris (which requires part_file_descriptor.txt) finds the same particles."""
    import osyris

    output, nrank = particle_output
    want = expected(nrank)
    part = osyris.RamsesDataset(5, path=str(output.parent)).load()["part"]
    ids = part["identity"].values.astype(np.int64)
    order = np.argsort(ids)
    np.testing.assert_array_equal(ids[order], want["id"])
    np.testing.assert_array_equal(part["mass"].values[order], want["mass"])
    np.testing.assert_array_equal(part["family"].values[order], want["family"])


def test_the_visu_style_reader_reads_every_particle_in_file_order(particle_output):
    """ramses_files.py, which reads part_ files record by record as RAMSES' test suite does, finds
    every particle in cpu-file order (rank order) with the written values, and header_00005.txt
    counting them per family."""
    from ramses_files import load_snapshot

    output, nrank = particle_output
    snapshot = load_snapshot(5, output.parent)
    assert snapshot["info"]["ncpu"] == nrank
    particles, want = snapshot["particles"], expected(nrank)
    for axis in "xyz":
        np.testing.assert_array_equal(particles[f"position_{axis}"], want[axis])
        np.testing.assert_array_equal(particles[f"velocity_{axis}"], want["v" + axis])
    np.testing.assert_array_equal(particles["mass"], want["mass"])
    np.testing.assert_array_equal(particles["identity"].astype(np.int64), want["id"])
    np.testing.assert_array_equal(particles["levelp"], want["level"])
    np.testing.assert_array_equal(particles["family"], want["family"])
    counts = snapshot["header"]["counts"]
    assert counts["DM"] == int(np.sum(want["family"] == 1)) and counts["star"] == int(np.sum(want["family"] == 2))
    assert snapshot["header"]["total"] == want["mass"].size
