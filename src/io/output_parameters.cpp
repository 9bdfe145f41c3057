// RAMSES names and defaults (amr/amr_parameters.f90, amr/read_params.f90) unless the description says
// "kosmo".
#include "io/output_parameters.hpp"

#include "core/error.hpp"
#include "core/parameters.hpp"
#include "core/schema_builder.hpp"

namespace kosmo::io {
namespace {

void check_output_lists(const core::ParameterSet& p) {
  const long long noutput = p.get_int("OUTPUT_PARAMS", "noutput");
  for (const char* list : {"tout", "aout"}) {
    const std::vector<double> values = p.get_real_array("OUTPUT_PARAMS", list);
    KOSMO_REQUIRE(noutput <= static_cast<long long>(values.size()),
                  p.location_of("OUTPUT_PARAMS", "noutput")
                      << "noutput = " << noutput << " exceeds the length of " << list << " (" << values.size() << ")");
    for (long long i = 1; i < noutput; ++i)
      KOSMO_REQUIRE(values[i] >= values[i - 1],
                    p.location_of("OUTPUT_PARAMS", p.set_by_user("OUTPUT_PARAMS", list) ? list : "noutput")
                        << list << " must be non-decreasing over its first noutput = " << noutput << " entries, but "
                        << list << "(" << i + 1 << ") = " << core::format_value(values[i]) << " < " << list << "(" << i
                        << ") = " << core::format_value(values[i - 1]));
  }
}

}  // namespace

// The table is laid out by hand, one key per row.
// clang-format off
void declare_parameters(core::SchemaBuilder& schema) {
  using namespace core::parameter_rows;
  using core::kMaxOut;
  schema.declare_block("OUTPUT_PARAMS", "When outputs are written and when the run ends.");
  schema.add({
      // &OUTPUT_PARAMS
      integer_key("OUTPUT_PARAMS", "noutput", 1, between(0, kMaxOut),
                  "number of outputs listed in tout (or aout in cosmological runs)"),
      real_array_key("OUTPUT_PARAMS", "tout", kMaxOut, 0.0, any_value(),
                     "output times in code units; non-decreasing over the first noutput entries"),
      real_array_key("OUTPUT_PARAMS", "aout", kMaxOut, 1.1, any_value(),
                     "output expansion factors (cosmological runs); non-decreasing over the first noutput entries"),
      integer_key("OUTPUT_PARAMS", "foutput", 1000000, at_least(1), "also write an output every foutput coarse steps"),
      real_key("OUTPUT_PARAMS", "delta_tout", 0.0, at_least(0),
               "interval between outputs in code time units (0 = use tout only)"),
      real_key("OUTPUT_PARAMS", "tend", 0.0, at_least(0), "end time in code units (0 = last entry of tout)"),
      real_key("OUTPUT_PARAMS", "delta_aout", 0.0, any_value(),
               "interval between outputs in expansion factor (0 = use aout only)"),
      string_key("OUTPUT_PARAMS", "outformat", "both", {"hdf5", "ramses", "both"},
                 "kosmo: snapshot format: 'both' (the default: kosmo's HDF5 file, the checkpoint restarts and kosmo.load "
                 "read, and RAMSES' binary amr_/hydro_/grav_/part_ files, which yt, osyris and pynbody open unchanged), "
                 "'hdf5' (the HDF5 file only) or 'ramses' (RAMSES' files only; restarts read them with informat='ramses')"),
      string_key("OUTPUT_PARAMS", "informat", "hdf5", {"hdf5", "ramses"},
                 "format nrestart reads: 'hdf5' (kosmo_NNNNN.h5, bit for bit) or 'ramses' (the amr_/hydro_NNNNN.outCCCCC "
                 "files of kosmo or of a RAMSES hydro run, any number of files onto any number of ranks; primitive "
                 "variables, so equal to the HDF5 restart to round-off)"),
      string_key("OUTPUT_PARAMS", "output_precision", "double", {"double", "single"},
                 "kosmo: precision of the HDF5 snapshot's fields/* datasets; 'single' halves them for analysis, while "
                 "the restart data stays double (restarts remain exact) and RAMSES files stay double (their readers "
                 "expect it)"),
      real_key("OUTPUT_PARAMS", "aend", 0.0, any_value(), "final expansion factor (0 = last entry of aout)"),
  });

  schema.add_check(&check_output_lists);
}
// clang-format on

}  // namespace kosmo::io
