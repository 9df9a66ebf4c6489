// FEM core and eigen path on analytic cases: Zhu's 1-D bar element, element matrices,
// and a structured box of tetrahedra against beam theory.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <set>

#include <Eigen/Eigenvalues>

#include "fem/assembly.hpp"
#include "fem/bar1d.hpp"
#include "fem/boundary.hpp"
#include "fem/elements.hpp"
#include "fem/fem_mesh.hpp"
#include "modal/eigen_solve.hpp"
#include "modal/modal_analysis.hpp"
#include "fem/structured_box.hpp"
#include "fem/tet_mesh.hpp"
#include "util/error.hpp"

using namespace mesh2dsp;

TEST(Bar1d, ElementMatricesAreZhus) {
  Eigen::Matrix2d k, m;
  bar1d_element_matrices(2e11, 1e-4, 7850, 0.5, k, m);
  // Zhu: M = ρAl/6 [2 1; 1 2], K = EA/l [1 −1; −1 1].
  EXPECT_DOUBLE_EQ(m(0, 0), 7850 * 1e-4 * 0.5 / 6 * 2);
  EXPECT_DOUBLE_EQ(m(0, 1), 7850 * 1e-4 * 0.5 / 6);
  EXPECT_DOUBLE_EQ(k(0, 0), 2e11 * 1e-4 / 0.5);
  EXPECT_DOUBLE_EQ(k(0, 1), -2e11 * 1e-4 / 0.5);
}

TEST(Bar1d, FreeFreeLongitudinalModesMatchNcOver2L) {
  const double E = 2e11, rho = 7850, L = 1.0, A = 1e-4;
  const double c = std::sqrt(E / rho);
  const auto fem = assemble_bar1d(400, E, A, rho, L);
  EigenSolveOptions options;
  options.count = 6;
  options.shift = -std::pow(2 * M_PI * 10, 2);
  const auto sol = solve_lowest_modes(fem.stiffness, fem.mass, options);
  // Mode 0 is the rigid translation; f_n = n·c/(2L) after it.
  EXPECT_LT(std::abs(sol.eigenvalues[0]), 1e-6 * sol.eigenvalues[1]);
  for (int n = 1; n <= 5; ++n) {
    const double f = std::sqrt(sol.eigenvalues[n]) / (2 * M_PI);
    const double exact = n * c / (2 * L);
    EXPECT_NEAR(f / exact, 1.0, 1e-3) << "mode " << n;
  }
  // Mass-normalised: φᵀMφ = I.
  const SparseMatrix M = symmetric_from_lower(fem.mass);
  const Eigen::MatrixXd gram = sol.vectors.transpose() * (M * sol.vectors);
  EXPECT_LT((gram - Eigen::MatrixXd::Identity(gram.rows(), gram.cols())).norm(), 1e-8);
}

namespace {
TetCorners unit_corners() {
  TetCorners x;
  x << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1;
  return x;
}
TetCorners skewed_corners() {
  TetCorners x;
  x << 0.1, -0.2, 0.05, 1.3, 0.1, -0.1, 0.2, 0.9, 0.3, -0.1, 0.2, 1.1;
  return x;
}
}  // namespace

