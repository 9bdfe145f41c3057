#include "cosmology/layzer_irvine.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace kosmo::cosmology {

LayzerIrvine::Proper LayzerIrvine::proper(const EnergySample& code) {
  KOSMO_REQUIRE(code.aexp > 0.0, "Layzer-Irvine: expansion factor " << code.aexp << " is not positive");
  const double to_proper = 1.0 / (code.aexp * code.aexp);
  return {code.aexp, code.kinetic * to_proper, code.thermal * to_proper, code.potential * to_proper};
}

void LayzerIrvine::add(const EnergySample& code, double added_code) {
  const Proper now = proper(code);
  if (samples_ == 0) {
    first_ = now;
  } else {
    KOSMO_REQUIRE(now.aexp >= last_.aexp, "Layzer-Irvine: samples must come in order of expansion factor (" << now.aexp << " after "
                                                                                                      << last_.aexp << ")");
    const double da = now.aexp - last_.aexp;
    integral_ += 0.5 * da * (source(last_) + source(now));  // trapezoid rule
    integral_ -= (added_code - last_added_) / (0.5 * (last_.aexp + now.aexp));  // a dQ, dQ = dQ_code / a^2
    const double step = da / last_.aexp;
    step_measure_ += step * step;
    largest_step_ = std::max(largest_step_, step);
  }
  last_ = now;
  last_added_ = added_code;
  ++samples_;
}

double LayzerIrvine::normalisation() const {
  const double scale = last_.aexp * std::fabs(last_.potential);
  return scale > 0.0 ? scale : 1.0;
}

double LayzerIrvine::relative_residual() const {
  if (samples_ < 2) return 0.0;
  return (total_times_a(last_) - total_times_a(first_) + integral_) / normalisation();
}

double LayzerIrvine::relative_residual_without_integral() const {
  if (samples_ < 2) return 0.0;
  return (total_times_a(last_) - total_times_a(first_)) / normalisation();
}

}  // namespace kosmo::cosmology
