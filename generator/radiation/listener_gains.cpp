#include "radiation/listener_gains.hpp"

#include <fmt/format.h>

#include <cmath>
#include <complex>

#include "radiation/radiation.hpp"
#include "util/progress.hpp"

namespace mesh2dsp {

ModalListener listener_gains(const TetMesh& tets, const Eigen::MatrixXd& shapes,
                             const Eigen::VectorXd& eigenvalues, const Eigen::Vector3d& position) {
  // The reference solver's own radiation model (O'Brien, Cook & Essl 2001, eq. 10, with visibility and the delay
  // of eq. 11), per mode: the pressure at the listener per unit modal velocity. For mode n at
  // ω the triangles' contributions arrive with their own delays, so they add as phasors
  //   Gₙ = Σₖ wₖ · z(φ̄ₖ·n̂ₖ) · exp(−iω(dₖ − d̄)),
  // d̄ the weighted mean delay (stored once as delay_s). A resonator bank carries one real
  // gain per mode, so the gain is |Gₙ| with the sign of the in-phase part: the spectrum and
  // decays at the listener are exact; only the phases between modes are dropped. (Summing
  // without the phase factor would make a free bar's bending modes, whose surface velocity
  // integrates to zero, near-silent at any distance.) Faces index corner nodes, which come
  // first in the shapes.
  const RadiationWeights weights = radiation_weights(tets.vertices, tets.surface_faces, position);
  const TriangleGeometry geometry = triangle_geometry(tets.vertices, tets.surface_faces);
  ModalListener listener;
  listener.position = position;
  const double total = weights.weight_m.cwiseAbs().sum();
  listener.delay_s = total > 0 ? weights.weight_m.cwiseAbs().dot(weights.delay_s) / total : 0.0;
  if (total == 0)
    notice(fmt::format("the listener at ({}, {}, {}) sees none of the surface: its gains are zero",
                       position.x(), position.y(), position.z()));
  const Eigen::Index corner_dofs = 3 * tets.vertices.rows();
  for (int n = 0; n < shapes.cols(); ++n) {
    const double omega = std::sqrt(eigenvalues[n]);
    const Eigen::VectorXd pressure =
        triangle_pressure(tets.surface_faces, geometry, shapes.col(n).head(corner_dofs));
    std::complex<double> sum = 0;
    for (Eigen::Index k = 0; k < pressure.size(); ++k)
      sum += weights.weight_m[k] * pressure[k] *
             std::polar(1.0, -omega * (weights.delay_s[k] - listener.delay_s));
    listener.gains.push_back(sum.real() < 0 ? -std::abs(sum) : std::abs(sum));
  }
  return listener;
}

}  // namespace mesh2dsp
