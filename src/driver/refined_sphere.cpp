#include "driver/refined_sphere.hpp"

#include <cmath>
#include <ostream>

#include "core/output_schedule.hpp"
#include "core/region_criterion.hpp"
#include "driver/mesh_report.hpp"
#include "driver/mesh_snapshot.hpp"
#include "driver/problem_setup.hpp"
#include "io/snapshot_writer.hpp"

namespace kosmo::driver {

template <int D>
void run_refined_sphere(const core::ParameterSet& params, MPI_Comm comm, std::ostream& log) {
  using Key = core::MortonKey;
  using Tree = core::OctTree<D, Key>;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);

  Tree tree(mesh_geometry<D, Key>(params));
  const int density = tree.add_field(core::scalar_field("density", "code_density"));
  const core::RefinementSettings settings = refinement_settings(params);
  const std::vector<core::RefineRegion> regions = refine_regions(params);

  const core::RefinementCriterion<D, Key> criterion = core::region_criterion<D, Key>(regions);
  // Smooth analytic profile centred on the region of levelmax - 1 (or the box centre).
  const core::RefineRegion& centre = regions[static_cast<std::size_t>(std::max(tree.levelmax() - 2, 0))];
  const double boxlen = tree.geometry().boxlen;
  const double c[3] = {centre.restricts() ? centre.x : 0.5 * boxlen, centre.restricts() ? centre.y : 0.5 * boxlen,
                       centre.restricts() ? centre.z : 0.5 * boxlen};
  const double width = 0.1 * boxlen;
  auto initialise = [&](Tree& t) {
    double* rho = t.field(density);
    for (int l = 1; l <= t.levelmax(); ++l) {
      const auto& octs = t.octs_at_level(l);
#pragma omp parallel for schedule(static)
      for (std::size_t i = 0; i < octs.size(); ++i)
        for (int k = 0; k < Tree::cells_per_oct; ++k) {
          const core::CellIndex cell = Tree::cell_index(octs[i], k);
          const auto x = t.cell_centre(cell);
          double r2 = 0.0;
          for (int d = 0; d < D; ++d) r2 += (x[d] - c[d]) * (x[d] - c[d]);
          rho[cell] = 1.0 + 9.0 * std::exp(-0.5 * r2 / (width * width));
        }
    }
  };
  const int passes = core::build_initial_mesh<D, Key>(tree, settings, criterion, initialise);
  tree.compact();

  if (rank == 0) {
    log << " Mesh built in " << passes << " refinement passes (levelmin=" << settings.levelmin
        << ", levelmax=" << tree.levelmax() << ", ndim=" << D << ")\n"
        << level_summary(tree) << memory_summary(tree) << std::flush;
  }

  // A static problem: time stays 0, so only snapshots due at t = 0 are written.
  const auto noutput = static_cast<std::size_t>(params.get_int("OUTPUT_PARAMS", "noutput"));
  auto tout = params.get_real_array("OUTPUT_PARAMS", "tout");
  tout.resize(std::min(noutput, tout.size()));
  core::OutputSchedule schedule(core::OutputScheduleSettings{.tout = tout,
                                                             .foutput = params.get_int("OUTPUT_PARAMS", "foutput"),
                                                             .delta_tout = params.get_real("OUTPUT_PARAMS", "delta_tout"),
                                                             .tend = params.get_real("OUTPUT_PARAMS", "tend")});
  const double time = 0.0;
  if (schedule.due(time, 0)) {
    write_mesh_snapshot(comm, tree, params, 1, time, 0);
    schedule.record(time);
    if (rank == 0) log << " Output written: " << io::output_directory_name(1) << "\n" << std::flush;
  }
}

template void run_refined_sphere<1>(const core::ParameterSet&, MPI_Comm, std::ostream&);
template void run_refined_sphere<2>(const core::ParameterSet&, MPI_Comm, std::ostream&);
template void run_refined_sphere<3>(const core::ParameterSet&, MPI_Comm, std::ostream&);

}  // namespace kosmo::driver
