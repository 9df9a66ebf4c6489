#include "radiation/bem.hpp"

#include <fmt/format.h>

#include <Eigen/LU>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <memory>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "radiation/bem_kernels.hpp"
#include "util/error.hpp"
#include "util/gauss_legendre.hpp"

namespace mesh2dsp {

namespace {

using cd = std::complex<double>;
constexpr double kPi = 3.14159265358979323846;
constexpr cd kI(0.0, 1.0);

// Dunavant 1985 (Int. J. Numer. Meth. Eng. 21), the 7-point degree-5 rule on a triangle:
// barycentric points and weights summing to 1.
constexpr double kA1 = 0.059715871789770, kB1 = 0.470142064105115;
constexpr double kA2 = 0.797426985353087, kB2 = 0.101286507323456;
constexpr std::array<std::array<double, 3>, 7> kRule7Points = {{{1.0 / 3, 1.0 / 3, 1.0 / 3},
                                                                {kA1, kB1, kB1},
                                                                {kB1, kA1, kB1},
                                                                {kB1, kB1, kA1},
                                                                {kA2, kB2, kB2},
                                                                {kB2, kA2, kB2},
                                                                {kB2, kB2, kA2}}};
constexpr std::array<double, 7> kRule7Weights = {0.225,          0.132394152788506, 0.132394152788506,
                                                 0.132394152788506, 0.125939180544827, 0.125939180544827,
                                                 0.125939180544827};
// Strang & Fix 1973, the 3-point degree-2 rule (edge-interior points).
constexpr std::array<std::array<double, 3>, 3> kRule3Points = {
    {{2.0 / 3, 1.0 / 6, 1.0 / 6}, {1.0 / 6, 2.0 / 3, 1.0 / 6}, {1.0 / 6, 1.0 / 6, 2.0 / 3}}};

// Gauss–Legendre nodes and weights on [0, 1] (Golub–Welsch would do; Newton on P_n here).
struct GaussRule {
  std::vector<double> x, w;
};
// Gauss–Legendre on [0, 1].
GaussRule gauss_legendre_unit(int n) {
  GaussRule g;
  gauss_legendre(n, g.x, g.w);
  for (int i = 0; i < n; ++i) g.x[i] = 0.5 * (1 - g.x[i]), g.w[i] *= 0.5;
  return g;
}

// The four kernels of the Burton–Miller equation at collocation point x (normal nx) and source
// point y (normal ny): G, ∂G/∂n_y, ∂G/∂n_x and ∂²G/∂n_x∂n_y, from G' = G(ik − 1/r) and
// G'' = G(−k² − 2ik/r + 2/r²) with e = (y − x)/r.
struct Kernels {
  cd g, dg_dny, dg_dnx, d2g;
};
inline Kernels kernels(const Eigen::Vector3d& x, const Eigen::Vector3d& nx, const Eigen::Vector3d& y,
                       const Eigen::Vector3d& ny, double k) {
  const Eigen::Vector3d d = y - x;
  const double r = d.norm(), inv_r = 1.0 / r;
  const double en_x = d.dot(nx) * inv_r, en_y = d.dot(ny) * inv_r;
  const cd g = std::polar(inv_r / (4 * kPi), k * r);
  const cd g1 = g * cd(-inv_r, k);
  const cd g2 = g * cd(2 * inv_r * inv_r - k * k, -2 * k * inv_r);
  Kernels out;
  out.g = g;
  out.dg_dny = g1 * en_y;
  out.dg_dnx = -g1 * en_x;
  out.d2g = -g2 * en_x * en_y + g1 * ((en_x * en_y - nx.dot(ny)) * inv_r);
  return out;
}

// Quadrature points as plain arrays (structure of arrays, as bem_kernels.hpp reads them).
struct PointArrays {
  std::vector<double> x, y, z, nx, ny, nz, weight;
  size_t size() const { return x.size(); }
  void clear() {
    for (auto* v : {&x, &y, &z, &nx, &ny, &nz, &weight}) v->clear();
  }
  void push(const Eigen::Vector3d& p, const Eigen::Vector3d& normal, double w) {
    x.push_back(p.x()), y.push_back(p.y()), z.push_back(p.z());
    nx.push_back(normal.x()), ny.push_back(normal.y()), nz.push_back(normal.z());
    weight.push_back(w);
  }
  void push(const PointArrays& from, size_t m) {
    x.push_back(from.x[m]), y.push_back(from.y[m]), z.push_back(from.z[m]);
    nx.push_back(from.nx[m]), ny.push_back(from.ny[m]), nz.push_back(from.nz[m]);
    weight.push_back(from.weight[m]);
  }
  BemPoints points() const {
    return {x.data(), y.data(), z.data(), nx.data(), ny.data(), nz.data(), weight.data(),
            static_cast<int>(size())};
  }
};

// The kernels k1, k2 (bem_kernels.hpp) of a batch of points, re/im.
struct KernelValues {
  std::array<std::vector<double>, 4> value;
  BemKernelOut out(size_t count) {
    for (auto& v : value)
      if (v.size() < count) v.resize(count);
    return {value[0].data(), value[1].data(), value[2].data(), value[3].data()};
  }
  cd k1(size_t p) const { return {value[0][p], value[1][p]}; }
  cd k2(size_t p) const { return {value[2][p], value[3][p]}; }
};

// Points gathered from many elements, with their kernels.
struct PointBatch : PointArrays {
  KernelValues kernel;
  void evaluate(const Eigen::Vector3d& at, const Eigen::Vector3d& normal, double k, double alpha_over_i) {
    if (size() == 0) return;
    burton_miller_kernels(at, normal, k, alpha_over_i, points(), kernel.out(size()));
  }
};

// The element integrals of one row: the coefficient of p_j (∫∂G/∂n_y + α∫∂²G/∂n_x∂n_y) and of
// q_j (∫G + α∫∂G/∂n_x).
// Quadrature by distance d from the collocation point against the element's diameter h: one
// point (its centroid) when d > 6h and kh < 1, three points when d > 6h or d > 3h, seven when
// d > 1.5h, and adaptive subdivision nearer (pieces split until 1.5 of their diameters away).
// Measured on the sphere checks (2880 curved triangles): with the one-point rule from 3h (as
// before the curved elements, when the flat facets' error hid it) the worst error was 0.44 %
// (the dipole at ka = 0.1), with three points out to 6h 0.25 %; seven points in that band
// change it by under 0.01 point, and the band costs the bundled bowl no measurable time. The
// one-point rule only where kh < 0.5 gives 0.13 %, but most of the bowl's modes have kh > 0.5,
// where it would give up the mirrored far pairs (each evaluated once for both rows).
constexpr double kFar = 6, kMiddle = 3, kNear = 1.5, kOnePointKh = 1.0, kSplit = 1.5;
enum class ElementRule { kCentroid, kThree, kSeven, kAdaptive };  // in this order (the assembly counts)
// The rule for an element of diameter h at `distance` from the collocation point (above).
inline ElementRule element_rule(double distance, double h, double k) {
  if (distance > kFar * h) return k * h < kOnePointKh ? ElementRule::kCentroid : ElementRule::kThree;
  if (distance > kMiddle * h) return ElementRule::kThree;
  return distance > kNear * h ? ElementRule::kSeven : ElementRule::kAdaptive;
}
struct RowTerms {
  cd p, q;
};

// A surface triangle as a 6-node quadratic (isoparametric) patch: corners 0-2 and the points on
// edges (0,1), (1,2), (2,0) (their midpoints for a flat triangle, which makes the map affine).
// y(ξ, η) = Σ N_a(ξ, η)·X_a over the reference triangle ξ, η ≥ 0, ξ + η ≤ 1, with the P2 shape
// functions in the barycentric λ = (1 − ξ − η, ξ, η); dS = J dξ dη, J = |y_ξ × y_η|.
struct CurvedTriangle {
  std::array<Eigen::Vector3d, 6> node;
  // All three edge points at their edges' midpoints: the map is affine, its normal and Jacobian
  // constant (the bundled meshes' triangles, whose surface is the input's own), and at() skips
  // the quadratic terms (it is a tenth of the solve's time otherwise).
  bool affine = false;
  Eigen::Vector3d affine_normal;
  double affine_jacobian = 0;
  struct Point {
    Eigen::Vector3d position, normal;
    double jacobian;
  };
  Point at(double xi, double eta) const {
    const double l1 = 1 - xi - eta, l2 = xi, l3 = eta;
    if (affine) return {l1 * node[0] + l2 * node[1] + l3 * node[2], affine_normal, affine_jacobian};
    const double shape[6] = {l1 * (2 * l1 - 1), l2 * (2 * l2 - 1), l3 * (2 * l3 - 1),
                             4 * l1 * l2,       4 * l2 * l3,       4 * l3 * l1};
    const double d_xi[6] = {1 - 4 * l1, 4 * l2 - 1, 0, 4 * (l1 - l2), 4 * l3, -4 * l3};
    const double d_eta[6] = {1 - 4 * l1, 0, 4 * l3 - 1, -4 * l2, 4 * l2, 4 * (l1 - l3)};
    Point p{Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), 0};
    Eigen::Vector3d t_xi = Eigen::Vector3d::Zero(), t_eta = Eigen::Vector3d::Zero();
    for (int a = 0; a < 6; ++a) {
      p.position += shape[a] * node[a];
      t_xi += d_xi[a] * node[a];
      t_eta += d_eta[a] * node[a];
    }
    const Eigen::Vector3d cross = t_xi.cross(t_eta);
    p.jacobian = cross.norm();
    p.normal = p.jacobian > 0 ? Eigen::Vector3d(cross / p.jacobian) : Eigen::Vector3d::Zero();
    return p;
  }
  Point at(const Eigen::Vector2d& reference) const { return at(reference.x(), reference.y()); }
  Eigen::Vector3d position(const Eigen::Vector2d& reference) const {
    const double l1 = 1 - reference.x() - reference.y(), l2 = reference.x(), l3 = reference.y();
    if (affine) return l1 * node[0] + l2 * node[1] + l3 * node[2];
    return l1 * (2 * l1 - 1) * node[0] + l2 * (2 * l2 - 1) * node[1] + l3 * (2 * l3 - 1) * node[2] +
           4 * (l1 * l2 * node[3] + l2 * l3 * node[4] + l3 * l1 * node[5]);
  }
  // Edge e (from corner e to corner e+1) at t ∈ [0, 1] and its derivative dy/dt.
  Eigen::Vector3d edge(int e, double t) const {
    return node[e] * ((1 - t) * (1 - 2 * t)) + node[3 + e] * (4 * t * (1 - t)) + node[(e + 1) % 3] * (t * (2 * t - 1));
  }
  Eigen::Vector3d edge_tangent(int e, double t) const {
    return node[e] * (4 * t - 3) + node[3 + e] * (4 - 8 * t) + node[(e + 1) % 3] * (4 * t - 1);
  }
  bool straight_edge(int e) const {
    return (node[3 + e] - 0.5 * (node[e] + node[(e + 1) % 3])).norm() <=
           1e-9 * (node[e] - node[(e + 1) % 3]).norm();
  }
};

// Reference coordinates (ξ, η) of a barycentric rule point (λ₁, λ₂, λ₃).
inline Eigen::Vector2d reference_point(const std::array<double, 3>& barycentric) {
  return {barycentric[1], barycentric[2]};
}

// The Jacobian signed against the corners' plane at the collocation and 7-point rule points: a
// patch folded by its edge points turns its normal over somewhere (a degenerate one has none).
bool folded(const CurvedTriangle& t) {
  const Eigen::Vector3d flat_normal = (t.node[1] - t.node[0]).cross(t.node[2] - t.node[0]).normalized();
  double min_jacobian = 0;
  for (size_t m = 0; m < kRule7Points.size(); ++m) {  // the rule's first point is the centroid
    const CurvedTriangle::Point p = t.at(reference_point(kRule7Points[m]));
    const double signed_jacobian = p.jacobian * p.normal.dot(flat_normal);
    min_jacobian = m == 0 ? signed_jacobian : std::min(min_jacobian, signed_jacobian);
  }
  return !(min_jacobian > 0);
}

CurvedTriangle curved_triangle(const BemSurface& s, Eigen::Index j) {
  CurvedTriangle t;
  for (int c = 0; c < 3; ++c) {
    t.node[c] = s.vertices.row(s.faces(j, c)).transpose();
    t.node[3 + c] = s.edge_points_m.row(3 * j + c).transpose();
  }
  if (t.straight_edge(0) && t.straight_edge(1) && t.straight_edge(2)) {
    const Eigen::Vector3d cross = (t.node[1] - t.node[0]).cross(t.node[2] - t.node[0]);
    t.affine_jacobian = cross.norm();
    t.affine_normal = t.affine_jacobian > 0 ? Eigen::Vector3d(cross / t.affine_jacobian) : Eigen::Vector3d::Zero();
    t.affine = true;
  }
  return t;
}

// Near-singular: split the reference triangle in four until each piece's image is far against
// its size (distance ≥ kSplit diameters), then the 7-point rule on each: adaptive subdivision by
// plain bisection (no coordinate transform, unlike Telles 1987). The points are appended to a
// batch (the assembly evaluates a whole row's in one, with the batch kernels). a, b, c are a
// piece's reference corners and pa, pb, pc their images (each image computed once: the map is
// most of this function's cost); the piece's centre for the distance test is their mean.
void adaptive_points(const Eigen::Vector3d& x, const CurvedTriangle& t, const Eigen::Vector2d& a,
                     const Eigen::Vector2d& b, const Eigen::Vector2d& c, const Eigen::Vector3d& pa,
                     const Eigen::Vector3d& pb, const Eigen::Vector3d& pc, int depth, PointBatch& batch) {
  const double diameter = std::max({(pb - pa).norm(), (pc - pb).norm(), (pa - pc).norm()});
  const Eigen::Vector3d centre = (pa + pb + pc) / 3.0;
  if (depth >= 6 || (x - centre).norm() >= kSplit * diameter) {
    const Eigen::Vector2d ab = b - a, ac = c - a;
    const double reference_area = 0.5 * std::abs(ab.x() * ac.y() - ab.y() * ac.x());
    for (size_t m = 0; m < kRule7Points.size(); ++m) {
      const auto& l = kRule7Points[m];
      const CurvedTriangle::Point p = t.at(l[0] * a + l[1] * b + l[2] * c);
      batch.push(p.position, p.normal, reference_area * p.jacobian * kRule7Weights[m]);
    }
    return;
  }
  const Eigen::Vector2d ab = 0.5 * (a + b), bc = 0.5 * (b + c), ca = 0.5 * (c + a);
  const Eigen::Vector3d pab = t.position(ab), pbc = t.position(bc), pca = t.position(ca);
  adaptive_points(x, t, a, ab, ca, pa, pab, pca, depth + 1, batch);
  adaptive_points(x, t, ab, b, bc, pab, pb, pbc, depth + 1, batch);
  adaptive_points(x, t, ca, bc, c, pca, pbc, pc, depth + 1, batch);
  adaptive_points(x, t, ab, bc, ca, pab, pbc, pca, depth + 1, batch);
}
// The whole element.
void adaptive_points(const Eigen::Vector3d& x, const CurvedTriangle& t, PointBatch& batch) {
  adaptive_points(x, t, {0, 0}, {1, 0}, {0, 1}, t.node[0], t.node[1], t.node[2], 0, batch);
}

// n_x·∫ (y − x) × dy / |y − x|³ along edge e of `t` from parameter t0 to t1, x off the edge:
// the Biot–Savart form of the gradient of the solid angle the element's boundary subtends at x
// (below). A straight edge in closed form: with f the foot of x on its line and s the signed
// positions along it, c·[s/(d²|y − x|)] between the ends, c = n_x·((f − x) × t̂), d = |f − x|.
// A curved one by Gauss–Legendre, its parameter interval halved until each piece is shorter
// than its distance from x.
double edge_solid_angle_gradient(const Eigen::Vector3d& x, const Eigen::Vector3d& nx, const CurvedTriangle& t,
                                 int e, double t0, double t1, const GaussRule& gauss, int depth = 0) {
  if (t.straight_edge(e)) {
    const Eigen::Vector3d a = t.edge(e, t0), b = t.edge(e, t1);
    const Eigen::Vector3d along = (b - a).normalized();
    const Eigen::Vector3d foot = a + along * along.dot(x - a);
    const double d2 = (foot - x).squaredNorm();
    const double sa = along.dot(a - foot), sb = along.dot(b - foot);
    return nx.dot((foot - x).cross(along)) * (sb / (b - x).norm() - sa / (a - x).norm()) / d2;
  }
  const Eigen::Vector3d a = t.edge(e, t0), b = t.edge(e, t1), mid = t.edge(e, 0.5 * (t0 + t1));
  const double length = (b - mid).norm() + (mid - a).norm();
  const double distance = std::min({(a - x).norm(), (b - x).norm(), (mid - x).norm()});
  if (depth < 12 && length > distance) {
    const double tm = 0.5 * (t0 + t1);
    return edge_solid_angle_gradient(x, nx, t, e, t0, tm, gauss, depth + 1) +
           edge_solid_angle_gradient(x, nx, t, e, tm, t1, gauss, depth + 1);
  }
  double sum = 0;
  for (size_t m = 0; m < gauss.x.size(); ++m) {
    const double tm = t0 + (t1 - t0) * gauss.x[m];
    const Eigen::Vector3d d = t.edge(e, tm) - x;
    const double r = d.norm();
    sum += gauss.w[m] * (t1 - t0) * nx.dot(d.cross(t.edge_tangent(e, tm))) / (r * r * r);
  }
  return sum;
}

// Every element's quadrature points, normals and weights (J × rule weight) under the centroid,
// 3- and 7-point rules, on its curved patch: frequency-independent, computed once per surface.
struct RulePoints {
  // By ElementRule (not kAdaptive): element j's points at [j·N, (j+1)·N), N = per_element[rule].
  static constexpr std::array<int, 3> per_element = {1, 3, 7};
  std::array<PointArrays, 3> rule;
  explicit RulePoints(const BemSurface& s) {
    const Eigen::Index n = s.faces.rows();
    PointArrays &centroid = rule[static_cast<size_t>(ElementRule::kCentroid)],
                &three = rule[static_cast<size_t>(ElementRule::kThree)],
                &seven = rule[static_cast<size_t>(ElementRule::kSeven)];
    for (Eigen::Index j = 0; j < n; ++j) {
      const CurvedTriangle t = curved_triangle(s, j);
      // The one-point rule: the collocation point with the element's whole area.
      centroid.push(s.geometry.centres.row(j).transpose(), s.geometry.normals.row(j).transpose(),
                    s.geometry.areas_m2[j]);
      for (const auto& l : kRule3Points) {
        const CurvedTriangle::Point p = t.at(reference_point(l));
        three.push(p.position, p.normal, p.jacobian / 6);  // reference area ½, weights ⅓
      }
      for (size_t m = 0; m < kRule7Points.size(); ++m) {
        const CurvedTriangle::Point p = t.at(reference_point(kRule7Points[m]));
        seven.push(p.position, p.normal, 0.5 * p.jacobian * kRule7Weights[m]);
      }
    }
  }
  void add(PointBatch& batch, ElementRule r, int j) const {
    const int count = per_element[static_cast<size_t>(r)];
    for (int m = count * j; m < count * (j + 1); ++m) batch.push(rule[static_cast<size_t>(r)], m);
  }
};

// The points of element j's rule at `distance` from x (adaptive ones included) into a batch.
void element_points(const BemSurface& s, const RulePoints& rules, const Eigen::Vector3d& x, int j, double k,
                    PointBatch& batch) {
  const double distance = (x - s.geometry.centres.row(j).transpose()).norm();
  const ElementRule rule = element_rule(distance, s.diameters_m[j], k);
  if (rule != ElementRule::kAdaptive) return rules.add(batch, rule, j);
  adaptive_points(x, curved_triangle(s, j), batch);
}

struct Assembler {
  const BemSurface& s;
  double k;
  cd alpha;

