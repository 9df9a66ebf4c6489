// Radiation geometry (eqs. 3–5, 10, 11): triangle weights, visibility, delays, the splat and
// the stereo pair.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "radiation/radiation.hpp"
#include "fem/structured_box.hpp"

using namespace mesh2dsp;

TEST(Radiation, WeightIsAreaTimesCosOverDistanceAndDelayIsROverC) {
  Eigen::MatrixXd v(3, 3);
  v << 0, 0, 0, 1, 0, 0, 0, 1, 0;
  Eigen::MatrixXi f(1, 3);
  f << 0, 1, 2;
  const Eigen::Vector3d listener(1, 1, 2);
  const auto w = radiation_weights(v, f, listener);
  const Eigen::Vector3d centre(1.0 / 3, 1.0 / 3, 0);
  const double r = (listener - centre).norm();
  EXPECT_NEAR(w.weight_m[0], 0.5 * (2 / r) / r, 1e-12);  // a · cos θ / r, cos θ = z/r
  EXPECT_NEAR(w.delay_s[0], r / 343.0, 1e-15);
  // From behind, the triangle is not visible (cos θ < 0).
  EXPECT_EQ(radiation_weights(v, f, Eigen::Vector3d(0, 0, -1)).weight_m[0], 0.0);
}

TEST(Radiation, VisibilityByRayCastingOccludesFarFacesAndHiddenObjects) {
  // A cube: seen from +z, only the top face is visible (sides have cos θ = 0 at best).
  const TetMesh cube = structured_box({0, 0, 0}, {1, 1, 1}, 2, 2, 2);
  const Eigen::Vector3d above(0.5, 0.5, 5);
  const auto g = triangle_geometry(cube.vertices, cube.surface_faces);
  const auto vis = triangle_visibility(cube.vertices, cube.surface_faces, g, above);
  for (int k = 0; k < g.areas_m2.size(); ++k)
    EXPECT_EQ(vis[k] != 0, g.normals(k, 2) > 0.5) << "triangle " << k;
  // Two plates, one above the other: from below, the upper plate is hidden by the lower.
  const TetMesh top = structured_box({0, 0, 1}, {1, 1, 0.1}, 2, 2, 1);
  const TetMesh bottom = structured_box({-1, -1, 0}, {3, 3, 0.1}, 2, 2, 1);
  Eigen::MatrixXd vertices(top.vertices.rows() + bottom.vertices.rows(), 3);
  vertices << top.vertices, bottom.vertices;
  Eigen::MatrixXi faces(top.surface_faces.rows() + bottom.surface_faces.rows(), 3);
  faces << top.surface_faces, bottom.surface_faces.array() + static_cast<int>(top.vertices.rows());
  const auto g2 = triangle_geometry(vertices, faces);
  const auto below = triangle_visibility(vertices, faces, g2, Eigen::Vector3d(0.5, 0.5, -3));
  for (int k = 0; k < top.surface_faces.rows(); ++k) EXPECT_EQ(below[k], 0) << "upper triangle " << k;
  int visible_lower = 0;
  for (int k = top.surface_faces.rows(); k < faces.rows(); ++k) visible_lower += below[k];
  EXPECT_GT(visible_lower, 0);
}

TEST(Radiation, SplatConservesTheContributionAtItsArrivalTime) {
  AccumulationBuffer buffer(48000, 100);
  buffer.splat(40.3 / 48000, 2.0);
  const auto& s = buffer.samples();
  const double sum = std::accumulate(s.begin(), s.end(), 0.0);
  double centroid = 0;
  for (size_t i = 0; i < s.size(); ++i) centroid += i * s[i];
  EXPECT_NEAR(sum, 2.0, 1e-12);
  EXPECT_NEAR(centroid / sum, 40.3, 0.05);
  EXPECT_GT(s[40], s[42]);  // narrow: two samples wide
  EXPECT_LT(s[43], 0.01);
}

TEST(Radiation, StereoPairIs20cmApartPerpendicularToTheView) {
  const Eigen::Vector3d listener(0.1, 0.1, 0.5), target(0.1, 0.1, 0);
  const auto [left, right] = stereo_pair(listener, target);
  EXPECT_NEAR((right - left).norm(), 0.20, 1e-12);
  EXPECT_NEAR((right - left).dot(target - listener), 0.0, 1e-12);
  EXPECT_NEAR((0.5 * (left + right) - listener).norm(), 0.0, 1e-12);
}

TEST(Radiation, ModalGainIsLinearInTheShape) {
  const TetMesh box = structured_box({0, 0, 0}, {0.2, 0.2, 0.01}, 4, 4, 1);
  const auto w = radiation_weights(box.vertices, box.surface_faces, Eigen::Vector3d(0.1, 0.1, 0.5));
  Eigen::VectorXd shape = Eigen::VectorXd::Zero(3 * box.vertices.rows());
  for (int v = 0; v < box.vertices.rows(); ++v) shape[3 * v + 2] = 1;  // piston along +z
  const double gain = modal_listener_gain(box.vertices, box.surface_faces, shape, w);
  // Top face moving towards the listener: z · Σ a cos θ / r over the visible top.
  double expected = 0;
  const auto g = triangle_geometry(box.vertices, box.surface_faces);
  for (int k = 0; k < g.areas_m2.size(); ++k)
    if (g.normals(k, 2) > 0.5) expected += 415.0 * w.weight_m[k];
  EXPECT_NEAR(gain, expected, 1e-9 * std::abs(expected));
  EXPECT_NEAR(modal_listener_gain(box.vertices, box.surface_faces, 2 * shape, w), 2 * gain,
              1e-9 * std::abs(gain));
}
