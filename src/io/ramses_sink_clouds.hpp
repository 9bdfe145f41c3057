#pragma once
// The sinks' cloud particles in RAMSES' part_ files (docs/outputs.md "RAMSES binary format"):
// RAMSES' clouds are particles of family 3 (FAM_CLOUD) that backup_part writes with the others and
// that its restart kills and rebuilds from the sinks; kosmo does the same with the clouds the sink
// module hands over (SnapshotSinks::clouds).
#include "io/snapshot_data.hpp"

namespace kosmo::io {

// The particles of this rank's part file: `particles` (none when null) followed by the clouds. A
// cloud takes 0 in every attribute and restart field of `particles` except the clouds' own
// (birth_time: the sink's); without `particles` the clouds keep their own attributes (RAMSES writes
// birth_time whenever the run has sinks).
SnapshotParticles particles_with_clouds(const SnapshotParticles* particles, const SnapshotParticles& clouds);

// Drops the family-3 (cloud) particles read from the RAMSES files of an output with sinks (a
// sink_NNNNN.csv): a restart rebuilds them from the sinks, as RAMSES does.
void remove_cloud_particles(SnapshotParticles& particles);

}  // namespace kosmo::io