  // The element's own row: the collocation point x (its parametric centroid) lies on it. The
  // kernels less their static (k = 0) hypersingular part are at most 1/r singular (on a curved
  // patch ∂G/∂n_y and ∂G/∂n_x are 1/r too: (y − x)·n is of order r²) and are integrated over the
  // three sub-triangles of the reference triangle joined at x's image, after Duffy 1982's
  // transform (SIAM J. Numer. Anal. 19, the collapse of a square onto the singular vertex,
  // Jacobian ∝ ρ), which makes them smooth. The static hypersingular part is exact through
  // the solid angle: the double layer of unit density over the element is −Ω(x)/4π, Ω the solid
  // angle its boundary curve subtends, so ∂/∂n_x ∫∂G₀/∂n_y dS = −(1/4π) n_x·∇Ω, and ∇Ω is the
  // Biot–Savart integral ∮ (y − x) × dy / |y − x|³ round the boundary, a regular line integral
  // (x is inside the element, off its edges); it depends on the boundary alone, so it holds on
  // a curved element as on a flat one (where it is (1/h)(s_b/|b−x| − s_a/|a−x|) per edge, h the
  // edge's distance from x and s the signed positions along it; for a disc of radius a,
  // −1/(2a), the derivative of (z/2)(1/z − 1/√(a²+z²)) at z = 0).
  RowTerms self(int i, const GaussRule& gauss) const {
    const CurvedTriangle t = curved_triangle(s, i);
    const Eigen::Vector3d x = s.geometry.centres.row(i).transpose();
    const Eigen::Vector3d nx = s.geometry.normals.row(i).transpose();
    const Eigen::Vector2d xr(1.0 / 3, 1.0 / 3);
    const std::array<Eigen::Vector2d, 3> corners = {Eigen::Vector2d(0, 0), Eigen::Vector2d(1, 0), Eigen::Vector2d(0, 1)};
    cd p_terms = 0, q_terms = 0;
    double static_hyper = 0;
    for (int e = 0; e < 3; ++e) {
      static_hyper += edge_solid_angle_gradient(x, nx, t, e, 0, 1, gauss);
      // Duffy: ξ = x + u·((a − x) + v·(b − a)), dξ dη = u·|(a − x) × (b − a)| du dv.
      const Eigen::Vector2d a = corners[e], edge = corners[(e + 1) % 3] - a, ax = a - xr;
      const double jac = std::abs(ax.x() * edge.y() - ax.y() * edge.x());
      for (size_t iu = 0; iu < gauss.x.size(); ++iu)
        for (size_t iv = 0; iv < gauss.x.size(); ++iv) {
          const double u = gauss.x[iu], v = gauss.x[iv];
          const CurvedTriangle::Point y = t.at(xr + u * (ax + v * edge));
          const double w = gauss.w[iu] * gauss.w[iv] * jac * u * y.jacobian;
          const Kernels kk = kernels(x, nx, y.position, y.normal, k);
          // The static hypersingular kernel (kernels() at k = 0: G' = −1/(4πr²), G'' = 2/(4πr³)).
          const Eigen::Vector3d d = y.position - x;
          const double r = d.norm(), en_x = d.dot(nx) / r, en_y = d.dot(y.normal) / r;
          const double d2g_static =
              (-2 * en_x * en_y - (en_x * en_y - nx.dot(y.normal))) / (4 * kPi * r * r * r);
          p_terms += w * (kk.dg_dny + alpha * (kk.d2g - d2g_static));
          q_terms += w * (kk.g + alpha * kk.dg_dnx);
        }
    }
    p_terms += alpha * (-static_hyper / (4 * kPi));
    return {p_terms, q_terms};
  }
};

void check_surface(const BemSurface& s, Eigen::Index values) {
  if (s.faces.rows() == 0) throw Error("the radiating surface has no triangles");
  if (values != s.faces.rows())
    throw Error(fmt::format("{} normal velocities for {} surface triangles", values, s.faces.rows()));
}

// Restarted GMRES (Saad & Schultz 1986, with Givens rotations) on A·X = B for the columns of B
// at once: each column has its own Krylov space, but the products of all columns still
// iterating are one product of A with an n × c block, which reads A (memory-bound) once for
// all of them instead of once per column. `A` maps an n × c block to A times it. Returns
// each column's iteration count.
template <class Apply>
std::vector<int> gmres(const Apply& A, const Eigen::MatrixXcd& B, Eigen::MatrixXcd& X, double tolerance,
                       int restart, int max_iterations) {
  const Eigen::Index n = B.rows();
  const int columns = static_cast<int>(B.cols());
  struct Column {
    Eigen::MatrixXcd V, H;
    std::vector<cd> cs, sn;
    Eigen::VectorXcd g;
    int j = 0, total = 0;
    double b_norm = 0;
    bool restarting = true, done = false;
  };
  std::vector<Column> col(columns);
  X.setZero(n, columns);
  for (int c = 0; c < columns; ++c) {
    col[c].b_norm = B.col(c).norm();
    col[c].done = col[c].b_norm == 0;
  }
  // Ends column c's cycle: x += V·y from the j × j triangle; done if converged or out of
  // iterations, otherwise restarted from its true residual.
  const auto finish_cycle = [&](int c) {
    Column& s = col[c];
    const Eigen::VectorXcd y = s.H.topLeftCorner(s.j, s.j).template triangularView<Eigen::Upper>().solve(s.g.head(s.j));
    X.col(c) += s.V.leftCols(s.j) * y;
    s.done = std::abs(s.g[s.j]) <= tolerance * s.b_norm || s.total >= max_iterations;
    s.restarting = !s.done;
  };
  std::vector<int> active;
  while (true) {
    // (Re)starts: the residuals of the columns starting a cycle, in one product.
    active.clear();
    for (int c = 0; c < columns; ++c)
      if (!col[c].done && col[c].restarting) active.push_back(c);
    if (!active.empty()) {
      Eigen::MatrixXcd x_block(n, active.size());
      for (size_t a = 0; a < active.size(); ++a) x_block.col(a) = X.col(active[a]);
      const Eigen::MatrixXcd ax = A(x_block);
      for (size_t a = 0; a < active.size(); ++a) {
        Column& s = col[active[a]];
        const Eigen::VectorXcd r = B.col(active[a]) - ax.col(a);
        const double beta = r.norm();
        s.restarting = false;
        if (beta <= tolerance * s.b_norm || s.total >= max_iterations) {
          s.done = true;
          continue;
        }
        s.V.resize(n, restart + 1);
        s.H = Eigen::MatrixXcd::Zero(restart + 1, restart);
        s.cs.assign(restart, 0);
        s.sn.assign(restart, 0);
        s.g = Eigen::VectorXcd::Zero(restart + 1);
        s.g[0] = beta;
        s.V.col(0) = r / beta;
        s.j = 0;
      }
    }
    active.clear();
    for (int c = 0; c < columns; ++c)
      if (!col[c].done) active.push_back(c);
    if (active.empty()) break;
    // One Arnoldi step of every iterating column.
    Eigen::MatrixXcd v_block(n, active.size());
    for (size_t a = 0; a < active.size(); ++a) v_block.col(a) = col[active[a]].V.col(col[active[a]].j);
    const Eigen::MatrixXcd w_block = A(v_block);
    for (size_t a = 0; a < active.size(); ++a) {
      Column& s = col[active[a]];
      const int j = s.j;
      Eigen::VectorXcd w = w_block.col(a);
      for (int i = 0; i <= j; ++i) {  // modified Gram–Schmidt
        s.H(i, j) = s.V.col(i).dot(w);
        w -= s.H(i, j) * s.V.col(i);
      }
      s.H(j + 1, j) = w.norm();
      if (std::abs(s.H(j + 1, j)) > 0) s.V.col(j + 1) = w / s.H(j + 1, j);
      // Givens rotations [c̄ s̄; −s c] with c = a/ρ, s = b/ρ zero the subdiagonal.
      for (int i = 0; i < j; ++i) {
        const cd h1 = s.H(i, j), h2 = s.H(i + 1, j);
        s.H(i, j) = std::conj(s.cs[i]) * h1 + std::conj(s.sn[i]) * h2;
        s.H(i + 1, j) = -s.sn[i] * h1 + s.cs[i] * h2;
      }
      const double rho = std::sqrt(std::norm(s.H(j, j)) + std::norm(s.H(j + 1, j)));
      s.cs[j] = rho > 0 ? s.H(j, j) / rho : cd(1);
      s.sn[j] = rho > 0 ? s.H(j + 1, j) / rho : cd(0);
      s.H(j, j) = rho;
      s.H(j + 1, j) = 0;
      s.g[j + 1] = -s.sn[j] * s.g[j];
      s.g[j] = std::conj(s.cs[j]) * s.g[j];
      ++s.j;
      ++s.total;
      if (std::abs(s.g[s.j]) <= tolerance * s.b_norm || s.j == restart || s.total >= max_iterations)
        finish_cycle(active[a]);
    }
  }
  std::vector<int> iterations(columns);
  for (int c = 0; c < columns; ++c) iterations[c] = col[c].total;
  return iterations;
}

}  // namespace