TEST(Elements, MassMatricesIntegrateExactly) {
  const TetCorners x = skewed_corners();
  Eigen::Matrix<double, 4, 3> g;
  const double V = barycentric_gradients(x, g);
  ASSERT_GT(V, 0);
  const double rho = 3.0;
  Eigen::Matrix<double, 30, 30> k2, m2;
  p2_element_matrices(x, 1.0, 1.0, rho, k2, m2);
  // A translation u = e_x: uᵀMu = ρV.
  Eigen::Matrix<double, 30, 1> ux = Eigen::Matrix<double, 30, 1>::Zero();
  for (int a = 0; a < 10; ++a) ux(3 * a) = 1;
  EXPECT_NEAR(ux.dot(m2 * ux), rho * V, 1e-12);
  // u = (x, 0, 0) is in P2: uᵀMu = ρ∫x² dV = ρV/20·(Σxᵢ² + (Σxᵢ)²) for a tet.
  Eigen::Matrix<double, 10, 3> nodes;
  nodes.topRows(4) = x;
  for (int e = 0; e < 6; ++e) nodes.row(4 + e) = 0.5 * (x.row(kTetEdges[e][0]) + x.row(kTetEdges[e][1]));
  Eigen::Matrix<double, 30, 1> u = Eigen::Matrix<double, 30, 1>::Zero();
  for (int a = 0; a < 10; ++a) u(3 * a) = nodes(a, 0);
  const double sx = x.col(0).sum(), sxx = x.col(0).squaredNorm();
  EXPECT_NEAR(u.dot(m2 * u), rho * V / 20 * (sxx + sx * sx), 1e-12);
  // Rigid motions carry no strain energy; a uniform stretch gives the exact energy.
  EXPECT_LT((k2 * ux).norm(), 1e-10);
  const double lambda = 1.0, mu = 1.0;
  // u = (x,0,0): ε_xx = 1 → energy density ½(λ + 2μ).
  EXPECT_NEAR(0.5 * u.dot(k2 * u), 0.5 * (lambda + 2 * mu) * V, 1e-12);
  Eigen::Matrix<double, 12, 12> k1, m1;
  p1_element_matrices(unit_corners(), lambda, mu, rho, k1, m1);
  Eigen::Matrix<double, 12, 1> u1 = Eigen::Matrix<double, 12, 1>::Zero();
  for (int a = 0; a < 4; ++a) u1(3 * a) = unit_corners()(a, 0);
  EXPECT_NEAR(0.5 * u1.dot(k1 * u1), 0.5 * (lambda + 2 * mu) / 6.0, 1e-12);
}

TEST(Boundary, HalfSpacesParseAndSelect) {
  auto h = parse_half_space(" x <= 0.0 ");
  EXPECT_EQ(h.axis, 0);
  EXPECT_TRUE(h.less);
  h = parse_half_space("z>=-1e-3");
  EXPECT_EQ(h.axis, 2);
  EXPECT_FALSE(h.less);
  EXPECT_DOUBLE_EQ(h.value_m, -1e-3);
  for (auto bad : {"", "w<=0", "x=0", "x<=", "x<=abc", "x<=1e999"})
    EXPECT_THROW(parse_half_space(bad), Error) << bad;
  Eigen::MatrixXd nodes(3, 3);
  nodes << 0, 0, 0, 0.5, 0, 0, 1, 0, 0;
  auto c = clamped_nodes(nodes, {parse_half_space("x<=0")});
  EXPECT_TRUE(c[0]);
  EXPECT_FALSE(c[1]);
  EXPECT_THROW(clamped_nodes(nodes, {parse_half_space("x<=-1")}), Error);
}

namespace {
// The FEM core's structured box, from the origin.
TetMesh structured_box(double lx, double ly, double lz, int nx, int ny, int nz) {
  return mesh2dsp::structured_box(Eigen::Vector3d::Zero(), Eigen::Vector3d(lx, ly, lz), nx, ny, nz);
}

std::vector<double> box_frequencies(const TetMesh& tets, int order, int count,
                                    const std::vector<HalfSpace>& fix = {}) {
  const auto mesh = make_fem_mesh(tets, order);
  ModalAnalysisRequest request;
  request.modes = count;
  request.fmin_hz = 1;
  request.fix = fix;
  const auto r = analyze_modes(mesh, find_material_preset("steel"), request);
  std::vector<double> f;
  for (double lambda : r.eigenvalues) f.push_back(std::sqrt(lambda) / (2 * M_PI));
  return f;
}
}  // namespace

