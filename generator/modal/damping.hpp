#pragma once
// Rayleigh damping per mode (Hiner 2024, §2.2): ξ = ½(α/ω + β·ω), T60 = ln(1000)/(ξ·ω).
// (Mesh2Faust divides by ξ·f instead of ξ·ω, which makes its T60s 2π too long.)
#include <cmath>

namespace mesh2dsp {

inline double rayleigh_damping_ratio(double rayleigh_mass_per_s, double rayleigh_stiffness_s,
                                     double omega_rad_s) {
  return 0.5 * (rayleigh_mass_per_s / omega_rad_s + rayleigh_stiffness_s * omega_rad_s);
}

// Time for the mode's amplitude envelope exp(−ξωt) to fall by 60 dB. Infinite when undamped.
inline double t60_seconds(double damping_ratio, double omega_rad_s) {
  const double decay_rate = damping_ratio * omega_rad_s;
  return decay_rate > 0 ? std::log(1000.0) / decay_rate : INFINITY;
}

}  // namespace mesh2dsp
