#include "fem/surface_shells.hpp"

#include <CGAL/Polygon_mesh_processing/self_intersections.h>
#include <fmt/format.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <iterator>
#include <numbers>
#include <numeric>
#include <string>
#include <vector>

#include "fem/cgal_surface.hpp"
#include "fem/disjoint_sets.hpp"
#include "util/error.hpp"

namespace mesh2dsp {

namespace {

struct Shell {
  int first_face = -1;
  int faces = 0;
  int vertex = -1;  // one of its vertices
  double volume_m3 = 0;
  Eigen::AlignedBox3d box;
};

std::string name(const std::vector<Shell>& shells, int s) {
  const auto& sh = shells[static_cast<std::size_t>(s)];
  const Eigen::Vector3d c = sh.box.center();
  return fmt::format("shell {} ({} faces from face {}, centred at ({:.4g}, {:.4g}, {:.4g}) m)",
                     s + 1, sh.faces, sh.first_face, c.x(), c.y(), c.z());
}

// Winding number of shell `faces` (closed) at p: ±1 inside, 0 outside (Van Oosterom &
// Strackee's solid angle of each triangle, summed).
double winding_number(const SurfaceMesh& mesh, const std::vector<int>& faces,
                      const Eigen::Vector3d& p) {
  const auto& V = mesh.vertices;
  const auto& F = mesh.faces;
  double omega = 0;
  for (const int f : faces) {
    const Eigen::Vector3d a = V.row(F(f, 0)).transpose() - p, b = V.row(F(f, 1)).transpose() - p,
                          c = V.row(F(f, 2)).transpose() - p;
    const double la = a.norm(), lb = b.norm(), lc = c.norm();
    omega += 2 * std::atan2(a.dot(b.cross(c)),
                            la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la);
  }
  return omega / (4 * std::numbers::pi);
}

}  // namespace

ShellReport check_shells(const SurfaceMesh& mesh) {
  ShellReport report;
  const auto& V = mesh.vertices;
  const auto& F = mesh.faces;
  const Eigen::Index nv = V.rows(), nf = F.rows();

  // Shells: the connected components of the faces, numbered by their first face.
  DisjointSets sets(static_cast<std::size_t>(nv));
  for (Eigen::Index f = 0; f < nf; ++f)
    for (int k = 1; k < 3; ++k) sets.unite(F(f, k), F(f, 0));
  std::vector<int> shell_of_root(static_cast<std::size_t>(nv), -1);
  std::vector<int> shell_of_face(static_cast<std::size_t>(nf));
  std::vector<Shell> shells;
  const Eigen::RowVector3d o = 0.5 * (V.colwise().maxCoeff() + V.colwise().minCoeff());
  for (Eigen::Index f = 0; f < nf; ++f) {
    int& s = shell_of_root[static_cast<std::size_t>(sets.find(F(f, 0)))];
    if (s < 0) {
      s = static_cast<int>(shells.size());
      shells.push_back({static_cast<int>(f), 0, F(f, 0), 0, {}});
    }
    shell_of_face[static_cast<std::size_t>(f)] = s;
    auto& sh = shells[static_cast<std::size_t>(s)];
    ++sh.faces;
    const Eigen::Vector3d a = V.row(F(f, 0)) - o, b = V.row(F(f, 1)) - o, c = V.row(F(f, 2)) - o;
    sh.volume_m3 += a.dot(b.cross(c)) / 6;
    for (int k = 0; k < 3; ++k) sh.box.extend(V.row(F(f, k)).transpose());
  }
  report.shells = static_cast<int>(shells.size());
  if (shells.size() < 2) return report;

  // Faces of shells whose boxes overlap another shell's box: only these can cross.
  const double diag = (V.colwise().maxCoeff() - V.colwise().minCoeff()).norm();
  const double pad = 1e-9 * diag;
  auto padded = [&](const Eigen::AlignedBox3d& b) {
    return Eigen::AlignedBox3d(b.min().array() - pad, b.max().array() + pad);
  };
  std::vector<bool> may_touch(shells.size(), false);
  for (std::size_t s = 0; s < shells.size(); ++s)
    for (std::size_t t = s + 1; t < shells.size(); ++t)
      if (padded(shells[s].box).intersects(shells[t].box)) may_touch[s] = may_touch[t] = true;
  if (std::find(may_touch.begin(), may_touch.end(), true) != may_touch.end()) {
    const cgal::Mesh m = cgal::to_cgal(mesh);
    std::vector<cgal::Mesh::Face_index> candidates;
    for (auto f : m.faces())
      if (may_touch[static_cast<std::size_t>(shell_of_face[f.idx()])]) candidates.push_back(f);
    std::vector<std::pair<cgal::Mesh::Face_index, cgal::Mesh::Face_index>> crossing;
    CGAL::Polygon_mesh_processing::self_intersections(candidates, m, std::back_inserter(crossing));
    for (const auto& [f, g] : crossing) {
      const int s = shell_of_face[f.idx()], t = shell_of_face[g.idx()];
      if (s == t) continue;  // a shell crossing itself: TetGen names it
      const Eigen::Vector3d p = V.row(F(static_cast<Eigen::Index>(f.idx()), 0));
      throw Error(fmt::format(
          "surface mesh: {} and {} intersect or touch (faces {} and {}, near ({:.4g}, {:.4g}, "
          "{:.4g}) m): overlapping shells are not one solid; join them into one closed surface "
          "or move them apart",
          name(shells, std::min(s, t)), name(shells, std::max(s, t)), std::min(f.idx(), g.idx()),
          std::max(f.idx(), g.idx()), p.x(), p.y(), p.z()));
    }
  }

  // Nesting, from the winding number of the other shells at one vertex of each shell (no shell
  // crosses another now, so each contributes exactly 0 or ±1): the material around an outward
  // shell must be 0 (a separate body, or one in a cavity), around an inward one 1 (a cavity).
  std::vector<std::vector<int>> faces_of(shells.size());
  for (Eigen::Index f = 0; f < nf; ++f)
    faces_of[static_cast<std::size_t>(shell_of_face[static_cast<std::size_t>(f)])].push_back(
        static_cast<int>(f));
  std::vector<int> bodies;
  for (std::size_t s = 0; s < shells.size(); ++s) {
    const Eigen::Vector3d p = V.row(shells[s].vertex);
    double material = 0;
    int innermost = -1;  // the smallest shell containing p
    for (std::size_t t = 0; t < shells.size(); ++t) {
      if (t == s || !padded(shells[t].box).contains(p)) continue;
      const double w = winding_number(mesh, faces_of[t], p);
      if (std::abs(w) < 0.5) continue;
      material += w;
      if (innermost < 0 ||
          std::abs(shells[t].volume_m3) < std::abs(shells[static_cast<std::size_t>(innermost)].volume_m3))
        innermost = static_cast<int>(t);
    }
    const long long around = std::lround(material);
    const bool inward = shells[s].volume_m3 < 0;
    if (inward && around == 0)
      throw RepairableSurfaceError(fmt::format(
          "surface mesh: inconsistent orientation: the closed shell containing vertex {} is "
          "inside out (its faces point inwards, volume {:.3g} m³) but is not a cavity inside the "
          "rest of the object ({})",
          shells[s].vertex, shells[s].volume_m3, name(shells, static_cast<int>(s))));
    // An outward shell just inside material is most often a cavity exported with outward
    // faces: --repair orients it as one (CGAL's orient_to_bound_a_volume).
    if (!inward && around == 1)
      throw RepairableSurfaceError(fmt::format(
          "surface mesh: {} lies inside the material of {}: overlapping shells are not one solid; "
          "if it is a cavity, its faces must point into it",
          name(shells, static_cast<int>(s)), name(shells, innermost)));
    if (around != (inward ? 1 : 0))
      throw Error(fmt::format(
          "surface mesh: {} lies inside the material of {} ({} layers deep): overlapping shells "
          "are not one solid",
          name(shells, static_cast<int>(s)), name(shells, innermost), around));
    if (!inward) bodies.push_back(static_cast<int>(s));
  }
  if (bodies.size() > 1) {
    std::string list;
    for (std::size_t k = 0; k < bodies.size() && k < 4; ++k)
      list += (k ? ", " : "") + name(shells, bodies[k]);
    if (bodies.size() > 4) list += fmt::format(" and {} more", bodies.size() - 4);
    report.bodies_notice = fmt::format(
        "the mesh holds {} separate bodies that touch nothing ({}); they are analysed together "
        "as one model: each has its own 6 rigid-body modes, and the modes of all are listed "
        "together",
        bodies.size(), list);
  }
  report.bodies = static_cast<int>(bodies.size());
  return report;
}

}  // namespace mesh2dsp
