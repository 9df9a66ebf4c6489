#include "radiation/listener_gains.hpp"

#include <fmt/format.h>

#include <cmath>
#include <complex>

#include "fem/surface_mesh.hpp"
#include "modal/memory_estimate.hpp"
#include "modal/modal_analysis.hpp"
#include "radiation/bem.hpp"
#include "radiation/radiation.hpp"
#include "util/error.hpp"
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

void bem_radiation(ModalModel& model, const TetMesh& tets, const FemMesh& fem, const Eigen::MatrixXd& shapes,
                   const Eigen::VectorXd& eigenvalues) {
  // The analysis surface: the tet mesh's boundary triangles, curved through their P2 edge nodes
  // (which the FEM mesh places on the input surface) when the elements are quadratic. Not
  // coarsened: the solve runs on the surface as meshed.
  Eigen::MatrixXi faces = tets.surface_faces;
  // Outward normals are the solve's convention: a surface whose enclosed volume comes out
  // negative is oriented inwards, and is turned.
  if (signed_volume(SurfaceMesh{tets.vertices, faces}) < 0) faces.col(1).swap(faces.col(2));
  const Eigen::VectorXi edge_nodes = face_edge_nodes(fem, faces);
  Eigen::MatrixXd edge_points(edge_nodes.size(), 3);
  for (Eigen::Index r = 0; r < edge_nodes.size(); ++r) edge_points.row(r) = fem.nodes.row(edge_nodes[r]);
  // The dense system: F² single-precision complex entries (8 bytes each) and GMRES's 200 basis
  // vectors (16 bytes an entry). Refused up front rather than failing to allocate half-way.
  const double bytes = 8.0 * faces.rows() * faces.rows() + 16.0 * faces.rows() * 201.0;
  const double available = available_memory_bytes();
  if (available > 0 && bytes > 0.8 * available)
    throw Error(fmt::format("--radiation bem: the boundary-element solve of {} surface triangles needs "
                            "{} of memory, and {} is available: use --radiation obrien, or a coarser "
                            "surface (--surface-edge)",
                            faces.rows(), format_bytes(bytes), format_bytes(available)));
  // A boundary triangle its edge nodes would fold (the FEM straightens edges that fold a
  // tetrahedron, not every such face) is solved flat rather than stopping the analysis.
  const BemSurface surface = bem_surface(tets.vertices, faces, edge_points, true);
  if (surface.straightened > 0)
    notice(fmt::format("--radiation bem: {} curved boundary triangles folded by their edge nodes are solved flat",
                       surface.straightened));
  // The directivity's origin: the surface's area-weighted centre; its radius: the farthest
  // vertex from there (for the expansion's order).
  const Eigen::VectorXd& areas = surface.geometry.areas_m2;
  const Eigen::Vector3d centre =
      (surface.geometry.centres.transpose() * areas) / std::max(areas.sum(), 1e-300);
  double radius_m = 0;
  for (Eigen::Index f = 0; f < faces.rows(); ++f)
    for (int c = 0; c < 3; ++c)
      radius_m = std::max(radius_m, (Eigen::Vector3d(tets.vertices.row(faces(f, c))) - centre).norm());
  model.analysis.radiation = "bem";
  model.analysis.radiation_centre_m = centre;
  const Eigen::Index corner_dofs = 3 * tets.vertices.rows();
  Eigen::MatrixXd positions(model.listeners.size(), 3);
  for (size_t l = 0; l < model.listeners.size(); ++l) {
    positions.row(l) = model.listeners[l].position.transpose();
    // One delay per listener: the path from the centre. What the surface's extent adds to the
    // path stays in each mode's complex pressure.
    model.listeners[l].delay_s = (model.listeners[l].position - centre).norm() / kSpeedOfSoundMS;
    model.listeners[l].gains.assign(shapes.cols(), 0.0);
    model.listeners[l].pressure.assign(shapes.cols(), 0.0);
  }
  const int n_modes = static_cast<int>(shapes.cols());
  Progress bar(fmt::format("radiation ({} boundary elements)", faces.rows()));
  const auto frequency_hz = [&eigenvalues](int n) { return frequency_hz_of_eigenvalue(eigenvalues[n]); };
  BemSolver solver(surface);  // one matrix's memory for all the solves
  for (int first = 0; first < n_modes;) {
    // Modes within 0.1 % in frequency (the pairs of an axisymmetric object, which differ by
    // round-off) share one solve at their mean frequency: one matrix, several right-hand sides.
    int end = first + 1;
    while (end < n_modes && std::abs(frequency_hz(end) / frequency_hz(first) - 1) < 1e-3) ++end;
    double mean_hz = 0;
    Eigen::MatrixXcd velocities(faces.rows(), end - first);
    for (int n = first; n < end; ++n) {
      mean_hz += frequency_hz(n) / (end - first);
      // Normal velocity per triangle per unit modal velocity at its collocation point: on a
      // quadratic mesh the P2 field there (the reference centroid: corners −1/9, edge nodes
      // 4/9 each); on a linear one the mean of the corners' (eq. 5 of the O'Brien weights with
      // unit impedance).
      if (edge_nodes.size() > 0) {
        for (Eigen::Index j = 0; j < faces.rows(); ++j) {
          Eigen::Vector3d v = Eigen::Vector3d::Zero();
          for (int e = 0; e < 3; ++e)
            v += (4.0 / 9) * shapes.col(n).segment<3>(3 * edge_nodes[3 * j + e]) -
                 (1.0 / 9) * shapes.col(n).segment<3>(3 * faces(j, e));
          velocities(j, n - first) = v.dot(surface.geometry.normals.row(j).transpose());
        }
      } else {
        velocities.col(n - first) =
            triangle_pressure(faces, surface.geometry, shapes.col(n).head(corner_dofs), 1.0)
                .cast<std::complex<double>>();
      }
    }
    const std::vector<BemSolution> solutions = solver.solve(mean_hz, velocities);
    for (int n = first; n < end; ++n) {
      const BemSolution& solution = solutions[n - first];
      const double k = solution.wavenumber_rad_m;
      if (positions.rows() > 0) {
        const Eigen::VectorXcd pressure = bem_field_pressure(surface, solution, positions);
        for (size_t l = 0; l < model.listeners.size(); ++l) {
          auto& listener = model.listeners[l];
          listener.pressure[n] = pressure[static_cast<Eigen::Index>(l)];
          // The generated code gives each mode one real gain after the listener's delay: the
          // pressure with the propagation phase e^{ikr} of the delay's path taken out, as its
          // magnitude signed by the in-phase part. What is lost is the residual phase (kept in
          // `pressure`), i.e. the modes' relative phases at the listener; levels and decays stay.
          const std::complex<double> local = pressure[static_cast<Eigen::Index>(l)] *
                                             std::polar(1.0, -k * kSpeedOfSoundMS * listener.delay_s);
          listener.gains[n] = local.real() < 0 ? -std::abs(local) : std::abs(local);
        }
      }
      if (n < static_cast<int>(model.modes.size())) {
        const int order = directivity_order(k, radius_m);
        const Directivity d = bem_directivity(surface, solution, order, centre);
        model.modes[n].directivity_order = order;
        model.modes[n].directivity.assign(d.coefficients.data(),
                                          d.coefficients.data() + d.coefficients.size());
      }
    }
    bar.update(double(end) / n_modes, fmt::format("mode {} of {}", end, n_modes));
    first = end;
  }
  bar.finish();
}

}  // namespace mesh2dsp