BemSurface bem_surface(const Eigen::MatrixXd& vertices, const Eigen::MatrixXi& faces,
                       const Eigen::MatrixXd& edge_points_m, bool straighten_folded) {
  const Eigen::Index n = faces.rows();
  if (edge_points_m.size() > 0 && (edge_points_m.rows() != 3 * n || edge_points_m.cols() != 3))
    throw Error(fmt::format("{} edge points for {} surface triangles (3 per triangle expected)",
                            edge_points_m.rows(), n));
  BemSurface s;
  s.vertices = vertices;
  s.faces = faces;
  s.edge_points_m.resize(3 * n, 3);
  for (Eigen::Index j = 0; j < n; ++j)
    for (int e = 0; e < 3; ++e)
      s.edge_points_m.row(3 * j + e) = edge_points_m.size() > 0
                                           ? Eigen::RowVector3d(edge_points_m.row(3 * j + e))
                                           : Eigen::RowVector3d(0.5 * (vertices.row(faces(j, e)) +
                                                                       vertices.row(faces(j, (e + 1) % 3))));
  // The collocation point, its normal and the element's area on the (curved) patch.
  s.geometry.centres.resize(n, 3);
  s.geometry.normals.resize(n, 3);
  s.geometry.areas_m2.resize(n);
  s.diameters_m.resize(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    CurvedTriangle t = curved_triangle(s, j);
    if (straighten_folded && edge_points_m.size() > 0 && folded(t)) {
      for (int e = 0; e < 3; ++e)
        s.edge_points_m.row(3 * j + e) = 0.5 * (vertices.row(faces(j, e)) + vertices.row(faces(j, (e + 1) % 3)));
      t = curved_triangle(s, j);
      ++s.straightened;
    }
    s.diameters_m[j] = std::max({(t.node[1] - t.node[0]).norm(), (t.node[2] - t.node[1]).norm(),
                                 (t.node[0] - t.node[2]).norm()});
    const CurvedTriangle::Point centre = t.at(1.0 / 3, 1.0 / 3);
    s.geometry.centres.row(j) = centre.position.transpose();
    s.geometry.normals.row(j) = centre.normal.transpose();
    double area = 0;
    for (size_t m = 0; m < kRule7Points.size(); ++m)
      area += 0.5 * kRule7Weights[m] * t.at(reference_point(kRule7Points[m])).jacobian;
    s.geometry.areas_m2[j] = area;
    if (!(area > 0) || folded(t))
      throw Error(fmt::format("surface triangle {} has no area{}: the radiation solve needs a "
                              "surface without degenerate triangles",
                              j, edge_points_m.size() > 0 ? " or is folded by its edge points" : ""));
  }
  return s;
}

