#pragma once
// One exchange through the backend an ExchangeAutoTuner picks (seeds/000 §3.2): the MPI side of
// parallel/exchange_autotune.hpp. Outside a tuning round the call is not timed and adds no
// collective; inside one, the call's time and payload are reduced to their maxima over ranks in
// one MPI_Allreduce, so every rank feeds the tuner the same values and makes the same choices.
#include <mpi.h>

#include <vector>

#include "parallel/exchange_autotune.hpp"
#include "parallel/ksection_tree.hpp"
#include "parallel/sparse_exchange.hpp"

namespace kosmo::parallel {

// Collective over `comm`; arguments as for sparse_exchange. `stats` receives the exchange's counts.
std::vector<Message> tuned_exchange(MPI_Comm comm, ExchangeAutoTuner& tuner, ExchangeComponent component,
                                    const std::vector<Message>& outgoing, const std::vector<int>& sources,
                                    const KSectionTree* tree, ExchangeStats& stats);

}  // namespace kosmo::parallel
