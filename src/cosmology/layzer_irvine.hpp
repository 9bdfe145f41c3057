#pragma once
// The Layzer-Irvine cosmic energy equation, the conservation check of a cosmological run
// (docs/cosmology.md, "Energy conservation: Layzer-Irvine"). For collisionless matter and an ideal
// gas in an expanding background, with K the peculiar kinetic energy, U the thermal energy and W the
// potential energy of the density fluctuations, all proper (Peebles 1980 §24; Kravtsov, Klypin &
// Khokhlov 1997 eq. 18 with the gas term):
//     d/da [a (K + U + W)] = -(K + (3 gamma - 4) U),
// so that
//     R(a) = a (K + U + W) - a_0 (K_0 + U_0 + W_0) + integral_{a_0}^{a} (K + (3 gamma - 4) U) da'
// vanishes for the exact solution. The integral is accumulated with the trapezoid rule over the
// samples handed in (one per coarse step). R is reported relative to a |W| at the latest sample.
// Energy the modules add to the box or take from it (cooling, supernovae, star formation, the
// pressure fix: the step log's account, docs/galaxy.md "Energy accounting"), dQ proper, enters as
//     d/da [a (K + U + W)] = -(K + (3 gamma - 4) U) + a dQ/da,
// so R also subtracts the sum of a dQ over the samples: dQ_code / a at the interval's mean a.
//
// kosmo's code units are RAMSES' super-comoving ones (cosmological_model.hpp): a code velocity is
// a times the proper peculiar velocity up to a constant, so the proper energies are the code
// energies divided by a^2 (the constant cancels in the ratio). Pure arithmetic: no MPI, no mesh.

namespace kosmo::cosmology {

// The energies of one sample, in code units (super-comoving), over the whole box.
struct EnergySample {
  double aexp = 0.0;
  double kinetic = 0.0;    // gas and particles, code velocities
  double thermal = 0.0;    // gas internal energy
  double potential = 0.0;  // (1/2) sum m phi of the fluctuation potential
};

class LayzerIrvine {
 public:
  explicit LayzerIrvine(double gamma) : thermal_weight_(3.0 * gamma - 4.0) {}

  // Adds a sample at a later expansion factor than the previous one (the first sets a_0).
  // added_code: the code energy the modules have added since the start (cumulative).
  void add(const EnergySample& code, double added_code = 0.0);

  bool started() const { return samples_ > 0; }
  // R / (a |W|) at the latest sample; 0 before two samples.
  double relative_residual() const;
  // The same with the integral left out (what a diagnostic missing the d/da [a(K+U+W)] source
  // would report): a test of the accumulator's sensitivity, printed at the end of a run.
  double relative_residual_without_integral() const;
  // sum over samples of (Delta a / a)^2: the trapezoid rule's accumulated error and that of the
  // step-lagged potential energy scale with it (docs/cosmology.md states the bound).
  double step_measure() const { return step_measure_; }
  // Largest Delta a / a of one interval so far.
  double largest_step() const { return largest_step_; }
  // The bound |relative_residual()| stays below for a correct run (docs/cosmology.md says why):
  // first order in the coarse step, max(Delta a / a). The samples are taken where the coarse
  // potential is fresh, but the finer levels' potential is that of their last substep and the
  // leapfrog's kinetic energy is synchronised to first order, each an error of order Delta a / a
  // of a |W| per step, while the trapezoid rule's own error is of order (Delta a / a)^2.
  double bound() const { return largest_step_; }

 private:
  struct Proper {
    double aexp, kinetic, thermal, potential;
  };
  static Proper proper(const EnergySample& code);
  double source(const Proper& p) const { return p.kinetic + thermal_weight_ * p.thermal; }
  double total_times_a(const Proper& p) const { return p.aexp * (p.kinetic + p.thermal + p.potential); }
  double normalisation() const;

  double thermal_weight_;
  long long samples_ = 0;
  Proper first_{}, last_{};
  double last_added_ = 0.0;
  double integral_ = 0.0;
  double step_measure_ = 0.0;
  double largest_step_ = 0.0;
};

}  // namespace kosmo::cosmology