namespace {

// The matrix is kept in single precision: its entries are the integrals to about 1e-7, far
// inside the discretisation's error (~1 %), and the GMRES products, which read all of it every
// iteration, are bound by memory bandwidth; half the bytes, half the time and memory.
using cf = std::complex<float>;
using RowMatrix = Eigen::Matrix<cf, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The dense matrix's storage: on 2 MB-aligned memory offered to the kernel for transparent huge
// pages (madvise; where the system allows it), so that its first filling faults in 2 MB pages
// instead of 4 kB ones and the GMRES products stream it with 512× fewer page-table walks.
struct MatrixStorage {
  static constexpr size_t kHugePage = size_t(2) << 20;
  struct Free {
    void operator()(cf* p) const { std::free(p); }
  };
  std::unique_ptr<cf[], Free> data;
  Eigen::Index n = 0;
  Eigen::Map<RowMatrix> resize(Eigen::Index size) {
    if (size != n) {
      const size_t bytes = (sizeof(cf) * size * size + kHugePage - 1) / kHugePage * kHugePage;
      data.reset(static_cast<cf*>(std::aligned_alloc(kHugePage, bytes)));
      if (!data) throw Error(fmt::format("no memory for the radiation solve's {}-element matrix", size));
#ifdef MADV_HUGEPAGE
      madvise(data.get(), bytes, MADV_HUGEPAGE);  // advice only: its failure changes nothing
#endif
      n = size;
    }
    return Eigen::Map<RowMatrix>(data.get(), n, n);
  }
};

// Recursive coordinate bisection of the collocation points: groups of at most `max_size`
// neighbouring elements, each group split at the median along its bounding box's longest side.
std::vector<std::vector<int>> spatial_clusters(const Eigen::MatrixXd& centres, int max_size) {
  std::vector<int> order(centres.rows());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::vector<std::vector<int>> clusters;
  std::vector<std::pair<size_t, size_t>> pending = {{0, order.size()}};
  while (!pending.empty()) {
    const auto [begin, end] = pending.back();
    pending.pop_back();
    if (end - begin <= static_cast<size_t>(max_size)) {
      clusters.emplace_back(order.begin() + begin, order.begin() + end);
      continue;
    }
    Eigen::Vector3d low = Eigen::Vector3d::Constant(HUGE_VAL), high = -low;
    for (size_t m = begin; m < end; ++m) {
      low = low.cwiseMin(centres.row(order[m]).transpose());
      high = high.cwiseMax(centres.row(order[m]).transpose());
    }
    Eigen::Index axis;
    (high - low).maxCoeff(&axis);
    const size_t middle = begin + (end - begin) / 2;
    std::nth_element(order.begin() + begin, order.begin() + middle, order.begin() + end,
                     [&](int a, int b) { return centres(a, axis) < centres(b, axis); });
    pending.push_back({begin, middle});
    pending.push_back({middle, end});
  }
  return clusters;
}

}  // namespace

