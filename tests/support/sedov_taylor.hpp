#pragma once
// The Sedov-Taylor point blast in a uniform, cold medium (Sedov 1959, ch. IV; Kamm & Timmes 2007,
// LA-UR-07-2849, the "standard" case): the exact self-similar solution behind a strong shock, for
// planar (D = 1), cylindrical (D = 2) and spherical (D = 3) symmetry, to compare hydro runs against.
//
// With lambda = r / R(t), R = xi0 (E t^2 / rho0)^(1 / (D + 2)) and Rdot = 2 R / ((D + 2) t):
//   rho = rho0 G(lambda),  v = Rdot U(lambda),  p = rho0 Rdot^2 P(lambda).
// G, U, P solve the similarity ODEs from the strong-shock (Rankine-Hugoniot) values at lambda = 1,
// G = (gamma + 1) / (gamma - 1), U = P = 2 / (gamma + 1), inward to lambda = 2e-9 (RK4 in ln lambda),
// with U taken from Sedov's exact energy integral (G U^2 / 2 + P / (gamma - 1)) (lambda - U) = P U,
// which keeps the integration stable where the density vanishes; below that the solution is its
// asymptote (U = lambda / gamma, P constant, G a power of lambda). xi0 follows from the energy
//   E = sigma_D rho0 Rdot^2 R^D  int_0^1 (G U^2 / 2 + P / (gamma - 1)) lambda^(D-1) dlambda,
// sigma = 2 (planar: both sides of the plane), 2 pi, 4 pi. E is the energy of the whole blast: per
// unit area in the planar case (Kamm & Timmes and ExactPack count one side, half of this E), per
// unit length in the cylindrical case. Profiles are cubic Hermite interpolants of the tabulated
// solution; relative accuracy ~1e-9.
#include <vector>

namespace kosmo::test_support {

class SedovTaylor {
 public:
  struct State {
    double density = 0.0;
    double velocity = 0.0;  // radial, away from the blast centre
    double pressure = 0.0;
  };

  // Throws kosmo::Error unless dimension is 1, 2 or 3, gamma > 1, rho0 > 0 and energy > 0.
  SedovTaylor(int dimension, double gamma, double rho0, double energy);

  int dimension() const { return dimension_; }
  double gamma() const { return gamma_; }
  double rho0() const { return rho0_; }
  double energy() const { return energy_; }

  // Dimensionless shock position: R(t) = xi0 (E t^2 / rho0)^(1 / (D + 2)).
  double xi0() const { return xi0_; }
  double shock_radius(double t) const;
  double shock_speed(double t) const;  // dR/dt
  // Time at which the shock reaches radius R.
  double time_at_radius(double radius) const;

  // The gas at distance r >= 0 from the blast centre at time t > 0; beyond the shock the ambient
  // medium (rho0, at rest, zero pressure). At r = R the post-shock state.
  State state(double r, double t) const;
  // The dimensionless profiles G, U, P at lambda = r / R in [0, 1].
  State similarity(double lambda) const;

 private:
  struct Node {
    double ln_g, ln_p, u;     // at s = ln(lambda) = -k h
    double dln_g, dln_p, du;  // their derivatives with respect to s
  };
  Node derivatives(double s, double ln_g, double ln_p, double u_guess) const;

  int dimension_;
  double gamma_, rho0_, energy_;
  double xi0_ = 0.0;
  std::vector<Node> table_;
};

}  // namespace kosmo::test_support
