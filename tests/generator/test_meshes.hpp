#pragma once
// Surface meshes made in the tests, shaped like what users bring: CAD/STL exports with long
// sliver triangles, their well-shaped twins, millimetre units. Written as OBJ or binary STL.
#include <Eigen/Core>
#include <Eigen/Geometry>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace mesh2dsp::test {

struct TestSurface {
  std::vector<Eigen::Vector3d> vertices;
  std::vector<Eigen::Vector3i> faces;  // counter-clockwise seen from outside
  int add(double x, double y, double z) {
    vertices.emplace_back(x, y, z);
    return static_cast<int>(vertices.size()) - 1;
  }
  void tri(int a, int b, int c) { faces.emplace_back(a, b, c); }
};

inline void write_obj(const std::string& path, const TestSurface& s, double scale = 1.0) {
  std::ofstream f(path);
  f.precision(17);
  for (const auto& v : s.vertices) f << "v " << scale * v.x() << ' ' << scale * v.y() << ' ' << scale * v.z() << '\n';
  for (const auto& t : s.faces) f << "f " << t.x() + 1 << ' ' << t.y() + 1 << ' ' << t.z() + 1 << '\n';
}

inline void write_binary_stl(const std::string& path, const TestSurface& s, double scale = 1.0) {
  std::ofstream f(path, std::ios::binary);
  char header[80] = "mesh2dsp test surface";
  f.write(header, 80);
  const auto count = static_cast<std::uint32_t>(s.faces.size());
  f.write(reinterpret_cast<const char*>(&count), 4);
  for (const auto& t : s.faces) {
    const Eigen::Vector3d a = s.vertices[t.x()], b = s.vertices[t.y()], c = s.vertices[t.z()];
    const Eigen::Vector3d n = (b - a).cross(c - a).normalized();
    float data[12];
    for (int k = 0; k < 3; ++k) {
      data[k] = static_cast<float>(n[k]);
      data[3 + k] = static_cast<float>(scale * a[k]);
      data[6 + k] = static_cast<float>(scale * b[k]);
      data[9 + k] = static_cast<float>(scale * c[k]);
    }
    f.write(reinterpret_cast<const char*>(data), sizeof data);
    const std::uint16_t attribute = 0;
    f.write(reinterpret_cast<const char*>(&attribute), 2);
  }
}

// A closed cylinder along x (length L, radius r, `segments` facets around). `rings` + 1 rings of
// vertices along the length: 1 gives the CAD/STL export of a prong, two long sliver triangles per
// facet (aspect L / (2πr/segments)); more give well-shaped triangles. End caps are fans around a
// centre vertex, the same in both.
inline TestSurface cylinder(double length, double radius, int segments, int rings) {
  TestSurface s;
  std::vector<std::vector<int>> ring(rings + 1);
  for (int i = 0; i <= rings; ++i)
    for (int k = 0; k < segments; ++k) {
      const double a = 2 * M_PI * k / segments;
      ring[i].push_back(s.add(length * i / rings, radius * std::cos(a), radius * std::sin(a)));
    }
  for (int i = 0; i < rings; ++i)
    for (int k = 0; k < segments; ++k) {
      const int k1 = (k + 1) % segments;
      s.tri(ring[i][k], ring[i][k1], ring[i + 1][k1]);
      s.tri(ring[i][k], ring[i + 1][k1], ring[i + 1][k]);
    }
  const int c0 = s.add(0, 0, 0), c1 = s.add(length, 0, 0);
  for (int k = 0; k < segments; ++k) {
    const int k1 = (k + 1) % segments;
    s.tri(c0, ring[0][k1], ring[0][k]);
    s.tri(c1, ring[rings][k], ring[rings][k1]);
  }
  return s;
}

// A ball of radius `ball` with a horn on top (radius `horn`, `length` from where it leaves the
// ball to where its rounded tip starts), revolved about z like a turned or scanned part: `segments`
// facets around and fine, even rings along the profile (each ring a few mm apart), so that the
// analysis meshes its volume rather than keeping its triangles. The horn is a solid's limb, the
// shape where a scanned cow's horn modes were too high.
inline TestSurface horned_ball(double ball, double horn, double length, int segments) {
  std::vector<std::array<double, 2>> profile;  // (r, z), south pole excluded, tip excluded
  const double join = std::asin(horn / ball);  // polar angle where the ball meets the horn
  const int ball_rings = 120, horn_rings = 80, tip_rings = 16;
  for (int i = 1; i <= ball_rings; ++i) {
    const double theta = M_PI - (M_PI - join) * i / ball_rings;
    profile.push_back({ball * std::sin(theta), ball * std::cos(theta)});
  }
  const double base = ball * std::cos(join);
  for (int i = 1; i <= horn_rings; ++i) profile.push_back({horn, base + length * i / horn_rings});
  for (int i = 1; i < tip_rings; ++i) {
    const double phi = 0.5 * M_PI * i / tip_rings;
    profile.push_back({horn * std::cos(phi), base + length + horn * std::sin(phi)});
  }
  TestSurface s;
  const int south = s.add(0, 0, -ball);
  for (const auto& [r, z] : profile)
    for (int k = 0; k < segments; ++k) {
      const double a = 2 * M_PI * k / segments;
      s.add(r * std::cos(a), r * std::sin(a), z);
    }
  const int tip = s.add(0, 0, base + length + horn);
  const int rings = static_cast<int>(profile.size());
  auto at = [&](int ring, int k) { return 1 + ring * segments + k % segments; };
  for (int k = 0; k < segments; ++k) s.tri(south, at(0, k + 1), at(0, k));
  for (int i = 0; i + 1 < rings; ++i)
    for (int k = 0; k < segments; ++k) {
      s.tri(at(i, k), at(i, k + 1), at(i + 1, k + 1));
      s.tri(at(i, k), at(i + 1, k + 1), at(i + 1, k));
    }
  for (int k = 0; k < segments; ++k) s.tri(at(rings - 1, k), at(rings - 1, k + 1), tip);
  return s;
}

