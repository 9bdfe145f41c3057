#pragma once
// The MPI side of the supernova feedback (seeds/000 §6): events go to the ranks their blast can
// reach, found by a walk down the k-section tree (ranks_overlapping, no all-to-all), and the partial
// budgets of average_SN come back to the event's producing rank, which sums them in the order of a
// one-rank sweep and returns the global budget to every rank holding the event. All messages travel
// through sparse_exchange's hierarchical k-section backend (seeds/000 §3.1.3).
#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

#include "feedback/blast_kernels.hpp"
#include "feedback/supernova_event.hpp"
#include "parallel/ksection_tree.hpp"

namespace kosmo::feedback {

// The events this rank works on, sorted by identity (their slots), with the rank that produced
// each, and, for the events this rank produced, the ranks it sent them to.
struct SharedEvents {
  std::vector<SupernovaEvent> events;
  std::vector<int> origin;
  std::vector<std::vector<int>> recipients;  // per slot; empty unless origin == this rank
};

// Sends each of this rank's events to every rank whose domain overlaps the cube of half-width
// `reach` around it (`every_rank`: to all ranks, for decompositions the tree does not describe, the
// Hilbert ordering). Collective.
SharedEvents share_events(MPI_Comm comm, const parallel::KSectionTree& tree, bool every_rank, std::span<const SupernovaEvent> own,
                          double reach);

// The global average_SN budget of every shared event from this rank's records (in cell order).
// Collective.
std::vector<BlastBudget> reduce_budgets(MPI_Comm comm, const parallel::KSectionTree& tree, const SharedEvents& shared,
                                        std::span<const BudgetRecord> records);

// The identity order every rank uses for its slots.
void sort_by_identity(std::vector<SupernovaEvent>& events);

}  // namespace kosmo::feedback