struct BemSolver::State {
  BemSurface surface;
  BemOptions options;
  RulePoints rules;
  std::vector<std::vector<int>> clusters;  // the preconditioner's blocks (empty: none)
  MatrixStorage matrix;                     // the last solve's matrix, overwritten by the next
  State(const BemSurface& s, const BemOptions& o) : surface(s), options(o), rules(s) {
    if (options.preconditioner_block > 0 && s.faces.rows() > options.preconditioner_block)
      clusters = spatial_clusters(s.geometry.centres, options.preconditioner_block);
  }
};

BemSolver::BemSolver(const BemSurface& surface, const BemOptions& options) {
  check_surface(surface, surface.faces.rows());
  state_ = std::make_unique<State>(surface, options);
}
BemSolver::~BemSolver() = default;
BemSolver::BemSolver(BemSolver&&) noexcept = default;
BemSolver& BemSolver::operator=(BemSolver&&) noexcept = default;

BemSolution bem_solve(const BemSurface& s, double frequency_hz, const Eigen::VectorXcd& velocity,
                      const BemOptions& o) {
  return bem_solve_many(s, frequency_hz, velocity, o).front();
}

std::vector<BemSolution> bem_solve_many(const BemSurface& s, double frequency_hz,
                                        const Eigen::MatrixXcd& velocities, const BemOptions& o) {
  check_surface(s, velocities.rows());
  return BemSolver(s, o).solve(frequency_hz, velocities);
}

