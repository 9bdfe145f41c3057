// Timing and cross-rank agreement for the exchange auto-tuner (see tuned_exchange.hpp).
#include "parallel/tuned_exchange.hpp"

namespace kosmo::parallel {

std::vector<Message> tuned_exchange(MPI_Comm comm, ExchangeAutoTuner& tuner, ExchangeComponent component,
                                    const std::vector<Message>& outgoing, const std::vector<int>& sources,
                                    const KSectionTree* tree, ExchangeStats& stats) {
  const ExchangeMethod method = tuner.choose(component);
  if (!tuner.wants_timing(component)) {
    auto incoming = sparse_exchange(comm, method, outgoing, sources, tree, &stats);
    tuner.record_untimed(component, method);
    return incoming;
  }
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  double payload = 0.0;  // what goes on the wire: a message to oneself is a copy
  for (const Message& message : outgoing)
    if (message.rank != rank) payload += static_cast<double>(message.data.size() * sizeof(double));
  const double start = MPI_Wtime();
  auto incoming = sparse_exchange(comm, method, outgoing, sources, tree, &stats);
  double local[2] = {MPI_Wtime() - start, payload}, slowest[2] = {0.0, 0.0};
  MPI_Allreduce(local, slowest, 2, MPI_DOUBLE, MPI_MAX, comm);
  tuner.record(component, method, slowest[0], slowest[1]);
  return incoming;
}

}  // namespace kosmo::parallel
