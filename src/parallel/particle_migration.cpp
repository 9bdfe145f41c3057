#include "parallel/particle_migration.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <type_traits>
#include <variant>

#include "core/error.hpp"

namespace kosmo::parallel {
namespace {

// One particle on the wire, all doubles: one word per array of every registered attribute, in
// registry order (float64 and int64 values as their 8 bytes, int8 values widened), so every
// attribute a module registers travels with no edit here, then its acceleration (D values: the
// interpolated force a kick may still need), then every attachment's width values. Bytes copied
// through memcpy and MPI_DOUBLE arrive unchanged, whatever pattern they hold.
template <int D>
std::size_t attribute_words(const particles::ParticleSet<D>& set) {
  std::size_t words = 0;
  for (int id = 0; id < set.attributes().size(); ++id) words += static_cast<std::size_t>(set.attributes().info(id).components);
  return words;
}

double to_word(double value) { return value; }
double to_word(std::int64_t value) {
  double word = 0.0;
  std::memcpy(&word, &value, sizeof word);
  return word;
}
double to_word(std::int8_t value) { return static_cast<double>(value); }
template <class T>
T from_word(double word) {
  if constexpr (std::is_same_v<T, std::int64_t>) {
    T value = 0;
    std::memcpy(&value, &word, sizeof value);
    return value;
  } else {
    return static_cast<T>(word);
  }
}

template <int D>
void pack_particle(const particles::ParticleSet<D>& set, std::size_t i, std::vector<double>& out) {
  for (int id = 0; id < set.attributes().size(); ++id)
    for (int c = 0; c < set.attributes().info(id).components; ++c)
      std::visit([&](const auto& values) { out.push_back(to_word(values[i])); }, set.array(id, c));
  for (int d = 0; d < D; ++d) out.push_back(set.acceleration(d)[i]);
}

// Appends the particle packed at `in` and returns the first word after it.
template <int D>
const double* unpack_particle(const double* in, particles::ParticleSet<D>& set) {
  const std::size_t index = set.add(typename particles::ParticleSet<D>::Particle{});
  for (int id = 0; id < set.attributes().size(); ++id)
    for (int c = 0; c < set.attributes().info(id).components; ++c)
      std::visit(
          [&](auto& values) {
            using Value = typename std::decay_t<decltype(values)>::value_type;
            values[index] = from_word<Value>(*in++);
          },
          set.array(id, c));
  for (int d = 0; d < D; ++d) set.acceleration(d)[index] = *in++;
  return in;
}

// Keeps the entries of the particles whose flag is zero, in order (ParticleSet::remove_flagged's
// rule, so the attachments stay aligned with the set).
void compact(std::vector<double>& values, std::size_t width, const std::vector<std::uint8_t>& leaving) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < leaving.size(); ++i) {
    if (leaving[i]) continue;
    if (kept != i) std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(i * width), width, values.begin() + static_cast<std::ptrdiff_t>(kept * width));
    ++kept;
  }
  values.resize(kept * width);
}

}  // namespace