std::vector<BemSolution> BemSolver::solve(double frequency_hz, const Eigen::MatrixXcd& velocities) {
  const BemSurface& s = state_->surface;
  const BemOptions& o = state_->options;
  const RulePoints& rules = state_->rules;
  check_surface(s, velocities.rows());
  if (velocities.cols() == 0) return {};
  if (!(frequency_hz > 0) || !std::isfinite(frequency_hz))
    throw Error(fmt::format("the radiation solve needs a positive frequency (got {})", frequency_hz));
  const double omega = 2 * kPi * frequency_hz;
  const double k = omega / o.speed_of_sound_m_s;
  const int m = static_cast<int>(velocities.cols());
  const Eigen::MatrixXcd q = (kI * omega * o.density_kg_m3) * velocities;  // Euler, e^{−iωt}
  // Burton & Miller 1971: the Helmholtz integral equation (M − ½)p = Lq plus α times its
  // normal derivative N p = (Mᵗ + ½) q, where M, Mᵗ, L, N are the double-layer, adjoint
  // double-layer, single-layer and hypersingular operators (Kirkup 2019, Appl. Sci. 9, 1642,
  // §3's notation). Any α with Im α ≠ 0 makes the solution unique at every k; α = i/k scales the
  // two parts alike.
  const cd alpha = o.burton_miller ? kI / k : cd(0);
  const Assembler assembler{s, k, alpha};
  const int n = static_cast<int>(s.faces.rows());
  // Allocated by the first solve only: a fresh 8F² bytes per frequency had every page faulted in
  // and zeroed again (a tenth of a 7 k-element solve). Every entry is written below.
  Eigen::Map<RowMatrix> A = state_->matrix.resize(n);
  Eigen::MatrixXcd rhs(n, m);
  const GaussRule gauss = gauss_legendre_unit(8);
  const Eigen::VectorXd& h = s.diameters_m;
  const double alpha_over_i = alpha.imag();
  const PointArrays& centroids = rules.rule[static_cast<size_t>(ElementRule::kCentroid)];
  // Row by row, each on one thread: every element's rule by its distance, the kernels of the
  // centroid, 3- and 7-point rules' points evaluated in place in the precomputed arrays (no
  // copies; vectorised, bem_kernels.hpp), the adaptive elements' points in a batch. Jacobi scaling on the way: the rows differ by orders of
  // magnitude where elements differ in size, so each row (and its right-hand side) is divided
  // by its diagonal entry.
#pragma omp parallel
  {
    std::vector<unsigned char> rule_of(n);
    // By rule: the elements, and the runs of consecutive ones (sized for the worst case once,
    // written through counters). A run's points are contiguous in the rule's arrays, so the
    // kernels read them in place: far elements come in long runs of the index order.
    std::array<std::vector<int>, 3> elements;
    std::array<std::vector<std::pair<int, int>>, 3> runs;  // [first, last + 1) element
    for (size_t r = 0; r < elements.size(); ++r) elements[r].resize(n), runs[r].resize(n);
    KernelValues values;
    PointBatch adaptive;
    std::vector<int> adaptive_column;
    Eigen::VectorXcd q_row(n);  // row i's coefficients of the normal derivative
#pragma omp for schedule(dynamic, 8)
    for (int i = 0; i < n; ++i) {
      const Eigen::Vector3d x = s.geometry.centres.row(i).transpose();
      const Eigen::Vector3d nx = s.geometry.normals.row(i).transpose();
      const double x0 = x.x(), x1 = x.y(), x2 = x.z();
      // element_rule for every j, as arithmetic (vectorised): the rule's index is the number of
      // thresholds the distance falls within.
#pragma omp simd
      for (int j = 0; j < n; ++j) {
        const double d0 = centroids.x[j] - x0, d1 = centroids.y[j] - x1, d2 = centroids.z[j] - x2;
        const double d = std::sqrt(d0 * d0 + d1 * d1 + d2 * d2), hj = h[j];
        rule_of[j] = static_cast<unsigned char>((d <= kFar * hj || k * hj >= kOnePointKh) + (d <= kMiddle * hj) +
                                                (d <= kNear * hj));
      }
      std::array<int, 3> element_count = {0, 0, 0}, run_count = {0, 0, 0};
      adaptive.clear();
      adaptive_column.clear();
      for (int j = 0; j < n; ++j) {
        if (j == i) continue;
        const int r = rule_of[j];
        if (r == static_cast<int>(ElementRule::kAdaptive)) {
          adaptive_points(x, curved_triangle(s, j), adaptive);
          adaptive_column.insert(adaptive_column.end(), adaptive.size() - adaptive_column.size(), j);
        } else {
          elements[r][element_count[r]++] = j;
          if (run_count[r] > 0 && runs[r][run_count[r] - 1].second == j)
            ++runs[r][run_count[r] - 1].second;
          else
            runs[r][run_count[r]++] = {j, j + 1};
        }
      }
      const RowTerms self = assembler.self(i, gauss);
      const cd scale = 1.0 / (self.p - 0.5);
      cf* row = A.row(i).data();
      row[i] = cf(1);
      q_row[i] = self.q + 0.5 * alpha;
      for (size_t r = 0; r < elements.size(); ++r) {
        if (element_count[r] == 0) continue;
        const int count = RulePoints::per_element[r];
        const PointArrays& from = rules.rule[r];
        const BemKernelOut out = values.out(static_cast<size_t>(count) * element_count[r]);
        for (int run = 0, done = 0; run < run_count[r]; ++run) {  // done: points evaluated so far
          const auto [first, end] = runs[r][run];
          const size_t p = static_cast<size_t>(count) * first;
          burton_miller_kernels(x, nx, k, alpha_over_i,
                                {&from.x[p], &from.y[p], &from.z[p], &from.nx[p], &from.ny[p], &from.nz[p],
                                 &from.weight[p], count * (end - first)},
                                {out.k1_re + done, out.k1_im + done, out.k2_re + done, out.k2_im + done});
          done += count * (end - first);
        }
        for (int e = 0; e < element_count[r]; ++e) {
          cd a = 0, b = 0;
          for (int c = 0; c < count; ++c) a += values.k1(count * e + c), b += values.k2(count * e + c);
          const int j = elements[r][e];
          row[j] = cf(scale * a);
          q_row[j] = b;
        }
      }
      adaptive.evaluate(x, nx, k, alpha_over_i);
      for (size_t p = 0; p < adaptive_column.size();) {  // each element's points are consecutive
        const int j = adaptive_column[p];
        cd a = 0, b = 0;
        for (; p < adaptive_column.size() && adaptive_column[p] == j; ++p)
          a += adaptive.kernel.k1(p), b += adaptive.kernel.k2(p);
        row[j] = cf(scale * a);
        q_row[j] = b;
      }
      rhs.row(i) = scale * (q_row.transpose() * q);
    }
  }
  std::vector<BemSolution> out(m);
  for (int c = 0; c < m; ++c) {
    out[c].wavenumber_rad_m = k;
    out[c].normal_derivative_pa_m = q.col(c);
  }
  if (n <= o.direct_below) {
    const Eigen::PartialPivLU<Eigen::MatrixXcd> lu(A.cast<cd>());
    for (int c = 0; c < m; ++c) out[c].pressure_pa = lu.solve(rhs.col(c)), out[c].factorised = true;
    return out;
  }
  // The products row block by row block on every core, each row read once for all the columns
  // (bem_kernels.hpp: a pair of modes costs one pass over the matrix per iteration, not two).
  const auto product = [&A, n](const Eigen::MatrixXcd& v) {
    const int columns = static_cast<int>(v.cols());
    std::vector<float> forms(4L * n * columns);
    for (int c = 0; c < columns; ++c) {
      float* re_form = forms.data() + 4L * n * c;
      float* im_form = re_form + 2L * n;
      for (int j = 0; j < n; ++j) {
        const float re = static_cast<float>(v(j, c).real()), im = static_cast<float>(v(j, c).imag());
        re_form[2 * j] = re, re_form[2 * j + 1] = -im;
        im_form[2 * j] = im, im_form[2 * j + 1] = re;
      }
    }
    std::vector<double> result(2L * n * columns);
    const float* a = reinterpret_cast<const float*>(A.data());
    constexpr int kBlock = 64;
#pragma omp parallel for schedule(static)
    for (int r0 = 0; r0 < n; r0 += kBlock)
      complex_rows_times_vectors(a + 2L * n * r0, std::min(kBlock, n - r0), n, forms.data(), columns,
                                 result.data() + 2L * r0 * columns);
    Eigen::MatrixXcd out(n, columns);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < columns; ++c)
        out(r, c) = cd(result[2 * (r * columns + c)], result[2 * (r * columns + c) + 1]);
    return out;
  };
  // Block-Jacobi preconditioning on spatial clusters (right-preconditioned: GMRES solves
  // A·M⁻¹·y = b and x = M⁻¹·y, so its residual stays the true one of A·x = b): M is A's
  // diagonal blocks of neighbouring elements, each factorised once per matrix. They hold the
  // strongest near-field couplings (a thin wall's two faces among them), which the diagonal
  // scaling alone leaves to the iterations.
  const std::vector<std::vector<int>>& clusters = state_->clusters;
  std::vector<Eigen::PartialPivLU<Eigen::MatrixXcd>> blocks(clusters.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t c = 0; c < clusters.size(); ++c) {
    const std::vector<int>& I = clusters[c];
    Eigen::MatrixXcd block(I.size(), I.size());
    for (size_t a = 0; a < I.size(); ++a)
      for (size_t b = 0; b < I.size(); ++b) block(a, b) = cd(A(I[a], I[b]));
    blocks[c].compute(block);
  }
  const auto precondition = [&clusters, &blocks, n](const Eigen::MatrixXcd& v) {
    if (clusters.empty()) return v;
    Eigen::MatrixXcd result(n, v.cols());
#pragma omp parallel for schedule(dynamic, 4)
    for (size_t c = 0; c < clusters.size(); ++c) {
      const std::vector<int>& I = clusters[c];
      Eigen::MatrixXcd part(I.size(), v.cols());
      for (size_t a = 0; a < I.size(); ++a) part.row(a) = v.row(I[a]);
      part = blocks[c].solve(part);
      for (size_t a = 0; a < I.size(); ++a) result.row(I[a]) = part.row(a);
    }
    return result;
  };
  const auto preconditioned_product = [&](const Eigen::MatrixXcd& v) { return product(precondition(v)); };
  Eigen::MatrixXcd y;
  const std::vector<int> iterations = gmres(preconditioned_product, rhs, y, o.tolerance, 200, 2000);
  const Eigen::MatrixXcd x = precondition(y);
  const Eigen::MatrixXcd residual = product(x) - rhs;
  for (int c = 0; c < m; ++c) {
    BemSolution& sol = out[c];
    sol.iterations = iterations[c];
    sol.pressure_pa = x.col(c);
    const double relative = residual.col(c).norm() / std::max(rhs.col(c).norm(), 1e-300);
    if (!(relative <= 1e3 * o.tolerance)) {  // stagnated: the dense factorisation always answers
      sol.pressure_pa = Eigen::PartialPivLU<Eigen::MatrixXcd>(A.cast<cd>()).solve(rhs.col(c));
      sol.factorised = true;
    }
  }
  return out;
}

