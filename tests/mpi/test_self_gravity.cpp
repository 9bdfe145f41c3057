// Self-gravity in hydro runs (poisson=.true.) on the distributed mesh:
//  - a Gaussian sphere refined three levels below the base level: potential and acceleration on
//    every level against the analytic ones, second order (errors fall by ~4 when every h halves),
//    and the jump of the error across coarse-fine faces no larger than the coarse level's error;
//  - the potential and acceleration after a few coarse steps of a self-gravitating periodic run are
//    the same on every rank count as on one rank to 1e-10, with the same V-cycle counts, for the FFT
//    gathered to every rank, FFTW-MPI slabs, and the multigrid with and without the merged sweep.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include "core/parameters.hpp"
#include "distributed_test_support.hpp"
#include "driver/simulation.hpp"
#include "io/snapshot_reader.hpp"
#include "restart_test_support.hpp"

using namespace kosmo;
using namespace kosmo::test;

namespace {

using Tree = core::OctTree<3, core::MortonKey>;
constexpr double kPi = std::numbers::pi;

std::string outflow_box() {
  std::string s = "&BOUNDARY_PARAMS\nnboundary=6\nbound_type=2,2,2,2,2,2\n"
                  "ibound_min=-1,+1,-1,-1,-1,-1\nibound_max=-1,+1,+1,+1,+1,+1\n"
                  "jbound_min= 0, 0,-1,+1,-1,-1\njbound_max= 0, 0,-1,+1,+1,+1\n"
                  "kbound_min= 0, 0, 0, 0,-1,+1\nkbound_max= 0, 0, 0, 0,-1,+1\n/\n";
  return s;
}

// Level, integer coordinates, potential and acceleration of every owned cell of every level.
std::vector<Cell> owned_gravity(const driver::Simulation<3>& sim) {
  const Tree& tree = sim.tree();
  const auto* gravity = sim.gravity();
  std::vector<Cell> cells;
  for (int l = 1; l <= tree.levelmax(); ++l)
    for (core::OctIndex o : tree.octs_at_level(l))
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(o, c);
        const auto x = tree.cell_coordinates(cell);
        Cell v{static_cast<double>(l), static_cast<double>(x[0]), static_cast<double>(x[1]), static_cast<double>(x[2]),
               tree.field(gravity->potential_field())[cell]};
        for (int f : gravity->acceleration_fields()) v.push_back(tree.field(f)[cell]);
        v.push_back(tree.is_leaf(cell) ? 1.0 : 0.0);
        cells.push_back(std::move(v));
      }
  return cells;
}
constexpr int kWidth = 9;

// ---------------------------------------------------------------------------------------------------
// A Gaussian sphere, M = 1, G = 1, rho = M exp(-r^2 / 2 s^2) / ((2 pi)^1.5 s^3), in an isolated
// (outflow) box: phi = -M erf(r / (sqrt 2 s)) / r. (A Plummer sphere would put 1.5 % of its mass
// outside the unit box, and its analytic potential would then not be the box's.)

constexpr double kGaussianWidth = 0.05;

std::string gaussian_namelist(int levelmin, double m_refine, bool use_fftw) {
  char text[1024];
  std::snprintf(text, sizeof text,
                "&RUN_PARAMS\nhydro=.true.\npoisson=.true.\nndim=3\nuse_fftw=%s\n/\n&AMR_PARAMS\nlevelmin=%d\nlevelmax=%d\n/\n"
                "&REFINE_PARAMS\nm_refine=20*%.9g\nmass_sph=1.0\n/\n&POISSON_PARAMS\nepsilon=1e-8\n/\n",
                use_fftw ? ".true." : ".false.", levelmin, levelmin + 3, m_refine);
  return std::string(text) + outflow_box();
}

struct LevelErrors {
  std::vector<double> phi, acceleration;  // max relative error over the level's leaf cells, per level offset 0..3
  double interface_acceleration = 0.0;  // cells whose force stencil crosses a coarse-fine face
  double jump = 0.0;
};

