#pragma once
// Particles to the ranks whose domains hold them (ARCHITECTURE §2: "octs and particles migrate to
// their new owners"; the particle half of RAMSES' virtual_tree_fine). A particle belongs to the
// rank whose k-section (or Hilbert) domain holds its position, DistributedMesh::owner_of_position:
// the rule that gives an oct to the rank holding its centre, so a point on a wall goes to exactly
// one rank, the same on every rank. That rank holds every oct the particle's CIC cloud touches, as
// owned or ghost: the oct containing the particle overlaps the rank's domain, and the ghost zone
// reaches 1.5 oct widths beyond it.
//
// Where it lives. Migration needs the decomposition (parallel/) and the particle storage
// (particles/). particles/ is a library of MPI-free physics kernels (ARCHITECTURE §2) that links
// kosmo_core only, so the edge goes kosmo_parallel -> kosmo_particles and never back: no cycle.
//
// Transport. After a load balance or a long drift a particle may go to any rank, and a rank
// cannot know who will send to it. The hierarchical k-section exchange (seeds/000 §3.1.3) routes
// any pattern through the k-section tree with sum_l (k_l - 1) correspondents per rank (eq. 7) and
// needs neither the sources nor an all-to-all of counts, so migration uses it on every call.
#include <cstddef>
#include <vector>

#include "parallel/distributed_mesh.hpp"
#include "parallel/sparse_exchange.hpp"
#include "particles/particle_set.hpp"

namespace kosmo::parallel {

// A caller's per-particle array that travels with the particles (a pending half kick, a birth
// time, ...): `width` doubles per particle, particle i at [i * width, (i + 1) * width), so the
// vector holds exactly width * particles.size() values. The migration keeps it aligned with the
// particle set: entries of departing particles are removed, entries of arrivals appended, bit for
// bit. A structure-of-arrays quantity (one vector per axis) is passed as one attachment per axis.
struct ParticleAttachment {
  std::vector<double>* values = nullptr;
  int width = 1;
};

struct ParticleMigration {
  std::size_t sent = 0;      // particles that left this rank
  std::size_t received = 0;  // particles that arrived
  ExchangeStats wire;        // MPI messages and bytes this rank put on the wire (relays included)
};

// Sends every particle whose owner_of_position is another rank to that rank, with every attribute
// of the set's registry (position, velocity, mass, id, level, family, the pending kick, and whatever
// further attribute a module registered: particles/particle_attributes.hpp), its acceleration (the
// interpolated force a kick may still need) and the attachments; every rank's set must have the same
// registry. Removes them here, keeping the order of the particles that stay, and
// appends the arrivals in source-rank order, each source's particles in its index order. Arrivals
// are not located (oct = no_oct): call locate_particles before using per-oct ranges. Positions
// must be inside the box (the caller wraps periodic axes); a position outside is an error naming
// the particle. Every rank must pass the same number of attachments with the same widths.
// Collective; nothing moves on one rank.
template <int D, class Key>
ParticleMigration migrate_particles(const DistributedMesh<D, Key>& mesh, particles::ParticleSet<D>& set,
                                    const std::vector<ParticleAttachment>& attachments = {});

}  // namespace kosmo::parallel