Eigen::VectorXcd bem_field_pressure(const BemSurface& s, const BemSolution& sol,
                                    const Eigen::MatrixXd& points) {
  check_surface(s, sol.pressure_pa.size());
  // The representation formula (Colton & Kress 2013, Theorem 2.5): for x outside,
  // p(x) = ∫ [p ∂G/∂n_y − G ∂p/∂n] dS_y: the batch kernels' k1 and k2 with α = 0, each
  // element's points by the assembly's rules.
  const RulePoints rules(s);
  const double k = sol.wavenumber_rad_m;
  Eigen::VectorXcd out(points.rows());
  const Eigen::Vector3d unused_normal = Eigen::Vector3d::UnitZ();
#pragma omp parallel
  {
    PointBatch batch;
    std::vector<int> column;
#pragma omp for schedule(dynamic, 1)
    for (Eigen::Index p = 0; p < points.rows(); ++p) {
      const Eigen::Vector3d x = points.row(p).transpose();
      batch.clear();
      column.clear();
      for (int j = 0; j < s.faces.rows(); ++j) {
        element_points(s, rules, x, j, k, batch);
        column.insert(column.end(), batch.size() - column.size(), j);
      }
      batch.evaluate(x, unused_normal, k, 0);
      cd sum = 0;
      for (size_t m = 0; m < column.size(); ++m)
        sum += batch.kernel.k1(m) * sol.pressure_pa[column[m]] -
               batch.kernel.k2(m) * sol.normal_derivative_pa_m[column[m]];
      out[p] = sum;
    }
  }
  return out;
}