LevelErrors gaussian_errors(int levelmin, double m_refine, bool use_fftw = true) {
  driver::Simulation<3> sim(core::ParameterSet::from_text(gaussian_namelist(levelmin, m_refine, use_fftw), "gaussian.nml"),
                                 MPI_COMM_WORLD);
  sim.set_initial_condition([](const std::array<double, 3>& x, double, double* q) {
    const double r2 = (x[0] - 0.5) * (x[0] - 0.5) + (x[1] - 0.5) * (x[1] - 0.5) + (x[2] - 0.5) * (x[2] - 0.5);
    const double s = kGaussianWidth;
    q[0] = std::exp(-r2 / (2 * s * s)) / (std::pow(2 * kPi, 1.5) * s * s * s) + 1e-6;
    q[1] = q[2] = q[3] = 0.0;
    q[4] = 1.0;
  });
  sim.initialise();
  const Tree& tree = sim.tree();
  const auto* gravity = sim.gravity();
  LevelErrors errors;
  errors.phi.assign(4, 0.0);
  errors.acceleration.assign(4, 0.0);
  auto analytic = [](const std::array<double, 3>& x, std::array<double, 3>& g) {
    double r2 = 0.0;
    for (int d = 0; d < 3; ++d) r2 += (x[d] - 0.5) * (x[d] - 0.5);
    const double r = std::sqrt(r2), s = kGaussianWidth;
    // M(<r) / r^2 along -r_hat; the enclosed mass of the Gaussian.
    const double enclosed = std::erf(r / (std::sqrt(2.0) * s)) - std::sqrt(2.0 / kPi) * (r / s) * std::exp(-r2 / (2 * s * s));
    for (int d = 0; d < 3; ++d) g[d] = -enclosed * (x[d] - 0.5) / (r2 * r);
    return -std::erf(r / (std::sqrt(2.0) * s)) / r;
  };
  const double phi_scale = std::sqrt(2.0 / kPi) / kGaussianWidth;  // |phi| at the centre
  const double g_scale = 0.4 / (kGaussianWidth * kGaussianWidth);    // about the largest |g|, near r = 1.4 s
  long long leaves_per_level[4] = {0, 0, 0, 0};
  for (int k = 0; k < 4; ++k) {
    const int level = levelmin + k;
    for (core::OctIndex o : tree.octs_at_level(level))
      for (int c = 0; c < 8; ++c) {
        const core::CellIndex cell = Tree::cell_index(o, c);
        if (!tree.is_leaf(cell)) continue;
        std::array<double, 3> g{};
        const auto x = tree.cell_centre(cell);
        const double phi = analytic(x, g);
        errors.phi[static_cast<std::size_t>(k)] =
            std::max(errors.phi[static_cast<std::size_t>(k)], std::fabs(tree.field(gravity->potential_field())[cell] - phi) / phi_scale);
        // The five-point force reads two cells on each side: where one of them lies across a
        // coarse-fine face it is interpolated from the coarse potential, whose O(H^2) error becomes
        // an O(H) error of the force (RAMSES force_fine has the same), so those cells are measured
        // on their own.
        bool interior = true;
        for (int axis = 0; axis < 3 && interior; ++axis)
          for (int step : {-2, -1, 1, 2}) {
            Tree::Offset offset{};
            offset[static_cast<std::size_t>(axis)] = step;
            if (tree.cell_neighbour(cell, offset) == core::no_cell) interior = false;
          }
        auto& worst_g = interior ? errors.acceleration[static_cast<std::size_t>(k)] : errors.interface_acceleration;
        for (int d = 0; d < 3; ++d)
          worst_g = std::max(worst_g, std::fabs(tree.field(gravity->acceleration_fields()[static_cast<std::size_t>(d)])[cell] -
                                                g[static_cast<std::size_t>(d)]) / g_scale);
        ++leaves_per_level[k];
        // The jump of the error across a face to a coarser leaf.
        if (k == 0) continue;
        for (int axis = 0; axis < 3; ++axis)
          for (int step : {-1, 1}) {
            Tree::Offset offset{};
            offset[static_cast<std::size_t>(axis)] = step;
            if (tree.cell_neighbour(cell, offset) != core::no_cell) continue;
            const core::CellIndex father = tree.father_cell(o);
            const core::CellIndex coarse = tree.cell_neighbour(father, offset);
            if (coarse == core::no_cell || !tree.is_leaf(coarse)) continue;
            std::array<double, 3> unused{};
            const double fine_error = tree.field(gravity->potential_field())[cell] - phi;
            const double coarse_error = tree.field(gravity->potential_field())[coarse] - analytic(tree.cell_centre(coarse), unused);
            errors.jump = std::max(errors.jump, std::fabs(fine_error - coarse_error) / phi_scale);
          }
      }
  }
  for (auto* v : {&errors.phi, &errors.acceleration})
    MPI_Allreduce(MPI_IN_PLACE, v->data(), 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &errors.jump, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &errors.interface_acceleration, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, leaves_per_level, 4, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  for (int k = 0; k < 4; ++k) EXPECT_GT(leaves_per_level[k], 0) << "no leaf cells at level " << levelmin + k;
  return errors;
}

TEST(SelfGravity, GaussianSphereOnThreeRefinedLevelsIsSecondOrder) {
  // m_refine thresholds scale by 1/8 with the base cell volume, so both runs refine the same regions.
  const LevelErrors coarse = gaussian_errors(5, 2e-5);
  const LevelErrors fine = gaussian_errors(6, 2.5e-6);
  for (int k = 0; k < 4; ++k) {
    if (world_rank() == 0)
      std::printf("[ gaussian  ] level base+%d: phi error %.3e -> %.3e (ratio %.2f), g error %.3e -> %.3e (ratio %.2f)\n", k,
                  coarse.phi[k], fine.phi[k], coarse.phi[k] / fine.phi[k], coarse.acceleration[k], fine.acceleration[k],
                  coarse.acceleration[k] / fine.acceleration[k]);
    if (k == 0) {
      // The base level's leaf cells are all far from the sphere, where phi and g are almost those
      // of a point mass: errors of 1e-7 (phi) and 1e-4 (g), and g converges faster than second order.
      EXPECT_LT(fine.phi[k], 1e-5);
      EXPECT_GT(coarse.acceleration[k] / fine.acceleration[k], 3.0);
    } else {
      // Refined levels: second order in the max norm, potential and force (measured ratios 3.87 to
      // 3.96 and 3.63 to 4.00), because the Dirichlet values and the force stencil's missing
      // neighbours are interpolated from the coarser level at third order (triquadratic); with
      // RAMSES' (tri)linear interpolation the ratios were 2.5-3.8 and 0.9-1.9.
      EXPECT_GT(coarse.phi[k] / fine.phi[k], 3.3) << "potential, level base+" << k;
      EXPECT_GT(coarse.acceleration[k] / fine.acceleration[k], 3.0) << "acceleration, level base+" << k;
      EXPECT_LT(fine.phi[k], 2e-4);
      EXPECT_LT(fine.acceleration[k], 3e-4);
    }
  }
  if (world_rank() == 0)
    std::printf("[ gaussian  ] force error in cells whose stencil crosses a coarse-fine face: %.3e -> %.3e (ratio %.2f)\n",
                coarse.interface_acceleration, fine.interface_acceleration, coarse.interface_acceleration / fine.interface_acceleration);
  // Where the stencil mixes the level's own potential with interpolated coarse values the force
  // error falls about linearly (measured 2.13 per halving of h), as in RAMSES' force_fine.
  EXPECT_GT(coarse.interface_acceleration / fine.interface_acceleration, 1.8);
  EXPECT_LT(fine.interface_acceleration, 2e-3);
  if (world_rank() == 0)
    std::printf("[ gaussian  ] largest jump of the potential error across a coarse-fine face: %.3e (coarse run %.3e)\n", fine.jump,
                coarse.jump);
  // The jump of the error across a coarse-fine face is no larger than the refined levels' own
  // discretisation error, and shrinks with it.
  const double refined_error = std::max({fine.phi[1], fine.phi[2], fine.phi[3]});
  EXPECT_LE(fine.jump, refined_error);
  EXPECT_GT(coarse.jump / fine.jump, 3.0);
}

// The multigrid base level of an isolated box takes the monopole about the centre of mass on the
// walls, exact outside this centred sphere. Its solution inverts the 7-point Laplacian, whose
// Green's function differs from 1/r by a relative O(h^2/r^2), while the isolated FFT
// convolves with 1/r itself: the multigrid's far-field error is that truncation error, measured
// 7.0e-4 of |phi(0)| on the base level (FFT 1.5e-7), 7.1e-4 to 2.8e-4 on the refined levels.
TEST(SelfGravity, IsolatedMultigridBaseLevelWithMonopoleWalls) {
  const LevelErrors fft = gaussian_errors(5, 2e-5, true);
  const LevelErrors mg = gaussian_errors(5, 2e-5, false);
  for (int k = 0; k < 4; ++k) {
    if (world_rank() == 0)
      std::printf("[ gaussian  ] level base+%d: phi error FFT %.3e, multigrid %.3e; g error FFT %.3e, multigrid %.3e\n", k, fft.phi[k],
                  mg.phi[k], fft.acceleration[k], mg.acceleration[k]);
    EXPECT_LT(mg.phi[k], 1.5e-3);
    EXPECT_LT(mg.acceleration[k], 2e-3);
  }
}

// ---------------------------------------------------------------------------------------------------
// Rank-count independence: a periodic box with two Gaussian clumps, 3 coarse steps.

std::string periodic_namelist(const std::string& poisson) {
  return "&RUN_PARAMS\nhydro=.true.\npoisson=.true.\nndim=3\n" + poisson.substr(0, poisson.find('|')) +
         "\n/\n&AMR_PARAMS\nlevelmin=4\nlevelmax=6\n/\n&REFINE_PARAMS\nerr_grad_d=0.3\n/\n&POISSON_PARAMS\n" +
         poisson.substr(poisson.find('|') + 1) + "\n/\n";
}

void set_clumps(driver::Simulation<3>& sim) {
  sim.set_initial_condition([](const std::array<double, 3>& x, double, double* q) {
    auto clump = [&](double cx, double cy, double cz, double amplitude) {
      const double r2 = (x[0] - cx) * (x[0] - cx) + (x[1] - cy) * (x[1] - cy) + (x[2] - cz) * (x[2] - cz);
      return amplitude * std::exp(-r2 / (2 * 0.06 * 0.06));
    };
    q[0] = 1.0 + clump(0.35, 0.4, 0.45, 20.0) + clump(0.7, 0.6, 0.55, 10.0);
    q[1] = q[2] = q[3] = 0.0;
    q[4] = 1.0;
  });
}

std::vector<Cell> periodic_run(const std::string& poisson, MPI_Comm comm, std::vector<int>& vcycles) {
  driver::Simulation<3> sim(core::ParameterSet::from_text(periodic_namelist(poisson), "clumps.nml"), comm);
  set_clumps(sim);
  sim.initialise();
  for (int step = 0; step < 3; ++step) sim.advance(0.5 * sim.courant_time_step());
  vcycles.clear();
  for (int level = 4; level <= 6; ++level) vcycles.push_back(sim.gravity()->last_report(level).vcycles);
  return gather_sorted(owned_gravity(sim), kWidth, comm);
}

void expect_rank_independent(const std::string& poisson, double tolerance, bool same_vcycles = true) {
  std::vector<Cell> reference;
  std::vector<int> reference_vcycles, vcycles;
  if (world_rank() == 0) reference = periodic_run(poisson, MPI_COMM_SELF, reference_vcycles);
  const std::vector<Cell> distributed = periodic_run(poisson, MPI_COMM_WORLD, vcycles);
  if (world_rank() != 0) return;
  if (same_vcycles) {
    EXPECT_EQ(reference_vcycles, vcycles) << "V-cycles per level of the last step (" << poisson << ")";
  }
  ASSERT_EQ(reference.size(), distributed.size()) << poisson;
  double worst = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    for (int k = 0; k < 4; ++k) ASSERT_EQ(reference[i][k], distributed[i][k]) << "the meshes differ (" << poisson << ")";
    for (int k = 4; k < 8; ++k) {
      worst = std::max(worst, std::fabs(reference[i][k] - distributed[i][k]));
      scale = std::max(scale, std::fabs(reference[i][k]));
    }
  }
  std::string label = poisson;
  std::replace(label.begin(), label.end(), '\n', ' ');
  std::printf("[ ranks=%d ] %s: %zu cells, max |difference| %.3e of max |value| %.3e, V-cycles of levels 4-6 %d %d %d\n", world_size(),
              label.c_str(), reference.size(), worst, scale, vcycles[0], vcycles[1], vcycles[2]);
  EXPECT_LE(worst, tolerance * scale) << poisson;
}

