"""A particle attribute registered by a test module (particles/particle_attributes.hpp) read from
Python: kosmo.load's ds.particles shows it with its units, and yt finds it in the RAMSES part_ files
through part_file_descriptor.txt (docs/outputs.md, "Particle attributes").

The output comes from the MPI GoogleTest tests/mpi/test_particle_attributes.cpp, run here on 2
ranks with KOSMO_PARTICLE_ATTRIBUTE_DIR set so that it keeps output_00007/ there. That test
registers `test_tag` (float64, units code_mass, comoving exponent 2) and `test_serial` (int64) and
fills them from each particle's id by the formulas repeated below."""
import os
import subprocess

import numpy as np
import pytest
import yt

import kosmo
from conftest import BUILD_DIR, mpirun_prefix

WRITERS = 2


def count_of(rank: int) -> int:
    return 4 + 3 * rank


def expected_ids() -> np.ndarray:
    return 1000 + 7 * np.arange(sum(count_of(r) for r in range(WRITERS)), dtype=np.int64)


def tag_of(ids: np.ndarray) -> np.ndarray:
    return 0.5 * ids.astype(np.float64) + 0.25


def serial_of(ids: np.ndarray) -> np.ndarray:
    return 3 * ids + 5_000_000_000


@pytest.fixture(scope="module")
def attribute_output(tmp_path_factory):
    where = tmp_path_factory.mktemp("particle_attributes")
    binary = BUILD_DIR / "tests" / "mpi" / "test_particle_attributes"
    assert binary.is_file(), f"{binary} not built: run ./kosmo test (it builds first)"
    env = dict(os.environ, OMP_NUM_THREADS="1", KOSMO_PARTICLE_ATTRIBUTE_DIR=str(where))
    result = subprocess.run(
        mpirun_prefix(WRITERS) + [str(binary), "--gtest_filter=ParticleAttributes.WrittenEverywhere*"],
        env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    output = where / "output_00007"
    assert (output / "kosmo_00007.h5").is_file(), result.stdout
    return output


def test_kosmo_load_shows_the_registered_attributes_with_their_units(attribute_output):
    particles = kosmo.load(attribute_output).particles
    # The standard arrays first, then the module's attributes in registration order; restart-only
    # state (the leapfrog's pending kick) is not among them.
    assert list(particles) == ["x", "y", "z", "vx", "vy", "vz", "mass", "id", "level", "family",
                               "test_tag", "test_serial"]
    ids = particles.id
    np.testing.assert_array_equal(np.sort(ids), expected_ids())
    assert particles.test_tag.dtype == np.float64 and particles.test_serial.dtype == np.int64
    np.testing.assert_array_equal(particles.test_tag, tag_of(ids))
    np.testing.assert_array_equal(particles["test_serial"], serial_of(ids))
    assert particles.fields["test_tag"] == kosmo.FieldInfo("test_tag", "code_mass", 2)
    assert particles.fields["test_serial"].units == ""
    assert particles.fields["mass"].units == "code_mass"
    assert particles.fields["x"].units == "code_length"
    # A region keeps the attribute aligned with the particles it keeps.
    region = kosmo.load(attribute_output, region=((0.0, 0.5), (0.0, 1.0), (0.0, 1.0))).particles
    assert 0 < region.nparticles < particles.nparticles
    np.testing.assert_array_equal(region.test_tag, tag_of(region.id))


def test_yt_reads_the_attribute_from_the_ramses_part_files(attribute_output):
    descriptor = (attribute_output / "part_file_descriptor.txt").read_text().splitlines()
    assert "12, test_tag, d" in descriptor and "13, test_serial, q" in descriptor
    ds = yt.load(str(attribute_output / "info_00007.txt"))
    ad = ds.all_data()
    ids = ad["io", "particle_identity"].v.astype(np.int64)
    np.testing.assert_array_equal(np.sort(ids), expected_ids())
    np.testing.assert_array_equal(ad["io", "particle_test_tag"].v, tag_of(ids))
    np.testing.assert_array_equal(ad["io", "particle_test_serial"].v.astype(np.int64), serial_of(ids))