TEST(Box, QuadraticElementsBeatLinearInBending) {
  // The benchmark bar 0.30 × 0.03 × 0.02 m (steel): first z-bending mode, Timoshenko 1135.0 Hz
  // (Cowper's κ). P1 on a finer mesh with more DOF than P2 is still worse.
  const double timoshenko_z1 = 1135.0;
  const auto p2 = box_frequencies(structured_box(0.30, 0.03, 0.02, 15, 2, 2), 2, 1);
  const auto p1 = box_frequencies(structured_box(0.30, 0.03, 0.02, 30, 4, 4), 1, 1);
  const double e2 = std::abs(p2[0] / timoshenko_z1 - 1), e1 = std::abs(p1[0] / timoshenko_z1 - 1);
  EXPECT_LT(e2, 0.015);
  EXPECT_LT(e2, e1 / 3);
  // Refinement: the error shrinks, for both orders.
  double previous2 = INFINITY, previous1 = INFINITY;
  for (int k : {1, 2, 3}) {
    const auto f2 = box_frequencies(structured_box(0.30, 0.03, 0.02, 5 * k, k, k), 2, 1);
    const auto f1 = box_frequencies(structured_box(0.30, 0.03, 0.02, 10 * k, 2 * k, 2 * k), 1, 1);
    const double err2 = std::abs(f2[0] / timoshenko_z1 - 1), err1 = std::abs(f1[0] / timoshenko_z1 - 1);
    EXPECT_LT(err2, previous2) << k;
    EXPECT_LT(err1, previous1) << k;
    previous2 = err2;
    previous1 = err1;
  }
}

TEST(Box, CantileverMatchesClampedFreeBeam) {
  // Clamped-free Euler–Bernoulli: ω = (βL)²·√(EI/(ρAL⁴)), βL = 1.8751, 4.6941 (slender beam
  // 0.2 × 0.01 × 0.01 so shear is small: Timoshenko within ~0.5 % for the first two).
  const double L = 0.2, h = 0.01;
  const auto steel = find_material_preset("steel");
  const double I = h * h * h * h / 12, A = h * h;
  const double base = std::sqrt(steel.youngs_modulus_pa * I / (steel.density_kg_m3 * A)) / (L * L);
  const auto f = box_frequencies(structured_box(L, h, h, 20, 2, 2), 2, 6, {parse_half_space("x<=0")});
  // Square section: the bending pairs (y and z) are degenerate.
  const double f1 = 1.8751 * 1.8751 * base / (2 * M_PI), f2 = 4.6941 * 4.6941 * base / (2 * M_PI);
  EXPECT_NEAR(f[0] / f1, 1.0, 0.02);
  EXPECT_NEAR(f[1] / f1, 1.0, 0.02);
  bool found = false;
  for (double x : f) found |= std::abs(x / f2 - 1) < 0.03;
  EXPECT_TRUE(found);
}

// A model's six rigid modes come out at round-off (~1e-5 of its highest frequency); an elastic
// mode under a thousandth of the highest is still elastic once the six are counted: a sword's
// 300 modes span 20.7 Hz to 21 kHz.
TEST(RigidModes, AreTheExpectedNearZerosNotALowFundamentalOfAWideSpectrum) {
  auto lambda = [](double hz) { return std::pow(2 * M_PI * hz, 2); };
  const double highest_hz = 21000;
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(is_rigid_mode(lambda(0.2), i, 6, highest_hz));
  EXPECT_TRUE(is_rigid_mode(-1.0, 0, 6, highest_hz));
  EXPECT_FALSE(is_rigid_mode(lambda(20.7), 6, 6, highest_hz));
  // A seventh near-zero (a broken mesh's) is still told apart, so the notice can say so.
  EXPECT_TRUE(is_rigid_mode(lambda(0.2), 6, 6, highest_hz));
  // Clamped: none expected, round-off zeros still caught.
  EXPECT_FALSE(is_rigid_mode(lambda(20.7), 0, 0, highest_hz));
  EXPECT_TRUE(is_rigid_mode(lambda(0.2), 0, 0, highest_hz));
}

