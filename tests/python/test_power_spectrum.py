"""kosmo.power_spectrum (docs/analysis.md, "Power spectra"): the estimator's normalisation on a
plane wave and on Gaussian random fields of known spectrum, mass assignment (lattice without
shot noise, Poisson particles with it, window deconvolution), conservative resampling of AMR leaf
cells, density projections, and linear growth in Einstein-de Sitter.

Conventions under test: delta_k = (1/N) sum_x delta_x exp(-i k.x), P = V <|delta_k|^2>, k in
1/boxlen units with the 2 pi; every mode of the full grid counts (k and -k), so a bin of
`modes` modes has the Gaussian error P sqrt(2 / modes)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import kosmo
from kosmo.cosmology import Cosmology, LinearPowerSpectrum
from kosmo.dataset import Cells, Particles


# ------------------------------------------------------------------------------------------------
# Helpers written independently of the module (full complex FFT, no half-space bookkeeping)
# ------------------------------------------------------------------------------------------------

def full_wavenumbers(n: int, boxlen: float) -> np.ndarray:
    m = np.fft.fftfreq(n, 1.0 / n)
    mx, my, mz = np.meshgrid(m, m, m, indexing="ij")
    return 2.0 * math.pi / boxlen * np.sqrt(mx ** 2 + my ** 2 + mz ** 2)


def gaussian_field(n: int, boxlen: float, power, seed: int) -> np.ndarray:
    """A real Gaussian random field with <|delta_k|^2> = P(|k|) / V in the (1/N) convention:
    white noise of unit variance has <|w_k|^2> = 1/N, so delta_k = w_k sqrt(N P / V)."""
    rng = np.random.default_rng(seed)
    white = rng.standard_normal((n, n, n))
    k = full_wavenumbers(n, boxlen)
    amplitude = np.zeros_like(k)
    amplitude[k > 0] = np.sqrt(n ** 3 * power(k[k > 0]) / boxlen ** 3)
    return np.fft.ifftn(np.fft.fftn(white) * amplitude).real


def bin_average(values: np.ndarray, k: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Mean of `values` over the full-grid modes of each bin [lo, hi), k = 0 excluded."""
    flat_k, flat_v = k.ravel(), values.ravel()
    out = np.full(len(edges) - 1, np.nan)
    for i, (lo, hi) in enumerate(zip(edges[:-1], edges[1:])):
        inside = (flat_k >= lo) & (flat_k < hi) & (flat_k > 0)
        if inside.any():
            out[i] = flat_v[inside].mean()
    return out


class FakeDataset:
    """What power_spectrum / density_projection read from a kosmo.Dataset."""

    ndim = 3
    time = 0.0
    fields: dict = {}

    def __init__(self, cells: dict, boxlen: float = 1.0, particles: Particles | None = None):
        self.cells = Cells(cells)
        self.boxlen = boxlen
        self.box_size = np.full(3, boxlen)
        self.particles = Particles.empty() if particles is None else particles

    def cell_size(self, level: int) -> float:
        return self.boxlen / 2.0 ** level


def lattice(npd: int, boxlen: float, offset) -> np.ndarray:
    q = (np.arange(npd) + 0.0) * boxlen / npd
    qx, qy, qz = np.meshgrid(q, q, q, indexing="ij")
    return np.stack([qx.ravel(), qy.ravel(), qz.ravel()], axis=1) + np.asarray(offset, dtype=float)


