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

double plate_bending_wavelength_m(const Material& m, double thickness_m, double frequency_hz) {
  const double nu = m.poisson_ratio;
  const double c_pl = std::sqrt(m.youngs_modulus_pa / (m.density_kg_m3 * (1 - nu * nu)));
  return std::sqrt(2 * M_PI * c_pl * thickness_m / (std::sqrt(12.0) * frequency_hz));
}

namespace {
// min(λ_s/3, max(walls·wall, λ_b(wall)/edges_per_bending_wavelength)): the two rules' shape.
double wall_edge_length(const Material& m, double frequency_hz, double wall_m, double walls,
                        double edges_per_bending_wavelength) {
  const double shear_wavelength_m = shear_wave_speed_m_s(m) / frequency_hz;
  const double through_thickness_m =
      std::max(walls * wall_m, plate_bending_wavelength_m(m, wall_m, frequency_hz) / edges_per_bending_wavelength);
  return std::min(shear_wavelength_m / 3.0, through_thickness_m);
}
}  // namespace

double element_edge_length(const Material& m, double frequency_hz, double wall_m) {
  return wall_edge_length(m, frequency_hz, wall_m, 0.75, 14.0);
}

double cubic_wall_edge_length(const Material& m, double frequency_hz, double wall_m) {
  return wall_edge_length(m, frequency_hz, wall_m, kCubicEdgePerWall, kCubicEdgesPerBendingWavelength);
}

double default_edge_length(const SurfaceMesh& surface, const Material& m, double frequency_hz) {
  // 3V/A is 1.5 × the wall of a plate or shell.
  return element_edge_length(m, frequency_hz, 2.0 / 3.0 * thickness_measure(surface));
}

double default_max_tet_volume(const SurfaceMesh& surface, const Material& m, double frequency_hz) {
  const double edge_m = default_edge_length(surface, m, frequency_hz);
  return edge_m * edge_m * edge_m / (6.0 * std::sqrt(2.0));
}

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

double reproducible_frequency_hz(double measured_hz) {
  if (!(measured_hz > 0) || !std::isfinite(measured_hz)) return measured_hz;
  const double unit = std::pow(10.0, std::floor(std::log10(measured_hz)) - 5);
  return std::round(measured_hz / unit) * unit;
}

}  // namespace mesh2dsp