TEST(Box, ExactlyTheRigidModesAreExcludedAndShapesAreMassNormalised) {
  const TetMesh tets = structured_box(0.30, 0.03, 0.02, 12, 2, 2);
  const auto mesh = make_fem_mesh(tets, 2);
  const auto steel = find_material_preset("steel");
  ModalAnalysisRequest request;
  request.modes = 8;
  const auto free_body = analyze_modes(mesh, steel, request);
  EXPECT_EQ(free_body.rigid_modes, 6);
  ASSERT_EQ(free_body.eigenvalues.size(), 8);
  EXPECT_GT(std::sqrt(free_body.eigenvalues[0]) / (2 * M_PI), 1000.0);  // first bending, not rigid
  for (int i = 1; i < free_body.eigenvalues.size(); ++i)
    EXPECT_LE(free_body.eigenvalues[i - 1], free_body.eigenvalues[i]);
  const SparseMatrix M = symmetric_from_lower(assemble_fem_matrices(mesh, steel).mass);
  const Eigen::MatrixXd gram = free_body.shapes.transpose() * (M * free_body.shapes);
  EXPECT_LT((gram - Eigen::MatrixXd::Identity(8, 8)).norm(), 1e-8);
  request.fix = {parse_half_space("x<=-0.149")};  // nothing: the box starts at x = 0
  EXPECT_THROW(analyze_modes(mesh, steel, request), Error);
  request.fix = {parse_half_space("x<=0")};
  const auto clamped = analyze_modes(mesh, steel, request);
  EXPECT_EQ(clamped.rigid_modes, 0);
  // The clamped DOFs stay exactly zero in the shapes.
  for (int n = 0; n < mesh.nodes.rows(); ++n)
    if (mesh.nodes(n, 0) <= 1e-12) EXPECT_EQ(clamped.shapes.row(3 * n).norm(), 0.0);
}

// Mₙ (M = Mₙ ⊗ I₃) straight from the lower triangle as assembled, in a given node order: the
// same matrix as from the whole M, permuted; and nothing when M is not of that form.
TEST(Assembly, TheNodeMassComesFromTheLowerTriangleInAnyOrder) {
  const TetMesh box = structured_box({0, 0, 0}, {0.1, 0.05, 0.05}, 4, 2, 2);
  const FemMatrices fem = assemble_fem_matrices(make_fem_mesh(box, 2), find_material_preset("steel"));
  const RowMajorSparse whole = symmetric_from_lower(fem.mass);
  const RowMajorSparse node = node_mass_matrix(whole);
  const int nodes = static_cast<int>(fem.mass.rows() / 3);
  ASSERT_EQ(node.rows(), nodes);
  Eigen::VectorXi order(nodes);
  for (int k = 0; k < nodes; ++k) order[k] = (7 * k + 3) % nodes;  // 7 is prime to the node count
  ASSERT_NE(nodes % 7, 0);
  const RowMajorSparse ordered = node_mass_from_lower(fem.mass, order);
  ASSERT_EQ(ordered.rows(), nodes);
  EXPECT_EQ(ordered.nonZeros(), node.nonZeros());
  const Eigen::MatrixXd dense = Eigen::MatrixXd(node), dense_ordered = Eigen::MatrixXd(ordered);
  for (int a = 0; a < nodes; ++a)
    for (int b = 0; b < nodes; ++b) ASSERT_EQ(dense_ordered(a, b), dense(order[a], order[b])) << a << ", " << b;
  // A y component that differs from its x one: not Mₙ ⊗ I₃.
  SparseMatrix changed = fem.mass;
  changed.coeffRef(4, 1) *= 1.01;
  EXPECT_EQ(node_mass_from_lower(changed, order).size(), 0);
  // A coupling between different components: neither.
  SparseMatrix coupled = fem.mass;
  coupled.coeffRef(5, 0) = 1e-3;
  EXPECT_EQ(node_mass_from_lower(coupled, {}).size(), 0);
}