// The bound of docs/gravity.md: 1e-10 relative with the same V-cycle counts. Not bit for bit: the mean density
// removed from the source and the multigrid norms are global sums, rounded differently on
// different rank counts (and FFTW-MPI transforms in another order than the serial FFT).
TEST(SelfGravity, FftGatheredToEveryRankIsRankIndependent) { expect_rank_independent("use_fftw=.true.|mg_merged_rb=.false.", 1e-10); }

TEST(SelfGravity, FftwMpiSlabsAreRankIndependent) {
  expect_rank_independent("use_fftw=.true.|fft_slab_threshold=1\nmg_merged_rb=.false.", 1e-10);
}

TEST(SelfGravity, UnmergedMultigridIsRankIndependent) { expect_rank_independent("use_fftw=.false.|mg_merged_rb=.false.", 1e-10); }

// What a run gets when it sets nothing: the gathered FFT base level and the unmerged multigrid
// (mg_merged_rb defaults to .false.) on the refined levels, with the same V-cycle counts. The bound
// is round-off of the global sums (the mean density), not a merged sweep's stale ghosts.
TEST(SelfGravity, DefaultSettingsAreRankIndependent) { expect_rank_independent("|", 1e-12); }

// The merged sweep reads stale red ghosts during the black half sweep (seeds/000 §5.1.1): the
// iterates differ between rank counts, so the solve is converged tightly before comparing.
TEST(SelfGravity, MergedMultigridIsRankIndependentWhenConverged) {
  // The V-cycle count is not compared: with other stale values the residual crosses the threshold
  // one cycle earlier or later on some rank counts (measured: 8, 14, 12 on one rank, 9, 13, 12 on three).
  expect_rank_independent("use_fftw=.false.|mg_merged_rb=.true.\nepsilon=1e-10", 1e-10, false);
}