Eigen::VectorXcd bem_far_field(const BemSurface& s, const BemSolution& sol, const Eigen::MatrixXd& directions,
                               const Eigen::Vector3d& origin) {
  check_surface(s, sol.pressure_pa.size());
  // The far-field pattern of the representation formula (Colton & Kress 2013, Theorem 2.6):
  // G → e^{ikr}/(4πr)·e^{−ik d·(y−o)}, ∂G/∂n_y → the same times −ik d·n_y, so
  // F(d) = (1/4π) ∫ [−ik (d·n_y) p − ∂p/∂n] e^{−ik d·(y−o)} dS_y (7-point rule per element).
  const double k = sol.wavenumber_rad_m;
  // The 7-point rule's points with their element's pressure and normal derivative, once for all
  // directions (the sum itself is vectorised in bem_kernels.cpp).
  const RulePoints rules(s);
  PointBatch batch;
  const Eigen::Index n = s.faces.rows();
  std::vector<double> p_re, p_im, q_re, q_im;
  for (Eigen::Index j = 0; j < n; ++j) {
    rules.add(batch, ElementRule::kSeven, static_cast<int>(j));
    for (size_t m = 0; m < kRule7Points.size(); ++m) {
      p_re.push_back(sol.pressure_pa[j].real()), p_im.push_back(sol.pressure_pa[j].imag());
      q_re.push_back(sol.normal_derivative_pa_m[j].real());
      q_im.push_back(sol.normal_derivative_pa_m[j].imag());
    }
  }
  const BemPoints points = batch.points();
  Eigen::VectorXcd out(directions.rows());
#pragma omp parallel for schedule(dynamic, 4)
  for (Eigen::Index m = 0; m < directions.rows(); ++m) {
    const Eigen::Vector3d d = directions.row(m).transpose().normalized();
    out[m] = far_field_sum(d, origin, k, points, p_re.data(), p_im.data(), q_re.data(), q_im.data()) /
             (4 * kPi);
  }
  return out;
}

Eigen::VectorXd real_spherical_harmonics(int order, const Eigen::Vector3d& direction) {
  const Eigen::Vector3d d = direction.normalized();
  const double z = std::clamp(d.z(), -1.0, 1.0);
  const double phi = std::atan2(d.y(), d.x());
  Eigen::VectorXd y((order + 1) * (order + 1));
  for (int l = 0; l <= order; ++l)
    for (int m = -l; m <= l; ++m) {
      const int am = std::abs(m);
      // std::assoc_legendre omits the Condon–Shortley phase, as the ambisonic convention does.
      const double norm =
          std::sqrt((2 * l + 1) / (4 * kPi) * std::exp(std::lgamma(l - am + 1) - std::lgamma(l + am + 1)));
      const double p = std::assoc_legendre(l, am, z);
      const double azimuth = m > 0 ? std::sqrt(2.0) * std::cos(m * phi)
                             : m < 0 ? std::sqrt(2.0) * std::sin(am * phi)
                                     : 1.0;
      y[l * l + l + m] = norm * p * azimuth;
    }
  return y;
}

std::complex<double> Directivity::evaluate(const Eigen::Vector3d& direction) const {
  const Eigen::VectorXd y = real_spherical_harmonics(order, direction);
  return (y.cast<cd>().array() * coefficients.head(y.size()).array()).sum();
}

int directivity_order(double k, double radius_m) {
  return std::min(kMaxDirectivityOrder, static_cast<int>(std::ceil(k * radius_m)) + 2);
}

Directivity bem_directivity(const BemSurface& s, const BemSolution& sol, int order,
                            const Eigen::Vector3d& origin) {
  if (order < 0 || order > 64) throw Error(fmt::format("directivity order {} is out of range", order));
  // Gauss–Legendre in cos θ and the trapezoidal rule in φ: L + 2 and 2L + 3 points integrate
  // Y_lm times a pattern of degree L + 2 exactly (the order already exceeds ka by 2, above which
  // the pattern's content falls off fast).
  const int n_theta = order + 2, n_phi = 2 * order + 3;
  const GaussRule g = gauss_legendre_unit(n_theta);
  Eigen::MatrixXd directions(n_theta * n_phi, 3);
  Eigen::VectorXd weights(n_theta * n_phi);
  for (int a = 0; a < n_theta; ++a) {
    const double z = 2 * g.x[a] - 1, rho = std::sqrt(std::max(0.0, 1 - z * z));
    for (int b = 0; b < n_phi; ++b) {
      const double phi = 2 * kPi * b / n_phi;
      directions.row(a * n_phi + b) << rho * std::cos(phi), rho * std::sin(phi), z;
      weights[a * n_phi + b] = 2 * g.w[a] * 2 * kPi / n_phi;
    }
  }
  const Eigen::VectorXcd f = bem_far_field(s, sol, directions, origin);
  Directivity out;
  out.order = order;
  out.coefficients = Eigen::VectorXcd::Zero((order + 1) * (order + 1));
  for (Eigen::Index m = 0; m < directions.rows(); ++m)
    out.coefficients +=
        (weights[m] * f[m]) * real_spherical_harmonics(order, directions.row(m).transpose()).cast<cd>();
  return out;
}

std::complex<double> spherical_hankel1(int n, double x) {
  // h₀ = −i e^{ix}/x, h₁ = −e^{ix}(x + i)/x², then h_{n+1} = (2n+1)/x h_n − h_{n−1}.
  const cd e = std::polar(1.0, x);
  cd h0 = -kI * e / x;
  if (n == 0) return h0;
  cd h1 = -e * (x + kI) / (x * x);
  for (int m = 1; m < n; ++m) {
    const cd h2 = (2.0 * m + 1) / x * h1 - h0;
    h0 = h1;
    h1 = h2;
  }
  return h1;
}

std::complex<double> spherical_hankel1_derivative(int n, double x) {
  // h_n' = h_{n−1} − (n+1)/x h_n, and h₀' = −h₁.
  if (n == 0) return -spherical_hankel1(1, x);
  return spherical_hankel1(n - 1, x) - (n + 1.0) / x * spherical_hankel1(n, x);
}

}  // namespace mesh2dsp
