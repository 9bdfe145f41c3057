#include "hydro/hydro_restart_conversion.hpp"

#include "core/error.hpp"
#include "hydro/hydro_variables.hpp"

namespace kosmo::hydro {
namespace {

// Primitive -> conservative for one cell, in the operation order of primitive_to_conservative
// (equation_of_state.hpp) except that p is divided by (gamma - 1) rather than multiplied by its
// rounded inverse: the order RAMSES-format restarts have always used, so that their state does not
// move by a unit in the last place. q = [rho, v_0 .., p, s_0 ..], u = [rho, rho v_0 .., E, rho s_0 ..].
template <int D>
void primitive_to_conservative_for_restart(const double* q, double* u, int npassive, double gamma) {
  const double rho = q[0];
  u[0] = rho;
  double kinetic = 0.0;
  for (int d = 0; d < D; ++d) {
    const double velocity = q[1 + d];
    u[1 + d] = rho * velocity;
    kinetic += 0.5 * rho * velocity * velocity;
  }
  u[D + 1] = q[D + 1] / (gamma - 1.0) + kinetic;
  for (int n = D + 2; n < D + 2 + npassive; ++n) u[n] = rho * q[n];
}

}  // namespace

template <int D>
io::CellVariableConversion ramses_restart_conversion(int npassive, bool metallicity) {
  KOSMO_REQUIRE(npassive >= 0, "hydro: npassive must not be negative, got " << npassive);
  io::CellVariableConversion conversion;
  for (const core::FieldInfo& field : primitive_fields<D>(npassive, metallicity)) conversion.file_variables.push_back({field.name, {}});
  // RAMSES names its passive scalars metallicity (with metal=.true.) and scalar_NN by position.
  for (int k = 0; k < npassive; ++k) conversion.file_variables[static_cast<std::size_t>(D + 2 + k)].other_names = {"metallicity", "scalar_*"};
  for (const core::FieldInfo& field : conservative_fields<D>(npassive, metallicity)) conversion.restart_fields.push_back(field.name);
  conversion.to_restart = [npassive](const double* file_values, double* restart_values, double gamma) {
    primitive_to_conservative_for_restart<D>(file_values, restart_values, npassive, gamma);
  };
  return conversion;
}

template io::CellVariableConversion ramses_restart_conversion<1>(int, bool);
template io::CellVariableConversion ramses_restart_conversion<2>(int, bool);
template io::CellVariableConversion ramses_restart_conversion<3>(int, bool);

}  // namespace kosmo::hydro
