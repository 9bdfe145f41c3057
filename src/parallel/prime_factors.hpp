#pragma once
// The k-section splitting sequence of seeds/000 §2.1: the prime factors of N_rank, largest first
// (eqs. 1-2), one tree level per factor. Largest factors first so that the coarse, long-range cuts
// make the many-way splits and the deep levels are bisections of already compact boxes.
#include <vector>

#include "core/error.hpp"

namespace kosmo::parallel {

// Prime factors of n with multiplicity, in decreasing order: 12 -> (3, 2, 2) (seeds/000 §2.1 eq. 2).
// n = 1 gives the empty sequence: a single rank is a tree with the root as its only leaf.
inline std::vector<int> splitting_sequence(int nrank) {
  KOSMO_REQUIRE(nrank >= 1, "k-section splitting sequence: the number of ranks must be >= 1, got " << nrank);
  std::vector<int> ascending;
  int n = nrank;
  for (int p = 2; static_cast<long long>(p) * p <= n; ++p)
    while (n % p == 0) {
      ascending.push_back(p);
      n /= p;
    }
  if (n > 1) ascending.push_back(n);
  return {ascending.rbegin(), ascending.rend()};
}

// N_nodes = 1 + sum_l prod_{i<=l} k_i (seeds/000 §2.1).
inline long long ksection_node_count(const std::vector<int>& splits) {
  long long total = 1, width = 1;
  for (int k : splits) {
    width *= k;
    total += width;
  }
  return total;
}

// Messages per hierarchical exchange: k_l - 1 partners at each level (seeds/000 §3.1.3).
inline int ksection_messages_per_exchange(const std::vector<int>& splits) {
  int messages = 0;
  for (int k : splits) messages += k - 1;
  return messages;
}

}  // namespace kosmo::parallel
