#pragma once
// Checks shared by every writer and reader of SnapshotParticles (io/snapshot_data.hpp): one
// consistency rule for the plain particle arrays, so that the HDF5 and RAMSES writers refuse the same
// inputs with the same message.
#include <mpi.h>

#include <string>

#include "io/snapshot_data.hpp"

namespace kosmo::io {

// Throws a kosmo::Error starting with `context` unless every array holds particles.size() values:
// position and velocity along axes 0..ndim-1, mass, id, level, family, every attribute and every
// restart field; axes ndim..2 must be empty (an array there would be silently dropped by the
// writers). Attribute and restart field names must be unique together, non-empty, free of '/', ','
// and blanks (they name HDF5 datasets and descriptor lines) and differ from the standard fields and
// the group's own entries (restart, restart_fields, attributes). Not collective.
void check_snapshot_particles(const SnapshotParticles& particles, int ndim, const std::string& context);

// Collective: throws the same kosmo::Error on every rank unless all ranks pass the same restart
// field names and the same attributes (names, types, units, exponents) in the same order (the file
// holds one list for everyone).
void require_same_restart_names(MPI_Comm comm, const SnapshotParticles& particles, const std::string& context);

// Appends every particle of `from` to `to` (the RAMSES reader collects several files per rank). The
// restart field and attribute names must match unless `to` is still empty, which takes `from`'s.
void append_particles(SnapshotParticles& to, const SnapshotParticles& from);

}  // namespace kosmo::io