// A box [0,a]×[0,b]×[0,c] (a the long side) triangulated the way CAD exporters often do it: the
// long edges are split into `n` pieces and each long face is two fans of slivers, one from a
// corner of each long edge to all the points of the other (aspect about n·a/b).
inline TestSurface sliver_box(double a, double b, double c, int n) {
  TestSurface s;
  std::map<std::array<double, 3>, int> index;
  auto vertex = [&](double x, double y, double z) {
    const std::array<double, 3> key{x, y, z};
    auto it = index.find(key);
    if (it != index.end()) return it->second;
    return index[key] = s.add(x, y, z);
  };
  // A long face between the edges y = y0, z = z0 and y = y1, z = z1 (both along x), outward
  // when (y1 − y0, z1 − z0) turned by +90° about x points out; `flip` reverses it.
  auto long_face = [&](double y0, double z0, double y1, double z1, bool flip) {
    std::vector<int> lo, hi;
    for (int i = 0; i <= n; ++i) {
      lo.push_back(vertex(a * i / n, y0, z0));
      hi.push_back(vertex(a * i / n, y1, z1));
    }
    auto t = [&](int p, int q, int r) { flip ? s.tri(p, r, q) : s.tri(p, q, r); };
    for (int i = 0; i < n; ++i) t(lo[i], lo[i + 1], hi[0]);
    for (int i = 0; i < n; ++i) t(hi[i + 1], hi[i], lo[n]);
  };
  long_face(0, 0, b, 0, true);   // z = 0
  long_face(0, c, b, c, false);  // z = c
  long_face(0, 0, 0, c, false);  // y = 0
  long_face(b, 0, b, c, true);   // y = b
  for (double x : {0.0, a}) {
    const int p = vertex(x, 0, 0), q = vertex(x, b, 0), r = vertex(x, b, c), u = vertex(x, 0, c);
    if (x == 0) {
      s.tri(p, r, q), s.tri(p, u, r);
    } else {
      s.tri(p, q, r), s.tri(p, r, u);
    }
  }
  return s;
}

// The same box with well-shaped triangles: each face a grid of about `edge` squares, split in two.
inline TestSurface grid_box(double a, double b, double c, double edge) {
  TestSurface s;
  std::map<std::array<double, 3>, int> index;
  auto vertex = [&](const Eigen::Vector3d& p) {
    const std::array<double, 3> key{p.x(), p.y(), p.z()};
    auto it = index.find(key);
    if (it != index.end()) return it->second;
    return index[key] = s.add(p.x(), p.y(), p.z());
  };
  // Face from corner p spanned by u and v, outward u × v.
  auto face = [&](Eigen::Vector3d p, Eigen::Vector3d u, Eigen::Vector3d v) {
    const int nu = std::max(1, static_cast<int>(std::lround(u.norm() / edge)));
    const int nv = std::max(1, static_cast<int>(std::lround(v.norm() / edge)));
    auto at = [&](int i, int j) {
      // Exact end points, so shared edges of neighbouring faces get identical coordinates.
      Eigen::Vector3d q = p + u * (static_cast<double>(i) / nu) + v * (static_cast<double>(j) / nv);
      for (int k = 0; k < 3; ++k) q[k] = std::round(q[k] * 1e12) / 1e12;
      return vertex(q);
    };
    for (int i = 0; i < nu; ++i)
      for (int j = 0; j < nv; ++j) {
        s.tri(at(i, j), at(i + 1, j), at(i + 1, j + 1));
        s.tri(at(i, j), at(i + 1, j + 1), at(i, j + 1));
      }
  };
  using V = Eigen::Vector3d;
  face(V(0, 0, 0), V(0, b, 0), V(a, 0, 0));
  face(V(0, 0, c), V(a, 0, 0), V(0, b, 0));
  face(V(0, 0, 0), V(a, 0, 0), V(0, 0, c));
  face(V(0, b, 0), V(0, 0, c), V(a, 0, 0));
  face(V(0, 0, 0), V(0, 0, c), V(0, b, 0));
  face(V(a, 0, 0), V(0, b, 0), V(0, 0, c));
  return s;
}

}  // namespace mesh2dsp::test
