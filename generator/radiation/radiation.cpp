#include "radiation/radiation.hpp"

#include <algorithm>
#include <cmath>

namespace mesh2dsp {

TriangleGeometry triangle_geometry(const Eigen::MatrixXd& vertices, const Eigen::MatrixXi& faces) {
  const int n = static_cast<int>(faces.rows());
  TriangleGeometry g;
  g.centres.resize(n, 3);
  g.normals.resize(n, 3);
  g.areas_m2.resize(n);
  for (int k = 0; k < n; ++k) {
    const Eigen::Vector3d x1 = vertices.row(faces(k, 0)), x2 = vertices.row(faces(k, 1)),
                          x3 = vertices.row(faces(k, 2));
    const Eigen::Vector3d cross = (x2 - x1).cross(x3 - x1);
    const double twice_area = cross.norm();
    g.areas_m2[k] = 0.5 * twice_area;                                    // eq. 3
    g.normals.row(k) = twice_area > 0 ? Eigen::Vector3d(cross / twice_area)  // eq. 4
                                      : Eigen::Vector3d::Zero();
    g.centres.row(k) = (x1 + x2 + x3) / 3.0;
  }
  return g;
}

namespace {

// Möller–Trumbore: does the segment origin + s·direction, s ∈ (0, 1), cross the triangle?
bool segment_hits_triangle(const Eigen::Vector3d& origin, const Eigen::Vector3d& direction,
                           const Eigen::Vector3d& a, const Eigen::Vector3d& b,
                           const Eigen::Vector3d& c) {
  const Eigen::Vector3d e1 = b - a, e2 = c - a;
  const Eigen::Vector3d p = direction.cross(e2);
  const double det = e1.dot(p);
  if (std::abs(det) < 1e-300) return false;  // parallel
  const double inv = 1.0 / det;
  const Eigen::Vector3d s = origin - a;
  const double u = s.dot(p) * inv;
  if (u < 0 || u > 1) return false;
  const Eigen::Vector3d q = s.cross(e1);
  const double v = direction.dot(q) * inv;
  if (v < 0 || u + v > 1) return false;
  const double t = e2.dot(q) * inv;
  return t > 0 && t < 1;
}

}  // namespace

std::vector<char> triangle_visibility(const Eigen::MatrixXd& vertices, const Eigen::MatrixXi& faces,
                                      const TriangleGeometry& g, const Eigen::Vector3d& listener) {
  const int n = static_cast<int>(faces.rows());
  std::vector<char> visible(n, 0);
  if (n == 0) return visible;
  // Nudge ray origins off the surface by a tiny fraction of the object's size so that the
  // triangle itself and its neighbours are not hit through round-off.
  const double size = (vertices.colwise().maxCoeff() - vertices.colwise().minCoeff()).norm();
  const double nudge = 1e-7 * size;
  // Per-triangle bounding boxes for a cheap rejection before the exact test.
  Eigen::MatrixXd lo(n, 3), hi(n, 3);
  for (int k = 0; k < n; ++k)
    for (int c = 0; c < 3; ++c) {
      const double a = vertices(faces(k, 0), c), b = vertices(faces(k, 1), c), d = vertices(faces(k, 2), c);
      lo(k, c) = std::min({a, b, d});
      hi(k, c) = std::max({a, b, d});
    }
#pragma omp parallel for schedule(dynamic, 16)
  for (int k = 0; k < n; ++k) {
    const Eigen::Vector3d normal = g.normals.row(k);
    const Eigen::Vector3d origin = g.centres.row(k).transpose() + nudge * normal;
    const Eigen::Vector3d direction = listener - origin;
    if (!(normal.dot(direction) > 0)) continue;  // listener behind the triangle: cos θ ≤ 0
    const Eigen::Vector3d seg_lo = origin.cwiseMin(listener), seg_hi = origin.cwiseMax(listener);
    bool blocked = false;
    for (int j = 0; j < n && !blocked; ++j) {
      if (j == k) continue;
      if ((lo.row(j).transpose().array() > seg_hi.array()).any() ||
          (hi.row(j).transpose().array() < seg_lo.array()).any())
        continue;
      blocked = segment_hits_triangle(origin, direction, vertices.row(faces(j, 0)),
                                      vertices.row(faces(j, 1)), vertices.row(faces(j, 2)));
    }
    visible[k] = blocked ? 0 : 1;
  }
  return visible;
}

RadiationWeights radiation_weights(const TriangleGeometry& g, const std::vector<char>& visible,
                                   const Eigen::Vector3d& listener, double speed_of_sound_m_s) {
  const int n = static_cast<int>(g.areas_m2.size());
  RadiationWeights w;
  w.weight_m = Eigen::VectorXd::Zero(n);
  w.delay_s.resize(n);
  w.visible = visible;
  for (int k = 0; k < n; ++k) {
    const Eigen::Vector3d to_listener = listener - g.centres.row(k).transpose();
    const double r = to_listener.norm();
    w.delay_s[k] = r / speed_of_sound_m_s;  // eq. 11
    if (!visible[k] || r <= 0) continue;
    const double cos_theta = g.normals.row(k).dot(to_listener) / r;
    if (cos_theta <= 0) continue;
    w.weight_m[k] = g.areas_m2[k] * cos_theta / r;  // eq. 10 without p̃
  }
  return w;
}

RadiationWeights radiation_weights(const Eigen::MatrixXd& vertices, const Eigen::MatrixXi& faces,
                                   const Eigen::Vector3d& listener, const std::vector<char>* visible,
                                   double speed_of_sound_m_s) {
  const TriangleGeometry g = triangle_geometry(vertices, faces);
  if (visible) return radiation_weights(g, *visible, listener, speed_of_sound_m_s);
  return radiation_weights(g, triangle_visibility(vertices, faces, g, listener), listener,
                           speed_of_sound_m_s);
}

Eigen::VectorXd triangle_pressure(const Eigen::MatrixXi& faces, const TriangleGeometry& g,
                                  const Eigen::VectorXd& velocity, double impedance) {
  const int n = static_cast<int>(faces.rows());
  Eigen::VectorXd p(n);
  for (int k = 0; k < n; ++k) {
    Eigen::Vector3d mean = Eigen::Vector3d::Zero();
    for (int i = 0; i < 3; ++i) mean += velocity.segment<3>(3 * faces(k, i));
    p[k] = impedance * (mean / 3.0).dot(g.normals.row(k).transpose());  // eq. 5
  }
  return p;
}

double pressure_at_listener(const Eigen::VectorXd& pressure_pa, const RadiationWeights& w) {
  return w.weight_m.dot(pressure_pa);
}

double modal_listener_gain(const Eigen::MatrixXd& vertices, const Eigen::MatrixXi& faces,
                           const Eigen::VectorXd& mode_shape, const RadiationWeights& weights,
                           double impedance) {
  const TriangleGeometry g = triangle_geometry(vertices, faces);
  return pressure_at_listener(triangle_pressure(faces, g, mode_shape, impedance), weights);
}

AccumulationBuffer::AccumulationBuffer(double sample_rate_hz, int samples)
    : sample_rate_hz_(sample_rate_hz), samples_(std::max(0, samples), 0.0) {}

AccumulationBuffer::Kernel AccumulationBuffer::kernel(double delay_s) const {
  // Gaussian with σ = 0.5 samples over six samples around the arrival, weights normalised to
  // sum 1 so the splat conserves the contribution whatever the fractional position (§3.3:
  // "a narrow (two samples wide) Gaussian").
  constexpr double kSigma = 0.5;
  const double position = delay_s * sample_rate_hz_;
  const int centre = static_cast<int>(std::floor(position));
  Kernel k;
  k.offset = centre - 2;
  double sum = 0;
  for (int i = 0; i < 6; ++i) {
    const double x = (centre - 2 + i) - position;
    k.weights[i] = std::exp(-0.5 * x * x / (kSigma * kSigma));
    sum += k.weights[i];
  }
  for (double& w : k.weights) w /= sum;
  return k;
}

void AccumulationBuffer::splat(double time_s, double value) { add(0, kernel(time_s), value); }

std::pair<Eigen::Vector3d, Eigen::Vector3d> stereo_pair(const Eigen::Vector3d& listener,
                                                        const Eigen::Vector3d& target,
                                                        double separation) {
  Eigen::Vector3d view = target - listener;
  if (view.norm() == 0) view = Eigen::Vector3d(0, 0, -1);
  view.normalize();
  Eigen::Vector3d up(0, 1, 0);
  if (std::abs(view.dot(up)) > 0.99) up = Eigen::Vector3d(0, 0, 1);
  const Eigen::Vector3d right = view.cross(up).normalized();
  return {listener - 0.5 * separation * right, listener + 0.5 * separation * right};
}

}  // namespace mesh2dsp
