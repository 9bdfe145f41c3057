#include "gravity/analytic_gravity.hpp"

namespace kosmo::gravity {

std::vector<double> analytic_parameters_in_code_units(int gravity_type, std::span<const double> gravity_params, double boxlen,
                                                      double units_length, double units_time) {
  std::vector<double> code(gravity_params.begin(), gravity_params.end());
  if (gravity_type != 3 && gravity_type != -3) return code;
  KOSMO_REQUIRE(code.size() >= 3, "gravity: gravity_type 3 needs gravity_params = (a1, a2, z0), got " << code.size() << " values");
  const double time_squared = units_time * units_time;
  code[0] = gravity_params[0] * kiloparsec_in_cm / (megayear_in_s * megayear_in_s) / units_length * time_squared;
  code[1] = gravity_params[1] / (megayear_in_s * megayear_in_s) * time_squared;
  code[2] = gravity_params[2] * parsec_in_cm / units_length;
  code.resize(4);
  code[3] = 0.5 * boxlen;
  return code;
}

}  // namespace kosmo::gravity
