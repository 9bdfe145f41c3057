#pragma once
// Counter-based random numbers (seeds/000 §10: "a deterministic, cell-index-seeded random number
// generator, which ensures that star formation stochasticity is independent of the domain
// decomposition and thread scheduling"). A stream is a pure function of its key: the key words
// (a cell's Morton key and level, the level step's time) are hashed into a 64-bit seed, and the
// n-th number of the stream is SplitMix64's output for seed + n * golden gamma (Steele, Lea &
// Flood 2014, "Fast splittable pseudorandom number generators"), so no state is kept between steps
// and no rank or thread enters it.
#include <cmath>
#include <cstdint>
#include <initializer_list>

namespace kosmo::star_formation {

// SplitMix64's finaliser (a bijection of 64-bit words with full avalanche).
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

class CounterRandom {
 public:
  static constexpr std::uint64_t gamma = 0x9E3779B97F4A7C15ULL;

  // The stream of the key words, in order (each word is mixed into the seed in turn).
  explicit CounterRandom(std::initializer_list<std::uint64_t> key) {
    std::uint64_t seed = 0x6A09E667F3BCC909ULL;  // any fixed odd constant (frac(sqrt 2))
    for (std::uint64_t word : key) seed = mix64(seed + gamma + word);
    seed_ = seed;
  }
  std::uint64_t next_word() { return mix64(seed_ + gamma * ++counter_); }
  // Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next_word() >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1): never 0, for logarithms.
  double open_uniform() { return (static_cast<double>(next_word() >> 11) + 0.5) * 0x1.0p-53; }

 private:
  std::uint64_t seed_ = 0;
  std::uint64_t counter_ = 0;
};

// A Poisson deviate of mean `mean` from the stream: inversion by sequential search for small means,
// Hörmann's transformed rejection with squeeze (PTRS; W. Hörmann 1993, "The transformed rejection
// method for generating Poisson random variables", Insurance: Math. Econ. 12, 39) from mean 10 on.
inline long long poisson_deviate(double mean, CounterRandom& random) {
  if (!(mean > 0.0)) return 0;
  if (mean < 10.0) {
    const double u = random.uniform();
    double p = std::exp(-mean), cumulative = p;
    long long k = 0;
    while (u >= cumulative && k < 1000) {
      ++k;
      p *= mean / static_cast<double>(k);
      cumulative += p;
    }
    return k;
  }
  const double root = std::sqrt(mean), log_mean = std::log(mean);
  const double b = 0.931 + 2.53 * root, a = -0.059 + 0.02483 * b;
  const double inverse_alpha = 1.1239 + 1.1328 / (b - 3.4), v_r = 0.9277 - 3.6224 / (b - 2.0);
  for (;;) {
    const double u = random.uniform() - 0.5, v = random.open_uniform();
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2.0 * a / us + b) * u + mean + 0.43);
    if (us >= 0.07 && v <= v_r) return static_cast<long long>(k);
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(inverse_alpha) - std::log(a / (us * us) + b) <= -mean + k * log_mean - std::lgamma(k + 1.0))
      return static_cast<long long>(k);
  }
}

}  // namespace kosmo::star_formation