// A checkpoint carries the potential, the acceleration and the provisional half kick, so a run
// restarted on the same ranks continues bit for bit (hydro state, potential and acceleration).
class SelfGravityRestart : public FreshWorkingDirectory {};

TEST_F(SelfGravityRestart, ContinuesBitForBit) {
  const auto params = core::ParameterSet::from_text(periodic_namelist("use_fftw=.true.|"), "clumps.nml");
  auto run_steps = [](driver::Simulation<3>& sim, int n) {
    for (int s = 0; s < n; ++s) sim.advance(0.5 * sim.courant_time_step());
  };
  auto state = [](const driver::Simulation<3>& sim) {
    std::vector<Cell> cells = owned_gravity(sim), hydro = owned_leaves(sim);
    std::vector<Cell> all = gather_sorted(cells, kWidth, MPI_COMM_WORLD);
    for (const Cell& c : gather_sorted(hydro, 4 + sim.hydro().nvar(), MPI_COMM_WORLD)) all.push_back(c);
    return all;
  };
  driver::Simulation<3> whole(params, MPI_COMM_WORLD);
  set_clumps(whole);
  whole.initialise();
  run_steps(whole, 4);
  const auto reference = state(whole);
  {
    driver::Simulation<3> first(params, MPI_COMM_WORLD);
    set_clumps(first);
    first.initialise();
    run_steps(first, 2);
    write_snapshot_of(first, MPI_COMM_WORLD, 1, params);
  }
  driver::Simulation<3> again(params, MPI_COMM_WORLD);
  again.restart(io::read_restart_share(MPI_COMM_WORLD, ".", 1));
  run_steps(again, 2);
  const auto restarted = state(again);
  if (world_rank() != 0) return;
  ASSERT_EQ(reference.size(), restarted.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) differing += reference[i] == restarted[i] ? 0 : 1;
  std::printf("[ ranks=%d ] restart with gravity: %zu of %zu cell records differ\n", world_size(), differing, reference.size());
  EXPECT_EQ(differing, 0u);
}