# ------------------------------------------------------------------------------------------------
# Fields
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("m", [(3, 0, 0), (2, 1, 2), (0, 0, 5)])
def test_plane_wave_puts_V_A2_over_4_on_each_of_its_two_modes(m):
    """delta = A cos(k0.x): delta_{+-k0} = (1/N) sum A/2 (e^{ik0x} + e^{-ik0x}) e^{-i k x} = A/2, so
    P(+-k0) = V A^2/4 and nothing elsewhere. The bin holding |k0| has `modes` modes, two of which
    carry the power: P_bin * modes = 2 V A^2 / 4; Parseval: sum P * modes / V = <delta^2> = A^2/2."""
    n, boxlen, amplitude = 32, 3.0, 0.7
    x = (np.arange(n) + 0.5) * boxlen / n
    gx, gy, gz = np.meshgrid(x, x, x, indexing="ij")
    k0 = 2.0 * math.pi / boxlen * np.array(m, dtype=float)
    delta = amplitude * np.cos(k0[0] * gx + k0[1] * gy + k0[2] * gz + 0.3)
    result = kosmo.power_spectrum_of_field(delta, boxlen)
    k, power, modes = result
    volume = boxlen ** 3
    which = int(np.searchsorted(result.edges, np.linalg.norm(k0), side="right") - 1)
    assert power[which] * modes[which] == pytest.approx(2.0 * volume * amplitude ** 2 / 4.0, rel=1e-12)
    others = np.delete(power, which)
    assert np.nanmax(np.abs(others)) < 1e-25 * volume
    assert np.nansum(power * modes) / volume == pytest.approx(np.mean(delta ** 2), rel=1e-12)
    # Default bins: k_f wide, centred on k_f ... k_Ny, k the mean |k| of each bin's modes.
    k_f = 2.0 * math.pi / boxlen
    np.testing.assert_allclose(result.edges, k_f * (np.arange(n // 2 + 1) + 0.5), rtol=1e-14)
    kfull = full_wavenumbers(n, boxlen)
    np.testing.assert_allclose(k, bin_average(kfull, kfull, result.edges), rtol=1e-12)
    counts = [np.count_nonzero((kfull >= lo) & (kfull < hi)) for lo, hi in zip(result.edges[:-1], result.edges[1:])]
    np.testing.assert_array_equal(modes, counts)


@pytest.mark.parametrize("binning", ["linear", "log"])
def test_gaussian_random_field_recovers_its_power_law_within_three_sigma_per_bin(binning):
    n, boxlen = 64, 200.0
    amplitude, slope = 3.0e4, -1.5

    def power(k):
        return amplitude * (k / 0.1) ** slope

    delta = gaussian_field(n, boxlen, power, seed=12)
    result = kosmo.power_spectrum_of_field(delta, boxlen, binning=binning)
    kfull = full_wavenumbers(n, boxlen)
    expected = bin_average(power(np.where(kfull > 0, kfull, 1.0)), kfull, result.edges)
    filled = result.modes > 0
    assert filled.sum() >= 10
    sigma = expected[filled] * np.sqrt(2.0 / result.modes[filled])
    pull = (result.power[filled] - expected[filled]) / sigma
    assert np.max(np.abs(pull)) < 3.0, pull
    assert abs(np.mean(pull)) < 1.0
    # Sensitive: a normalisation wrong by 10 % shows in the many-mode bins.
    many = result.modes > 5000
    ratio = np.sum(result.power[many] * result.modes[many]) / np.sum(expected[many] * result.modes[many])
    assert ratio == pytest.approx(1.0, abs=0.02)
    if binning == "log":
        assert np.allclose(np.diff(np.log(result.edges)), np.log(result.edges[1] / result.edges[0]))


def test_field_input_checks():
    with pytest.raises(ValueError, match="cubic"):
        kosmo.power_spectrum_of_field(np.zeros((8, 8, 4)))
    with pytest.raises(ValueError, match="binning"):
        kosmo.power_spectrum_of_field(np.zeros((8, 8, 8)), binning="cubic")
    explicit = kosmo.power_spectrum_of_field(np.random.default_rng(0).standard_normal((8, 8, 8)), 1.0,
                                             bins=[1.0, 10.0, 30.0])
    assert len(explicit.k) == 2 and explicit.modes.sum() > 0


# ------------------------------------------------------------------------------------------------
# Particles
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("window", ["ngp", "cic", "tsc"])
def test_mass_assignment_conserves_mass_and_wraps_periodically(window):
    rng = np.random.default_rng(3)
    positions = rng.uniform(-0.5, 1.5, size=(5000, 3)) * 2.0  # outside the box: wrapped
    masses = rng.uniform(0.5, 2.0, 5000)
    grid = kosmo.mass_assignment(positions, masses, 2.0, 16, window)
    assert grid.shape == (16, 16, 16)
    assert grid.sum() == pytest.approx(masses.sum(), rel=1e-13)
    assert grid.min() >= 0.0
    # A particle at a cell centre: NGP/CIC put it all there, TSC 3/4 per axis there.
    one = kosmo.mass_assignment([[0.5 / 16 * 2.0 + 2.0, 2.0 * 5.5 / 16, 2.0 * 15.5 / 16]], 1.0, 2.0, 16, window)
    assert one[0, 5, 15] == pytest.approx({"ngp": 1.0, "cic": 1.0, "tsc": 0.75 ** 3}[window], rel=1e-12)


@pytest.mark.parametrize("window,interlacing", [("cic", False), ("tsc", True), ("ngp", False)])
def test_perfect_lattice_has_no_power_below_the_grid_nyquist(window, interlacing):
    """A lattice of 32^3 particles (random offset) on a 64^3 grid: its density has Fourier power
    only at multiples of the lattice frequency 32 k_f = k_Ny of the grid, so P = 0 below, with no
    shot noise to subtract (the Poisson value 1/nbar would be 1e15 times larger)."""
    boxlen, n = 1.0, 64
    positions = lattice(32, boxlen, [0.0123, 0.3 / 32, 0.71 / 32])
    result = kosmo.power_spectrum_of_particles(positions, None, boxlen, n, window=window, interlacing=interlacing)
    assert result.shot_noise == pytest.approx(boxlen ** 3 / 32 ** 3, rel=1e-14)
    below = result.k < 0.9 * math.pi * n / boxlen
    assert np.nanmax(np.abs(result.power[below])) < 1e-12 * result.shot_noise


@pytest.mark.parametrize("window,interlacing", [("cic", False), ("cic", True), ("tsc", True), ("ngp", False)])
def test_poisson_particles_have_the_shot_noise_power_and_zero_after_subtraction(window, interlacing):
    boxlen, n, npart = 50.0, 32, 40000
    rng = np.random.default_rng(7)
    positions = rng.uniform(0.0, boxlen, size=(npart, 3))
    nbar = npart / boxlen ** 3
    deconvolve = window != "ngp"  # NGP without deconvolution: white noise stays exactly white
    raw = kosmo.power_spectrum_of_particles(positions, None, boxlen, n, window=window, interlacing=interlacing,
                                            deconvolve=deconvolve)
    assert raw.shot_noise == pytest.approx(1.0 / nbar, rel=1e-12)
    sigma = raw.shot_noise_k * np.sqrt(2.0 / raw.modes)
    # Every bin: the aliased, deconvolved shot noise the result predicts, within 3 sigma...
    assert np.max(np.abs(raw.power - raw.shot_noise_k) / sigma) < 3.0
    # ... which is 1/nbar at low k (everywhere for NGP without deconvolution: sum_j W^2 = 1).
    low = raw.k < 0.25 * math.pi * n / boxlen
    np.testing.assert_allclose(raw.shot_noise_k[low], 1.0 / nbar, rtol=0.06 if window != "ngp" else 1e-12)
    pooled = np.sum(raw.power[low] * raw.modes[low]) / np.sum(raw.modes[low])
    assert pooled == pytest.approx(1.0 / nbar, rel=3.0 * math.sqrt(2.0 / raw.modes[low].sum()) + 0.02)
    subtracted = kosmo.power_spectrum_of_particles(positions, None, boxlen, n, window=window, deconvolve=deconvolve,
                                                   interlacing=interlacing, subtract_shot_noise=True)
    assert subtracted.shot_noise_subtracted
    np.testing.assert_allclose(subtracted.power, raw.power - raw.shot_noise_k, rtol=1e-10, atol=1e-12 / nbar)
    assert np.max(np.abs(subtracted.power) / sigma) < 3.0
    assert np.max(np.abs(subtracted.power) / subtracted.error) < 3.0


def test_unequal_masses_shot_noise_is_V_sum_m2_over_sum_m_squared():
    boxlen, npart = 10.0, 30000
    rng = np.random.default_rng(11)
    positions = rng.uniform(0.0, boxlen, size=(npart, 3))
    masses = rng.exponential(1.0, npart)
    result = kosmo.power_spectrum_of_particles(positions, masses, boxlen, 32, window="ngp", deconvolve=False)
    expected = boxlen ** 3 * np.sum(masses ** 2) / np.sum(masses) ** 2
    assert result.shot_noise == pytest.approx(expected, rel=1e-12)
    assert expected > 1.5 * boxlen ** 3 / npart  # distinguishable from 1/nbar
    pooled = np.sum(result.power * result.modes) / np.sum(result.modes)
    assert pooled == pytest.approx(expected, rel=0.02)


def test_cic_deconvolution_flattens_a_band_limited_white_spectrum_to_half_nyquist():
    """Particles on a 128^3 lattice (no shot noise, random offset) with masses 1 + delta(q), delta
    of constant |delta_k| and random phases for |m_axis| <= 16, so its spectrum is exactly flat
    there. On a 64^3 CIC grid the measured spectrum up to k_Ny/2 (16 k_f) is flat to 3 % once the
    window is deconvolved, and falls by sinc^4 (to ~0.66 at k_Ny/2 along an axis) without."""
    n, npd, boxlen, band = 64, 128, 1.0, 16
    rng = np.random.default_rng(5)
    coefficients = np.fft.fftn(rng.standard_normal((npd, npd, npd)))
    m = np.fft.fftfreq(npd, 1.0 / npd)
    mx, my, mz = np.meshgrid(m, m, m, indexing="ij")
    inside = (np.abs(mx) <= band) & (np.abs(my) <= band) & (np.abs(mz) <= band) & ((mx != 0) | (my != 0) | (mz != 0))
    unit = np.where(inside, coefficients / np.maximum(np.abs(coefficients), 1e-300), 0.0)
    delta = np.fft.ifftn(unit).real
    delta *= 0.05 / delta.std()
    level = np.mean(np.abs(np.fft.fftn(delta)[inside]) ** 2) / npd ** 6 * boxlen ** 3  # V |delta_k|^2, flat
    positions = lattice(npd, boxlen, rng.uniform(0.0, boxlen / npd, 3))
    masses = 1.0 + delta.ravel()
    edges = 2.0 * math.pi / boxlen * (np.arange(0, band + 1) + 0.5)
    fixed = kosmo.power_spectrum_of_particles(positions, masses, boxlen, n, window="cic", bins=edges)
    np.testing.assert_allclose(fixed.power / level, 1.0, atol=0.03)
    raw = kosmo.power_spectrum_of_particles(positions, masses, boxlen, n, window="cic", deconvolve=False, bins=edges)
    assert raw.power[-1] / level < 0.85
    assert raw.power[0] / level == pytest.approx(1.0, abs=0.03)


def test_growth_in_einstein_de_sitter_scales_the_spectrum_as_a_squared():
    """EdS: D(a) = a. Zel'dovich displacements psi(a) = D(a) psi_0 of a 32^3 lattice in a 200 Mpc/h
    box, with psi_0 from a linear field drawn from LinearPowerSpectrum at a = 1: the particle P(k)
    at a = 0.02 matches the linear spectrum within cosmic variance at low k, and P(0.04) /
    P(0.02) = (D(0.04) / D(0.02))^2 = 4 to 1 % in the three lowest bins (same seed: the cosmic
    variance cancels)."""
    cosmology = Cosmology(omega_m=1.0, omega_l=0.0, omega_k=0.0, omega_b=0.05, h0=70.0)
    linear = LinearPowerSpectrum(cosmology, n_s=0.96, sigma8=0.8, model="no_wiggle")
    assert float(cosmology.growth_factor(0.04) / cosmology.growth_factor(0.02)) == pytest.approx(2.0, rel=1e-12)
    npd, boxlen = 32, 200.0
    delta0 = gaussian_field(npd, boxlen, linear.power, seed=21)  # a = 1, on the lattice points
    m = np.fft.fftfreq(npd, 1.0 / npd)
    kvec = np.stack(np.meshgrid(m, m, m, indexing="ij")) * (2.0 * math.pi / boxlen)
    k2 = np.sum(kvec ** 2, axis=0)
    k2[0, 0, 0] = 1.0
    delta_k = np.fft.fftn(delta0)
    psi0 = np.stack([np.fft.ifftn(1j * kvec[d] / k2 * delta_k).real for d in range(3)], axis=-1).reshape(-1, 3)
    q = lattice(npd, boxlen, 0.5 * boxlen / npd)

    def spectrum(a):
        growth = float(cosmology.growth_factor(a))
        return kosmo.power_spectrum_of_particles(q + growth * psi0, None, boxlen, 2 * npd, window="cic",
                                                 interlacing=True)

    early, later = spectrum(0.02), spectrum(0.04)
    np.testing.assert_allclose(later.power[:3] / early.power[:3], 4.0, rtol=0.01)
    low = early.k < 0.1
    expected = linear.power(early.k[low], a=0.02)
    assert np.max(np.abs(early.power[low] / expected - 1.0) / np.sqrt(2.0 / early.modes[low])) < 3.0


# ------------------------------------------------------------------------------------------------
# Datasets: AMR leaf cells and particles
# ------------------------------------------------------------------------------------------------

def two_level_dataset(boxlen: float = 1.0, seed: int = 2) -> FakeDataset:
    """8^3 level-3 cells, a block of which (and a few scattered ones) refined into level-4 children,
    with random densities: the leaves tile the box once."""
    rng = np.random.default_rng(seed)
    coarse = np.stack(np.meshgrid(*[np.arange(8)] * 3, indexing="ij"), axis=-1).reshape(-1, 3)
    refined = np.all((coarse >= 2) & (coarse < 5), axis=1) | (rng.uniform(size=len(coarse)) < 0.1)
    keep = coarse[~refined]
    bits = np.stack(np.meshgrid(*[np.arange(2)] * 3, indexing="ij"), axis=-1).reshape(-1, 3)
    children = (2 * coarse[refined][:, None, :] + bits[None, :, :]).reshape(-1, 3)
    dx3, dx4 = boxlen / 8, boxlen / 16
    centres = np.concatenate([(keep + 0.5) * dx3, (children + 0.5) * dx4])
    dx = np.concatenate([np.full(len(keep), dx3), np.full(len(children), dx4)])
    level = np.concatenate([np.full(len(keep), 3), np.full(len(children), 4)]).astype(np.int32)
    density = rng.uniform(0.5, 3.0, len(dx))
    cells = {"x": centres[:, 0], "y": centres[:, 1], "z": centres[:, 2], "dx": dx, "level": level,
             "density": density}
    assert np.sum(dx ** 3) == pytest.approx(boxlen ** 3, rel=1e-14)
    return FakeDataset(cells, boxlen)


@pytest.mark.parametrize("n", [4, 8, 16, 32, 12])
def test_resampling_two_level_leaves_conserves_mass_exactly(n):
    ds = two_level_dataset(boxlen=1.0)
    c = ds.cells
    mass = np.sum(c.density * c.dx ** 3)
    grid = kosmo.resample_leaf_cells(ds, "density", n)
    assert grid.shape == (n, n, n)
    h = 1.0 / n
    assert grid.sum() * h ** 3 == pytest.approx(mass, rel=1e-14, abs=0.0)
    if n == 16:  # the level-4 grid: coarse cells fill 2^3 grid cells, fine cells map one to one
        index = np.floor(np.stack([c.x, c.y, c.z], axis=1) / h).astype(int)
        fine = c.level == 4
        np.testing.assert_array_equal(grid[tuple(index[fine].T)], c.density[fine])
        coarse = np.flatnonzero(~fine)
        for corner in np.ndindex(2, 2, 2):
            spot = np.floor((np.stack([c.x, c.y, c.z], axis=1)[coarse] - 0.5 * c.dx[coarse, None]) / h).astype(int)
            np.testing.assert_array_equal(grid[tuple((spot + np.array(corner)).T)], c.density[coarse])
    if n == 8:  # the level-3 grid: fine cells are averaged by volume into their parent
        index = np.floor(np.stack([c.x, c.y, c.z], axis=1) / h).astype(int)
        expected = np.zeros((8, 8, 8))
        np.add.at(expected, tuple(index.T), c.density * (c.dx / h) ** 3)
        np.testing.assert_allclose(grid, expected, rtol=1e-14)


def test_gas_power_spectrum_of_a_dataset_matches_the_field_estimator():
    ds = two_level_dataset(boxlen=1.0)
    grid = kosmo.resample_leaf_cells(ds, "density", 16)
    direct = kosmo.power_spectrum_of_field(grid / grid.mean() - 1.0, 100.0)
    result = kosmo.power_spectrum(ds, n=16, boxlen=100.0)
    np.testing.assert_allclose(result.power, direct.power, rtol=1e-13)
    np.testing.assert_allclose(result.k, direct.k, rtol=1e-14)
    assert kosmo.power_spectrum(ds).n == 16  # default: the finest leaf level
    uniform = FakeDataset(dict(ds.cells, density=np.full(ds.cells.ncells, 2.5)))
    assert np.nanmax(np.abs(kosmo.power_spectrum(uniform, n=16).power)) < 1e-28


def test_particle_power_spectrum_of_a_dataset_and_the_no_particle_error():
    ds = two_level_dataset()
    with pytest.raises(ValueError, match="no particles"):
        kosmo.power_spectrum(ds, particles=True)
    with pytest.raises(ValueError, match="no particles"):
        kosmo.density_projection(ds, "z", 16, particles=True)
    rng = np.random.default_rng(9)
    npart = 4096
    positions = rng.uniform(0.0, 1.0, (npart, 3))
    arrays = {name: np.zeros(npart, dtype=array.dtype) for name, array in Particles.empty().items()}
    arrays.update(x=positions[:, 0], y=positions[:, 1], z=positions[:, 2], mass=np.full(npart, 2.0),
                  family=np.ones(npart, dtype=np.int8))
    ds.particles = Particles(arrays)
    result = kosmo.power_spectrum(ds, particles=True, boxlen=100.0)
    assert result.n == 32 and result.nparticles == npart
    direct = kosmo.power_spectrum_of_particles(positions * 100.0, 2.0, 100.0, 32)
    np.testing.assert_allclose(result.power, direct.power, rtol=1e-12)
    with pytest.raises(ValueError, match="family"):
        kosmo.power_spectrum(ds, particles=True, family=2)


def test_density_projections_of_gas_and_particles(tmp_path):
    ds = two_level_dataset(boxlen=2.0)
    c = ds.cells
    image = kosmo.density_projection(ds, "y", 32)
    assert image.shape == (32, 32)
    assert image.sum() * (2.0 / 32) ** 2 == pytest.approx(np.sum(c.density * c.dx ** 3), rel=1e-12)
    rng = np.random.default_rng(4)
    npart = 2000
    positions = rng.uniform(0.0, 2.0, (npart, 3))
    masses = rng.uniform(1.0, 2.0, npart)
    arrays = {name: np.zeros(npart, dtype=array.dtype) for name, array in Particles.empty().items()}
    arrays.update(x=positions[:, 0], y=positions[:, 1], z=positions[:, 2], mass=masses)
    ds.particles = Particles(arrays)
    for axis, (horizontal, vertical) in {"x": (1, 2), "y": (0, 2), "z": (0, 1)}.items():
        surface = kosmo.density_projection(ds, axis, 16, particles=True, window="ngp")
        assert surface.sum() * (2.0 / 16) ** 2 == pytest.approx(masses.sum(), rel=1e-12)
        expected, _, _ = np.histogram2d(positions[:, vertical], positions[:, horizontal], bins=16,
                                        range=[[0, 2], [0, 2]], weights=masses)
        np.testing.assert_allclose(surface, expected / (2.0 / 16) ** 2, rtol=1e-12)
    drawn = kosmo.density_projection_plot(ds, "z", 24, particles=True, filename=tmp_path / "p.png")
    assert (tmp_path / "p.png").stat().st_size > 0
    np.testing.assert_allclose(drawn.values, kosmo.density_projection(ds, "z", 24, particles=True),
                               rtol=1e-12, atol=1e-12 * drawn.values.max())
    gas = kosmo.density_projection_plot(ds, "x", 20, filename=tmp_path / "g.png")
    np.testing.assert_allclose(gas.values, kosmo.density_projection(ds, "x", 20), rtol=1e-14)


def test_power_spectrum_of_a_real_amr_snapshot(tmp_path, run_kosmo):
    """A 3-D AMR snapshot (levels 3..5, density 4 in a sphere in density 1): resampling onto 32^3
    (the finest level) and 12^3 (misaligned) conserves the mass, and the spectrum is positive."""
    from namelists import sedov3d
    (tmp_path / "blast.nml").write_text(sedov3d(size=0.25, pressure=1.0, density=4.0, tout=(0.0,)))
    run_kosmo(["run", "blast.nml"], tmp_path)
    ds = kosmo.load(tmp_path / "output_00001")
    c = ds.cells
    assert len(np.unique(c.level)) > 1
    mass = np.sum(c.density * c.dx ** 3)
    for n in (32, 12):
        grid = kosmo.resample_leaf_cells(ds, "density", n)
        assert grid.sum() * (ds.boxlen / n) ** 3 == pytest.approx(mass, rel=1e-13)
    result = kosmo.power_spectrum(ds)
    assert result.n == 32 and np.all(result.power[result.modes > 0] > 0.0)
    with pytest.raises(ValueError, match="no particles"):
        kosmo.power_spectrum(ds, particles=True)