template <int D, class Key>
ParticleMigration migrate_particles(const DistributedMesh<D, Key>& mesh, particles::ParticleSet<D>& set,
                                    const std::vector<ParticleAttachment>& attachments) {
  const std::size_t n = set.size();
  const std::size_t fixed_words = attribute_words(set) + D;
  std::size_t record = fixed_words;
  for (std::size_t a = 0; a < attachments.size(); ++a) {
    const ParticleAttachment& attachment = attachments[a];
    KOSMO_REQUIRE(attachment.values != nullptr && attachment.width >= 1,
                  "particle migration: attachment " << a << " needs a vector and a width >= 1 (width " << attachment.width << ")");
    KOSMO_REQUIRE(attachment.values->size() == n * static_cast<std::size_t>(attachment.width),
                  "particle migration: attachment " << a << " holds " << attachment.values->size() << " values, not " << attachment.width
                                                    << " per particle for " << n << " particles");
    record += static_cast<std::size_t>(attachment.width);
  }
  ParticleMigration result;
  if (!mesh.distributed()) return result;
  KOSMO_REQUIRE(mesh.has_decomposition(), "particle migration: the mesh has no decomposition yet (classify or redistribute it first)");

  // 1. Owners. Out-of-box positions are marked and reported after the threaded loop (an exception
  // must not leave an OpenMP region).
  const Box& domain = mesh.decomposition().domain();
  std::vector<int> owner(n, -1);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    std::array<double, D> x{};
    bool inside = true;
    for (int d = 0; d < D; ++d) {
      x[static_cast<std::size_t>(d)] = set.position(d)[i];
      inside = inside && x[static_cast<std::size_t>(d)] >= domain.lo[static_cast<std::size_t>(d)] &&
               x[static_cast<std::size_t>(d)] < domain.hi[static_cast<std::size_t>(d)];
    }
    if (inside) owner[i] = mesh.owner_of_position(x);
  }
  for (std::size_t i = 0; i < n; ++i)
    KOSMO_REQUIRE(owner[i] >= 0, "particle migration: particle id " << set.id()[i] << " lies outside the box (axis 0 at "
                                                                   << set.position(0)[i] << "); wrap periodic positions first");

  // 2. Pack the departing particles per destination, in index order.
  std::map<int, std::vector<double>> by_rank;
  std::vector<std::uint8_t> leaving(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (owner[i] == mesh.rank()) continue;
    leaving[i] = 1;
    ++result.sent;
    std::vector<double>& out = by_rank[owner[i]];
    pack_particle(set, i, out);
    for (const ParticleAttachment& attachment : attachments) {
      const auto w = static_cast<std::size_t>(attachment.width);
      out.insert(out.end(), attachment.values->begin() + static_cast<std::ptrdiff_t>(i * w),
                 attachment.values->begin() + static_cast<std::ptrdiff_t>((i + 1) * w));
    }
  }
  std::vector<Message> outgoing;
  for (auto& [destination, data] : by_rank) outgoing.push_back({destination, std::move(data)});
  const std::vector<Message> incoming =
      sparse_exchange(mesh.comm(), ExchangeMethod::ksection, outgoing, {}, &mesh.decomposition(), &result.wire);

  // 3. Drop the departed, then append the arrivals in the order sparse_exchange delivers them.
  if (result.sent > 0) {
    set.remove_flagged(leaving);
    for (const ParticleAttachment& attachment : attachments) compact(*attachment.values, static_cast<std::size_t>(attachment.width), leaving);
  }
  for (const Message& m : incoming) {
    KOSMO_REQUIRE(m.data.size() % record == 0, "particle migration: the message from rank " << m.rank << " holds " << m.data.size()
                                                                                            << " values, not whole particles of " << record);
    for (std::size_t at = 0; at < m.data.size(); at += record) {
      const double* in = m.data.data() + at;
      const double* extra = unpack_particle(in, set);
      for (const ParticleAttachment& attachment : attachments) {
        attachment.values->insert(attachment.values->end(), extra, extra + attachment.width);
        extra += attachment.width;
      }
      ++result.received;
    }
  }
  return result;
}

template ParticleMigration migrate_particles(const DistributedMesh<1, std::uint64_t>&, particles::ParticleSet<1>&,
                                             const std::vector<ParticleAttachment>&);
template ParticleMigration migrate_particles(const DistributedMesh<2, std::uint64_t>&, particles::ParticleSet<2>&,
                                             const std::vector<ParticleAttachment>&);
template ParticleMigration migrate_particles(const DistributedMesh<3, std::uint64_t>&, particles::ParticleSet<3>&,
                                             const std::vector<ParticleAttachment>&);
template ParticleMigration migrate_particles(const DistributedMesh<1, core::UInt128>&, particles::ParticleSet<1>&,
                                             const std::vector<ParticleAttachment>&);
template ParticleMigration migrate_particles(const DistributedMesh<2, core::UInt128>&, particles::ParticleSet<2>&,
                                             const std::vector<ParticleAttachment>&);
template ParticleMigration migrate_particles(const DistributedMesh<3, core::UInt128>&, particles::ParticleSet<3>&,
                                             const std::vector<ParticleAttachment>&);

}  // namespace kosmo::parallel