// seeds/000 §5.1.1: the merged sweep does not change the number of V-cycles to convergence at
// RAMSES' epsilon. It holds on one rank; on several, the stale red ghosts of the black half sweep
// cost the 16^3 base level, split into domains of a few hundred cells with a large surface, one
// more V-cycle (measured: 4 against 3 on 2 and 4 ranks; the refined levels 5 against 5).
TEST(SelfGravity, MergedRedBlackKeepsTheVcycleCount) {
  std::vector<int> merged, unmerged;
  periodic_run("use_fftw=.false.|mg_merged_rb=.true.", MPI_COMM_WORLD, merged);
  periodic_run("use_fftw=.false.|mg_merged_rb=.false.", MPI_COMM_WORLD, unmerged);
  if (world_rank() == 0)
    std::printf("[ ranks=%d ] V-cycles of levels 4-6 in the last step: merged %d %d %d, unmerged %d %d %d\n", world_size(), merged[0],
                merged[1], merged[2], unmerged[0], unmerged[1], unmerged[2]);
  if (world_size() == 1) {
    EXPECT_EQ(merged, unmerged);
  } else {
    for (std::size_t k = 0; k < merged.size(); ++k) {
      EXPECT_GE(merged[k], unmerged[k]);
      EXPECT_LE(merged[k], unmerged[k] + 1);
    }
  }
}

}  // namespace
