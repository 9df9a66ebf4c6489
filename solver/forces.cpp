#include "forces.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "fem/surface_mesh.hpp"
#include "modal/excitation.hpp"
#include "util/error.hpp"

namespace mesh2dsp {
namespace {

bool read_number(std::string text, double& value) {
  const auto b = text.find_first_not_of(" \t"), e = text.find_last_not_of(" \t");
  if (b == std::string::npos) return false;
  text = text.substr(b, e - b + 1);
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && ptr == text.data() + text.size() && std::isfinite(value);
}

Eigen::Vector3d parse_vector(const std::string& text, const std::string& what) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) parts.push_back(item);
  Eigen::Vector3d v;
  if (parts.size() != 3 || !read_number(parts[0], v.x()) || !read_number(parts[1], v.y()) ||
      !read_number(parts[2], v.z()))
    throw Error(fmt::format("cannot read {} \"{}\": expected X,Y,Z", what, text));
  return v;
}

// Closest point on triangle abc to p, as barycentric weights (Ericson, Real-Time Collision
// Detection §5.1.5).
Eigen::Vector3d closest_barycentric(const Eigen::Vector3d& p, const Eigen::Vector3d& a,
                                    const Eigen::Vector3d& b, const Eigen::Vector3d& c) {
  const Eigen::Vector3d ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return {1, 0, 0};
  const Eigen::Vector3d bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return {0, 1, 0};
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const double v = d1 / (d1 - d3);
    return {1 - v, v, 0};
  }
  const Eigen::Vector3d cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return {0, 0, 1};
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const double w = d2 / (d2 - d6);
    return {1 - w, 0, w};
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return {0, 1 - w, w};
  }
  const double denom = 1 / (va + vb + vc);
  const double v = vb * denom, w = vc * denom;
  return {1 - v - w, v, w};
}

}  // namespace

ForceProfile parse_force(const std::string& spec, double amplitude) {
  ForceProfile f;
  f.spec = spec;
  f.amplitude = amplitude;
  if (!std::isfinite(amplitude)) throw Error("--force-amplitude must be a finite number");
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  const std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (kind == "impulse") {
    if (!rest.empty()) throw Error(fmt::format("--force \"{}\": impulse takes no argument", spec));
    f.kind = ForceKind::impulse;
  } else if (kind == "cosine") {
    f.kind = ForceKind::cosine;
    if (!read_number(rest, f.duration_s))
      throw Error(fmt::format("--force \"{}\": expected cosine:DURATION_S, e.g. cosine:0.0005", spec));
    if (!(f.duration_s > 0))
      throw Error(fmt::format("--force \"{}\": the duration must be positive (got {} s)", spec,
                              f.duration_s));
  } else if (kind == "file") {
    f.kind = ForceKind::file;
    if (rest.empty()) throw Error(fmt::format("--force \"{}\": expected file:PATH", spec));
    std::ifstream in(rest);
    if (!in) throw Error(fmt::format("--force: cannot read force file {}", rest));
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
      std::replace(line.begin(), line.end(), ',', ' ');
      std::replace(line.begin(), line.end(), '\t', ' ');
      std::stringstream ss(line);
      std::vector<std::string> cols;
      std::string c;
      while (ss >> c) cols.push_back(c);
      if (cols.empty()) continue;
      double t = 0, v = 0;
      if (cols.size() != 2 || !read_number(cols[0], t) || !read_number(cols[1], v))
        throw Error(fmt::format("--force file {} line {}: expected two numbers, time_s force_N",
                                rest, number));
      if (!f.times_s.empty() && !(t > f.times_s.back()))
        throw Error(fmt::format("--force file {} line {}: times must increase", rest, number));
      if (t < 0) throw Error(fmt::format("--force file {} line {}: negative time", rest, number));
      f.times_s.push_back(t);
      f.forces_n.push_back(v);
    }
    if (f.times_s.empty()) throw Error(fmt::format("--force file {} holds no samples", rest));
  } else {
    throw Error(fmt::format(
        "--force \"{}\": unknown kind \"{}\" (impulse, cosine:DURATION_S or file:PATH)", spec, kind));
  }
  return f;
}

double force_at(const ForceProfile& f, double t) {
  switch (f.kind) {
    case ForceKind::impulse:
      return 0;
    case ForceKind::cosine:
      // van den Doel & Pai 2003, eq. 7: F(t) = F_max (1 − cos(2πt/T)) for 0 ≤ t ≤ T.
      if (t < 0 || t > f.duration_s) return 0;
      return f.amplitude * (1 - std::cos(2 * M_PI * t / f.duration_s));
    case ForceKind::file: {
      if (t < f.times_s.front() || t > f.times_s.back()) return 0;
      const auto it = std::upper_bound(f.times_s.begin(), f.times_s.end(), t);
      if (it == f.times_s.end()) return f.amplitude * f.forces_n.back();
      const size_t i = it - f.times_s.begin();
      const double s = (t - f.times_s[i - 1]) / (f.times_s[i] - f.times_s[i - 1]);
      return f.amplitude * ((1 - s) * f.forces_n[i - 1] + s * f.forces_n[i]);
    }
  }
  return 0;
}

double force_end_s(const ForceProfile& f) {
  switch (f.kind) {
    case ForceKind::impulse: return 0;
    case ForceKind::cosine: return f.duration_s;
    case ForceKind::file: return f.times_s.back();
  }
  return 0;
}

