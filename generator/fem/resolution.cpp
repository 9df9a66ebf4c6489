#include "fem/resolution.hpp"

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>

namespace mesh2dsp {

double thickness_measure(const SurfaceMesh& mesh) {
  double area = 0;
  for (int f = 0; f < mesh.faces.rows(); ++f) {
    const Eigen::Vector3d a = mesh.vertices.row(mesh.faces(f, 0)),
                          b = mesh.vertices.row(mesh.faces(f, 1)),
                          c = mesh.vertices.row(mesh.faces(f, 2));
    area += 0.5 * (b - a).cross(c - a).norm();
  }
  return area > 0 ? 3.0 * std::abs(signed_volume(mesh)) / area : INFINITY;
}

double pressure_wave_speed_m_s(const Material& m) {
  return std::sqrt((lame_lambda(m) + 2 * lame_mu(m)) / m.density_kg_m3);
}

double shear_wave_speed_m_s(const Material& m) { return std::sqrt(lame_mu(m) / m.density_kg_m3); }

namespace {
double weyl_coefficient(double volume_m3, const Material& m) {
  const double cp = pressure_wave_speed_m_s(m), cs = shear_wave_speed_m_s(m);
  return 4.0 * M_PI / 3.0 * volume_m3 * (1.0 / (cp * cp * cp) + 2.0 / (cs * cs * cs));
}
}  // namespace

double weyl_mode_count(double volume_m3, const Material& m, double frequency_hz) {
  return weyl_coefficient(volume_m3, m) * frequency_hz * frequency_hz * frequency_hz;
}

double weyl_frequency_hz(double volume_m3, const Material& m, double mode_count) {
  return std::cbrt(mode_count / weyl_coefficient(volume_m3, m));
}

double sizing_frequency_hz(double volume_m3, const Material& m, int modes, double fmax_hz) {
  if (!(volume_m3 > 0) || modes < 1) return fmax_hz;
  return std::min(fmax_hz, kResolutionMargin * weyl_frequency_hz(volume_m3, m, modes));
}

}  // namespace mesh2dsp
