#pragma once
// Plain description of one snapshot, filled by the driver from the mesh and handed to the writers.
// The writers know nothing about OctTree; the mesh knows nothing about HDF5.
#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace kosmo::io {

// One registered cell field, as the field registry describes it (ARCHITECTURE §6).
struct FieldDescription {
  std::string name;          // e.g. "density"
  std::string units;         // e.g. "code_density" or a cgs expression; informative
  int comoving_exponent = 0; // power of the expansion factor in the physical value (0 when not cosmological)
};

// The octs of one level that this rank writes. Octs are listed in Morton-key order; all ranks'
// lists concatenated in rank order form the level's global oct list in the file.
struct SnapshotLevel {
  int level = 0;                              // 1..levelmax
  std::vector<std::int64_t> oct_coordinates;  // ndim integers per oct: (i, j, k) in [0, 2^(level-1) * n_d)
  std::vector<std::uint8_t> son_flags;        // 2^ndim per oct: 1 when the cell is refined
  std::vector<std::vector<double>> fields;    // one array per FieldDescription, 2^ndim values per oct
  // The state a restart needs, bit for bit (the conservative variables, for hydro): one array per
  // SnapshotMeta::restart_fields entry, 2^ndim values per oct. Written under level_NN/restart/.
  std::vector<std::vector<double>> restart_fields;
};

// The particles one rank writes (or, in a RestartShare, the share it read): structure of arrays as
// particles::ParticleSet, in plain vectors so that io/ does not depend on particles/ (the driver
// converts, driver/particle_snapshot.hpp, from the set's attribute registry). Only the first ndim
// arrays of `position` and `velocity` are used (the others stay empty). Code units: positions in
// [0, boxlen), velocities in code velocity, masses in code mass. Families are RAMSES' codes (0 gas
// tracer, 1 dark matter, 2 star, 3 cloud/sink; negative: tracers), written as int8.
//
// Three groups of arrays, each written where its formats want it (docs/outputs.md):
// * the standard ones (position .. family): RAMSES' fixed record layout, which every reader knows;
// * `attributes`: every further attribute a module registered for snapshots (a birth time, a
//   metallicity, ...), each array with its name, type, units and comoving exponent;
// * `restart_fields`: per-particle float64 state a restart needs bit for bit that is not part of
//   what RAMSES or an analysis reads (the leapfrog's provisional half kick, for instance).
// Every rank must pass the same attribute and restart names in the same order. Readers return the
// arrays they find; one a file lacks is simply absent.
struct ParticleRestartField {
  std::string name;
  std::vector<double> values;
};

// Values of one attribute array, of the attribute's type (RAMSES descriptor codes d, q, b).
using ParticleValues = std::variant<std::vector<double>, std::vector<std::int64_t>, std::vector<std::int8_t>>;

struct ParticleAttributeArray {
  std::string name;           // "birth_time", or name_x .. name_z per component of a vector attribute
  std::string units;          // e.g. "code_time"
  int comoving_exponent = 0;  // power of aexp in the physical value
  bool in_restarts = true;    // a restart takes it back (false: written for analysis only)
  ParticleValues values;
  std::size_t size() const {
    return std::visit([](const auto& v) { return v.size(); }, values);
  }
};

// Units and comoving exponent of one standard array (position_x, mass, identity, level, family) or
// restart field, by name.
struct ParticleArrayUnits {
  std::string name;
  std::string units;
  int comoving_exponent = 0;
};

struct SnapshotParticles {
  std::array<std::vector<double>, 3> position, velocity;
  std::vector<double> mass;
  std::vector<std::int64_t> id;
  std::vector<std::int8_t> level, family;
  std::vector<ParticleRestartField> restart_fields;
  std::vector<ParticleAttributeArray> attributes;
  // The registry's units of the standard arrays and restart fields, written as dataset attributes
  // (none for an array without an entry).
  std::vector<ParticleArrayUnits> units;
  std::size_t size() const { return mass.size(); }
};

