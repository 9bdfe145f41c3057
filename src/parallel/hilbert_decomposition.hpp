#pragma once
// RAMSES' Hilbert ordering as a run's domain decomposition (ordering='hilbert'), the reference
// users compare the k-section tree against (seeds/000 §2, §8.6). Points are keyed on an
// order-19 Hilbert curve over the cube enclosing the domain; rank r owns the contiguous key range
// [bound_r, bound_{r+1}) (RAMSES bound_key), placed so that every rank holds an equal share of the
// cost.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "parallel/ksection_tree.hpp"

namespace kosmo::parallel {

class HilbertDecomposition {
 public:
  static constexpr int order = 19;  // bits per axis: 57-bit keys, finer than any level kosmo reaches here

  // Equal key ranges of the part of the curve inside `domain` (no cost known yet): the bounds
  // split a uniform sample of the domain evenly. No MPI.
  static HilbertDecomposition uniform(int nrank, const Box& domain);
  // Bounds from every rank's weighted points: bound_r is the smallest key whose cumulative cost
  // below reaches r W / N. One MPI_Allreduce of N - 1 doubles per bit of the key (bisection of all
  // bounds at once, as RAMSES' cmp_bound_key does per cpu). Collective.
  static HilbertDecomposition balanced(MPI_Comm comm, const Box& domain, std::span<const std::array<double, 3>> points,
                                       std::span<const double> costs);

  // Bounds read back from a checkpoint (bound_key(0..nrank)). No MPI.
  static HilbertDecomposition from_bounds(const Box& domain, std::vector<std::uint64_t> bounds);

  int nrank() const { return static_cast<int>(bounds_.size()) - 1; }
  const Box& domain() const { return domain_; }
  // bound_key(0..nrank), as RAMSES writes them to the info file's DOMAIN table.
  const std::vector<std::uint64_t>& bounds() const { return bounds_; }

  std::uint64_t key(std::array<double, 3> point) const;  // wrapped periodically into the domain
  int owner_of_key(std::uint64_t key) const;
  int owner(const std::array<double, 3>& point) const { return owner_of_key(key(point)); }
  // Ranks whose key ranges meet `box` (periodic images folded back), sorted and unique: a descent
  // through the curve's sub-cubes, stopping wherever a sub-cube's key range lies in one rank.
  std::vector<int> ranks_overlapping(const Box& box) const;

 private:
  HilbertDecomposition(const Box& domain, std::vector<std::uint64_t> bounds);

  Box domain_;
  double side_ = 1.0;  // edge of the enclosing cube
  std::vector<std::uint64_t> bounds_;
};

}  // namespace kosmo::parallel