namespace {
// The P3 nodes of a straight-sided element with these corners, in FemMesh's order.
P3Nodes straight_p3_nodes(const TetCorners& x) {
  P3Nodes nodes;
  nodes.topRows(4) = x;
  for (int e = 0; e < 6; ++e) {
    const Eigen::RowVector3d a = x.row(kTetEdges[e][0]), b = x.row(kTetEdges[e][1]);
    nodes.row(4 + 2 * e) = (2 * a + b) / 3;
    nodes.row(5 + 2 * e) = (a + 2 * b) / 3;
  }
  for (int k = 0; k < 4; ++k) nodes.row(16 + k) = (x.colwise().sum() - x.row(k)) / 3;
  return nodes;
}
}  // namespace

// The cubic shape functions interpolate (N_a at node b is δ_ab), and a cubic element integrates
// what a quadratic one integrates exactly the same way: the mass and strain energy of a
// quadratic displacement, and of rigid motions.
TEST(Elements, CubicShapeFunctionsInterpolateAndAgreeWithQuadraticOnQuadraticFields) {
  const TetCorners x = unit_corners();
  const P3Nodes nodes = straight_p3_nodes(x);
  Eigen::Matrix<double, 20, 1> n;
  Eigen::Matrix<double, 20, 3> dn;
  for (int b = 0; b < 20; ++b) {
    const double L[4] = {1 - nodes.row(b).sum(), nodes(b, 0), nodes(b, 1), nodes(b, 2)};
    p3_shape(L, n, dn);
    for (int a = 0; a < 20; ++a) ASSERT_NEAR(n[a], a == b ? 1.0 : 0.0, 1e-13) << a << " at " << b;
    EXPECT_NEAR(dn.colwise().sum().norm(), 0.0, 1e-12);  // Σ N = 1 everywhere
  }
  const TetCorners skewed = skewed_corners();
  const P3Nodes p3 = straight_p3_nodes(skewed);
  P2Nodes p2;
  p2.topRows(4) = skewed;
  for (int e = 0; e < 6; ++e) p2.row(4 + e) = 0.5 * (skewed.row(kTetEdges[e][0]) + skewed.row(kTetEdges[e][1]));
  const double lambda = 1.7, mu = 0.8, rho = 3.0;
  Eigen::Matrix<double, 60, 60> k3, m3;
  Eigen::Matrix<double, 30, 30> k2, m2;
  p3_element_matrices(p3, lambda, mu, rho, k3, m3);
  p2_element_matrices(skewed, lambda, mu, rho, k2, m2);
  auto field = [](const Eigen::RowVector3d& p) {
    return Eigen::Vector3d(p.x() * p.y() + 0.3 * p.z(), p.z() * p.z() - p.x(), 0.5 * p.x() * p.x() + p.y());
  };
  Eigen::Matrix<double, 60, 1> u3;
  Eigen::Matrix<double, 30, 1> u2;
  for (int a = 0; a < 20; ++a) u3.segment<3>(3 * a) = field(p3.row(a));
  for (int a = 0; a < 10; ++a) u2.segment<3>(3 * a) = field(p2.row(a));
  EXPECT_NEAR(u3.dot(m3 * u3), u2.dot(m2 * u2), 1e-12 * u2.dot(m2 * u2));
  EXPECT_NEAR(u3.dot(k3 * u3), u2.dot(k2 * u2), 1e-12 * u2.dot(k2 * u2));
  // A cubic field's mass against the closed form on the unit tetrahedron.
  Eigen::Matrix<double, 60, 60> ku, mu3;
  p3_element_matrices(straight_p3_nodes(x), lambda, mu, rho, ku, mu3);
  Eigen::Matrix<double, 60, 1> cubic = Eigen::Matrix<double, 60, 1>::Zero();
  for (int a = 0; a < 20; ++a) cubic(3 * a) = nodes(a, 0) * nodes(a, 1) * nodes(a, 2);
  // ∫ L1²L2²L3² over the unit tetrahedron = 2!2!2!0!·3!·V/9! with V = 1/6.
  EXPECT_NEAR(cubic.dot(mu3 * cubic), rho * 8.0 * 6.0 / 362880.0 / 6.0, 1e-15);
  // Rigid motions: no strain energy; the mass of a translation is ρV.
  Eigen::Matrix<double, 60, 1> rigid = Eigen::Matrix<double, 60, 1>::Zero();
  for (int a = 0; a < 20; ++a) rigid.segment<3>(3 * a) = Eigen::Vector3d(0.2, -1, 0.4) +
                                                         Eigen::Vector3d(0.3, 0.1, -0.7).cross(p3.row(a).transpose());
  EXPECT_LT((k3 * rigid).norm(), 1e-10 * k3.norm());
  Eigen::Matrix<double, 4, 3> g;
  const double V = barycentric_gradients(skewed, g);
  Eigen::Matrix<double, 60, 1> ux = Eigen::Matrix<double, 60, 1>::Zero();
  for (int a = 0; a < 20; ++a) ux(3 * a) = 1;
  EXPECT_NEAR(ux.dot(m3 * ux), rho * V, 1e-12);
  // The stiffness has exactly the six rigid motions in its null space, the mass none.
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> ek(k3), em(m3);
  EXPECT_LT(ek.eigenvalues()[5], 1e-10 * ek.eigenvalues()[59]);
  EXPECT_GT(ek.eigenvalues()[6], 1e-6 * ek.eigenvalues()[59]);
  EXPECT_GT(em.eigenvalues()[0], 1e-6 * em.eigenvalues()[59]);
}