StrikePoint parse_strike(const std::string& spec, const std::string& direction,
                         const TetMesh& mesh, const std::vector<bool>& clamped) {
  StrikePoint s;
  const Eigen::MatrixXd normals = vertex_normals(SurfaceMesh{mesh.vertices, mesh.surface_faces});
  std::vector<bool> on_surface(mesh.vertices.rows(), false);
  for (int f = 0; f < mesh.surface_faces.rows(); ++f)
    for (int k = 0; k < 3; ++k) on_surface[mesh.surface_faces(f, k)] = true;
  auto is_clamped = [&](int v) { return !clamped.empty() && clamped[v]; };
  Eigen::Vector3d outward;
  if (spec == "auto" || spec == "auto:1") {
    // Off-centre on the top side (25 % and 17 % of the width off centre, like the paper's
    // off-centre plate strike, Fig. 6b), so that no mode is silenced by symmetry.
    const Eigen::Vector3d lo = mesh.vertices.colwise().minCoeff(), hi = mesh.vertices.colwise().maxCoeff();
    const Eigen::Vector3d target = 0.5 * (lo + hi) + Eigen::Vector3d(0.25, 0.17, 0.5).cwiseProduct(hi - lo);
    int best = -1;
    double best_d = INFINITY;
    for (int v = 0; v < static_cast<int>(on_surface.size()); ++v) {
      if (!on_surface[v] || is_clamped(v)) continue;
      const double d = (mesh.vertices.row(v).transpose() - target).squaredNorm();
      if (d < best_d) best_d = d, best = v;
    }
    if (best < 0) throw Error("--strike auto: every surface vertex is clamped");
    s.nodes = {best};
    s.weights = {1.0};
    s.position_m = mesh.vertices.row(best);
    outward = normals.row(best);
    s.description = fmt::format("auto: vertex {}", best);
  } else if (spec.starts_with("vertex:")) {
    const auto vertices = select_excitation_vertices(spec, mesh);
    if (vertices.size() != 1) throw Error(fmt::format("--strike \"{}\": give one vertex", spec));
    s.nodes = {vertices[0]};
    s.weights = {1.0};
    s.position_m = mesh.vertices.row(vertices[0]);
    outward = normals.row(vertices[0]);
    s.description = fmt::format("vertex {}", vertices[0]);
  } else if (spec.starts_with("point:")) {
    const Eigen::Vector3d p = parse_vector(spec.substr(6), "--strike point");
    int best_face = -1;
    double best_d = INFINITY;
    Eigen::Vector3d best_bary;
    for (int f = 0; f < mesh.surface_faces.rows(); ++f) {
      const Eigen::Vector3d a = mesh.vertices.row(mesh.surface_faces(f, 0)),
                            b = mesh.vertices.row(mesh.surface_faces(f, 1)),
                            c = mesh.vertices.row(mesh.surface_faces(f, 2));
      const Eigen::Vector3d bary = closest_barycentric(p, a, b, c);
      const double d = (bary[0] * a + bary[1] * b + bary[2] * c - p).squaredNorm();
      if (d < best_d) best_d = d, best_face = f, best_bary = bary;
    }
    if (best_face < 0) throw Error("--strike: the mesh has no surface");
    s.position_m.setZero();
    for (int k = 0; k < 3; ++k) {
      const int v = mesh.surface_faces(best_face, k);
      if (best_bary[k] <= 1e-12) continue;
      s.nodes.push_back(v);
      s.weights.push_back(best_bary[k]);
      s.position_m += best_bary[k] * mesh.vertices.row(v).transpose();
    }
    const Eigen::Vector3d a = mesh.vertices.row(mesh.surface_faces(best_face, 0)),
                          b = mesh.vertices.row(mesh.surface_faces(best_face, 1)),
                          c = mesh.vertices.row(mesh.surface_faces(best_face, 2));
    outward = (b - a).cross(c - a).normalized();
    s.description = fmt::format("point ({:.6g}, {:.6g}, {:.6g}) on face {}", s.position_m.x(),
                                s.position_m.y(), s.position_m.z(), best_face);
  } else {
    throw Error(fmt::format(
        "--strike \"{}\": expected auto, vertex:I or point:X,Y,Z", spec));
  }
  bool all_clamped = true;
  for (int v : s.nodes) all_clamped = all_clamped && is_clamped(v);
  if (all_clamped && !clamped.empty())
    throw Error(fmt::format("--strike {}: the struck point is clamped by --fix, nothing would move",
                            s.description));
  if (direction.empty()) {
    s.direction = -outward;  // a mallet pushes into the surface
  } else {
    const Eigen::Vector3d d = parse_vector(direction, "--force-direction");
    if (!(d.norm() > 0)) throw Error("--force-direction must not be the zero vector");
    s.direction = d.normalized();
  }
  return s;
}

Eigen::VectorXd strike_load(const StrikePoint& s, int node_count) {
  Eigen::VectorXd f = Eigen::VectorXd::Zero(3 * node_count);
  for (size_t i = 0; i < s.nodes.size(); ++i) f.segment<3>(3 * s.nodes[i]) += s.weights[i] * s.direction;
  return f;
}

}  // namespace mesh2dsp
