"""`kosmo grafic NAMELIST DIRECTORY` writes the realisation of a filetype='gaussian' namelist as grafic
files (docs/performance.md, "The 64³ dark-matter box against RAMSES"): RAMSES' layout and units, and
read back by kosmo's grafic reader they give the particles the generator gives, so kosmo and RAMSES
can start from the same initial conditions."""
import pathlib
import struct

import numpy as np
import pytest

import kosmo

N = 16
BOX_MPC_PER_H = 100.0
H0 = 70.0
AEXP = 0.02

NAMELIST = """&RUN_PARAMS
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
{init}
/
&OUTPUT_PARAMS
noutput=1
aout=0.0201
/
"""
GAUSSIAN = f"filetype='gaussian'\naexp_ini={AEXP}\nboxlen_ini={BOX_MPC_PER_H}\nseed=11"


def read_grafic(path: pathlib.Path):
    """Header tuple and the (z, y, x) array of a grafic file, every Fortran record marker checked."""
    data = path.read_bytes()
    offset, records = 0, []
    while offset < len(data):
        (length,) = struct.unpack_from("<i", data, offset)
        payload = data[offset + 4:offset + 4 + length]
        assert struct.unpack_from("<i", data, offset + 4 + length) == (length,), f"{path}: bad record marker"
        records.append(payload)
        offset += length + 8
    assert len(records[0]) == 44
    header = struct.unpack("<3i8f", records[0])
    n1, n2, n3 = header[:3]
    assert len(records) == 1 + n3
    planes = [np.frombuffer(r, dtype="<f4").reshape(n2, n1) for r in records[1:]]
    return header, np.array(planes, dtype=np.float64)


@pytest.fixture(scope="module")
def written(tmp_path_factory, run_kosmo):
    root = tmp_path_factory.mktemp("grafic_command")
    (root / "gaussian.nml").write_text(NAMELIST.format(init=GAUSSIAN))
    result = run_kosmo(["grafic", "gaussian.nml", "ics"], cwd=root)
    assert "ic_posc" in result.stdout
    return root


def test_headers_carry_ramses_units(written):
    for name in ["ic_deltab"] + [f"ic_{kind}{axis}" for kind in ("velc", "posc") for axis in "xyz"]:
        header, field = read_grafic(written / "ics" / name)
        n1, n2, n3, dx, xoff1, xoff2, xoff3, astart, omega_m, omega_v, h0 = header
        assert (n1, n2, n3) == (N, N, N)
        # dx in comoving Mpc (not Mpc/h): RAMSES' boxlen_ini = n dx h0 / 100.
        assert dx == pytest.approx(BOX_MPC_PER_H / N / (H0 / 100.0), rel=1e-6)
        assert (xoff1, xoff2, xoff3) == (0.0, 0.0, 0.0)
        assert astart == pytest.approx(AEXP, rel=1e-6)
        assert (omega_m, omega_v, h0) == pytest.approx((0.3, 0.7, H0), rel=1e-6)
        assert np.std(field) > 0.0 and abs(np.mean(field)) < 1e-3 * np.std(field) + 1e-6


def test_fields_are_one_zeldovich_growing_mode(written):
    """ic_velc = a H f ic_posc with one factor, and -div ic_posc = ic_deltab (Zel'dovich 1970)."""
    _, delta = read_grafic(written / "ics" / "ic_deltab")
    posc = [read_grafic(written / "ics" / f"ic_posc{axis}")[1] for axis in "xyz"]
    velc = [read_grafic(written / "ics" / f"ic_velc{axis}")[1] for axis in "xyz"]
    ratio = np.sum(velc[0] * posc[0]) / np.sum(posc[0] ** 2)
    # a H f at a = 0.02 in km/s per Mpc/h: 100 a E(a) f(a), E = sqrt(0.3 / a^3 + 0.7), f about 1.
    expected = 100.0 * AEXP * np.sqrt(0.3 / AEXP**3 + 0.7)
    assert ratio == pytest.approx(expected, rel=2e-3)
    for v, x in zip(velc, posc):
        np.testing.assert_allclose(v, ratio * x, rtol=0, atol=1e-5 * np.abs(v).max())
    k = 2.0 * np.pi / BOX_MPC_PER_H * np.fft.fftfreq(N, 1.0 / N)
    kz, ky, kx = np.meshgrid(k, k, k, indexing="ij")  # arrays are (z, y, x)
    divergence = sum(np.real(np.fft.ifftn(1j * kk * np.fft.fftn(x))) for kk, x in zip((kx, ky, kz), posc))
    np.testing.assert_allclose(-divergence, delta, rtol=0, atol=1e-4 * np.abs(delta).max())


def test_kosmo_reads_back_the_particles_of_the_generator(written, run_kosmo):
    grafic = written / "grafic"
    grafic.mkdir()
    (grafic / "grafic.nml").write_text(NAMELIST.format(init=f"filetype='grafic'\ninitfile(1)='{written / 'ics'}'"))
    run_kosmo(["run", "grafic.nml"], cwd=grafic)
    run_kosmo(["run", "gaussian.nml"], cwd=written)
    from_files = kosmo.load(grafic / "output_00001").particles
    generated = kosmo.load(written / "output_00001").particles
    order_files, order_generated = np.argsort(from_files["id"]), np.argsort(generated["id"])
    assert len(order_files) == N**3
    np.testing.assert_array_equal(np.asarray(from_files["id"])[order_files], np.asarray(generated["id"])[order_generated])
    for axis in "xyz":
        x_files = np.asarray(from_files[axis])[order_files]
        x_generated = np.asarray(generated[axis])[order_generated]
        separation = (x_files - x_generated + 0.5) % 1.0 - 0.5  # periodic box of size 1
        # float32 displacements of about 1e-3 box: rounded to about 1e-10.
        assert np.abs(separation).max() < 1e-8
        v_files = np.asarray(from_files["v" + axis])[order_files]
        v_generated = np.asarray(generated["v" + axis])[order_generated]
        np.testing.assert_allclose(v_files, v_generated, rtol=0, atol=1e-5 * np.abs(v_generated).max())