// A cubic mesh shares its edge and face nodes between elements (V + 2E + F nodes), puts them
// where its elements' maps put them, and in bending beats the quadratic mesh on the same
// tetrahedra by far (the benchmark bar, Timoshenko's first z bending 1135.0 Hz).
TEST(Box, CubicElementsShareTheirNodesAndBeatQuadraticInBending) {
  const TetMesh tets = structured_box(0.30, 0.03, 0.02, 5, 1, 1);
  const FemMesh p2 = make_fem_mesh(tets, 2), p3 = make_fem_mesh(tets, 3);
  ASSERT_EQ(p3.elements.cols(), 20);
  const int edges = static_cast<int>(p2.nodes.rows()) - p2.corner_count;
  std::set<std::array<int, 3>> faces;
  for (int t = 0; t < tets.tets.rows(); ++t)
    for (int k = 0; k < 4; ++k) {
      std::array<int, 3> c;
      for (int j = 0, m = 0; j < 4; ++j)
        if (j != k) c[m++] = tets.tets(t, j);
      std::sort(c.begin(), c.end());
      faces.insert(c);
    }
  EXPECT_EQ(p3.nodes.rows(), p3.corner_count + 2 * edges + static_cast<int>(faces.size()));
  for (int t = 0; t < p3.elements.rows(); ++t) {
    TetCorners x;
    for (int c = 0; c < 4; ++c) x.row(c) = p3.nodes.row(p3.elements(t, c));
    const P3Nodes expected = straight_p3_nodes(x);
    for (int a = 0; a < 20; ++a)
      ASSERT_LT((p3.nodes.row(p3.elements(t, a)) - expected.row(a)).norm(), 1e-12) << t << ", " << a;
  }
  const double timoshenko_z1 = 1135.0;
  const auto f2 = box_frequencies(tets, 2, 1), f3 = box_frequencies(tets, 3, 1);
  const double e2 = std::abs(f2[0] / timoshenko_z1 - 1), e3 = std::abs(f3[0] / timoshenko_z1 - 1);
  EXPECT_LT(e3, 0.01);
  EXPECT_LT(e3, e2 / 5);
  ModalAnalysisRequest request;
  request.modes = 4;
  EXPECT_EQ(analyze_modes(p3, find_material_preset("steel"), request).rigid_modes, 6);
}