// The sink particles (docs/galaxy.md "Sink particles"; docs/outputs.md "/sinks"), which every rank
// holds whole (RAMSES replicates them): the same on every rank, written once, by rank 0, into the
// HDF5 group /sinks and RAMSES' sink_NNNNN.csv, and read back whole by every rank at a restart.
struct SnapshotSinks {
  bool present = false;                // the run has sinks (sink=.true.): written even when there are none
  SnapshotParticles particles;         // every sink, in the module's order, with all its attributes
  std::int64_t largest_identity = 0;   // RAMSES nindsink: the largest identity given so far
  // This rank's cloud particles of the sinks (RAMSES create_cloud_from_sink: family 3, identity
  // -(sink index), the sink's velocity and mass share), for RAMSES' part_ files only: the HDF5
  // snapshot and restarts do not hold them (a restart rebuilds them from the sinks, as RAMSES).
  SnapshotParticles clouds;
};

// One resolved parameter (see core/parameters.hpp).
struct ParameterRecord {
  std::string block;  // e.g. "AMR_PARAMS"
  std::string name;   // e.g. "levelmax"
  std::string value;  // printed as in a namelist: 7, 1.0d0, .true., 'hilbert', 1,2,3
  bool from_file = false;
};

struct SnapshotMeta {
  int output_number = 1;       // NNNNN of output_NNNNN
  int ndim = 3;
  int levelmin = 1;
  int levelmax = 1;
  int nx = 1, ny = 1, nz = 1;  // coarse grid (level-1 octs per axis)
  double boxlen = 1.0;
  double time = 0.0;           // code units
  double aexp = 1.0;
  long long step = 0;          // coarse step count (nstep_coarse)
  // Length of each level's latest step, levels 1..levelmax (RAMSES dtnew, written in the AMR header):
  // a restart from RAMSES files rebuilds the leapfrog's provisional half kicks from it
  // (docs/outputs.md, "Restarts"). Empty: unknown (zeros are written).
  std::vector<double> level_time_steps;
  int ncpu = 1;                // number of MPI ranks that wrote the file
  // Units (RAMSES &UNITS_PARAMS): cgs value of one code unit.
  double unit_l = 1.0, unit_d = 1.0, unit_t = 1.0;
  std::string ordering = "none";  // decomposition ordering: 'morton' (one rank), 'ksection', 'hilbert_skilling'
  // The decomposition that wrote the file (seeds/000 §7.1): a restart on the same number of ranks
  // with the same ordering adopts it instead of balancing afresh. K-section: every node's walls in
  // node order (KSectionTree::all_walls); Hilbert: bound keys 0..ncpu. Empty when not distributed.
  std::vector<double> ksection_walls;
  std::vector<std::uint64_t> hilbert_bounds;
  std::vector<FieldDescription> fields;
  std::vector<FieldDescription> restart_fields;  // the registry's fields marked in_restarts
  // fields/* stored as float32 (half the bytes for analysis outputs); restart data stays float64.
  bool single_precision_fields = false;
  std::vector<ParameterRecord> parameters;
  // Cosmology, for the info file (yt decides "cosmological" from H0, aexp and time). When
  // cosmological is false the info file carries RAMSES' non-cosmological values instead
  // (H0 = 1, omega_m = 1, omega_l = omega_k = omega_b = 0, aexp = 1).
  bool cosmological = false;
  double h0 = 1.0;  // km/s/Mpc
  double omega_m = 1.0, omega_l = 0.0, omega_k = 0.0, omega_b = 0.0;
  // Hilbert domain boundaries bound_key(0..ncpu) for the info file's DOMAIN table when
  // ordering == "hilbert"; empty means "unknown" and zeros are written.
  std::vector<double> hilbert_bound_keys;
  // Filled by the sink module (core::PhysicsModule::write_snapshot_state); absent otherwise.
  SnapshotSinks sinks;
};

}  // namespace kosmo::io
