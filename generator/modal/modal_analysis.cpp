#include "modal/modal_analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "fem/assembly.hpp"
#include "fem/mesh_bodies.hpp"
#include "modal/eigen_solve.hpp"
#include "modal/distributed_solver.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp {

namespace {
constexpr double kFrequenciesOnlyTolerance = 1e-5;
}  // namespace

bool is_rigid_mode(double eigenvalue, int index, int rigid_expected, double highest_hz) {
  const double f = frequency_hz_of_eigenvalue(eigenvalue);
  const double fraction = index < rigid_expected ? kRigidFrequencyFraction : kStrayRigidFrequencyFraction;
  return eigenvalue < 0 || f < fraction * highest_hz;
}

ModalAnalysisResult analyze_modes(const FemMesh& mesh, const Material& material,
                                  const ModalAnalysisRequest& request, StageTimer* timer) {
  if (request.modes < 1) throw Error("--modes must be at least 1");
  if (!(request.fmin_hz >= 0 && request.fmax_hz > request.fmin_hz))
    throw Error(fmt::format("empty frequency band: --fmin {} Hz, --fmax {} Hz", request.fmin_hz,
                            request.fmax_hz));
  StageTimer local;
  StageTimer& t = timer ? *timer : local;

  if (request.solver != "default" && request.solver != "slepc")
    throw Error(fmt::format("unknown eigen solver \"{}\"", request.solver));
  const DistributedSolver* slepc = distributed_solver();
  if (request.solver == "slepc" && !slepc)
    throw Error("--solver slepc: this mesh2dsp was built without PETSc/SLEPc (install petsc-dev "
                "and slepc-dev, then build again)");
  // The SLEPc solver assembles K and M itself, distributed over the MPI ranks.
  const bool distributed = request.solver == "slepc";
  t.start("assembly");
  const auto clamped = clamped_nodes(mesh.nodes, request.fix);
  int free_count = 0;
  const auto dof_map = free_dof_map(clamped, free_count);
  ModalAnalysisResult result;
  result.clamped_nodes = static_cast<int>(std::count(clamped.begin(), clamped.end(), true));
  result.dof = free_count;
  if (free_count == 0) throw Error("--fix clamps every vertex: nothing is left to vibrate");
  // Initialised, not assigned: Eigen 3.4's sparse matrices have no move assignment, and
  // assigning the assembled pair copied both into fresh memory (the sword scan's 50 modes: 0.9 s
  // of first touches on this kind of virtual machine).
  FemMatrices fem = distributed ? FemMatrices{} : assemble_fem_matrices(mesh, material);
  if (!distributed && result.clamped_nodes > 0) restrict_to_free(fem, dof_map, free_count);
  t.stop();

  const bool free_body = result.clamped_nodes == 0;
  // Shift below the band (and below zero, so K − σM is positive definite with rigid modes).
  const double shift_hz = std::max(1.0, 0.5 * request.fmin_hz);
  EigenSolveOptions options;
  options.shift = -std::pow(2 * M_PI * shift_hz, 2);
  // Each separate body of a free model has its own six rigid-body modes.
  const int bodies = free_body ? count_connected_bodies(mesh.elements, mesh.nodes.rows()) : 0;
  const int rigid_expected = 6 * bodies;
  // Start small: many objects have fewer modes below fmax than asked for, and the Lanczos cost
  // grows with the count; ask for more (on the same factorization and basis) only when needed.
  options.count = std::min(request.modes, 24) + rigid_expected + 4;
  options.expected_count = request.modes + rigid_expected + 8;  // for the memory estimate
  options.memory_limit_bytes = request.max_memory_bytes;
  if (!distributed) options.tolerance = kModesResidual;
  if (request.frequencies_only) {
    // A residual ε moves an eigenvalue by at most ε relative (the matrix is symmetric in the
    // M inner product), usually by about ε² over the gap: kFrequenciesOnlyTolerance leaves a
    // frequency estimate exact far below the margins it is used with, from fewer vectors.
    options.tolerance = std::max(options.tolerance, kFrequenciesOnlyTolerance);
    options.vectors = false;
  }
  options.problem = fmt::format("{} tetrahedra (P{})", mesh.elements.rows(), mesh.order);
  if (!distributed) {
    // The free nodes' corners, numbered as the free DOF are (a clamped node has none).
    const NodeCorners corners = node_corners(mesh);
    options.node_corners.reserve(static_cast<std::size_t>(free_count / 3));
    for (std::size_t node = 0; node < corners.size(); ++node)
      if (dof_map[3 * node] >= 0) options.node_corners.push_back(corners[node]);
  }
  auto more = [&](const EigenSolution& s) {
    const double highest_hz = frequency_hz_of_eigenvalue(s.eigenvalues.maxCoeff());
    int in_band = 0;
    for (double lambda : s.eigenvalues) {
      const double f = frequency_hz_of_eigenvalue(lambda);
      if (f >= request.fmin_hz && f <= request.fmax_hz) ++in_band;
    }
    if (in_band >= request.modes || highest_hz > request.fmax_hz) return 0;
    // Grow by at most half at a time: the Lanczos basis is kept, so small steps cost little,
    // while a jump to the full count would compute modes far above --fmax when few lie below.
    const int found = static_cast<int>(s.eigenvalues.size());
    // Exactly the modes missing, no margin: the last of those asked converges slowest, so a
    // margin of 8 cost a block step (the sword's 50 modes 168 -> 160 vectors, the statue's 192 ->
    // 184, the same modes to 3e-12); a band that still falls short asks again.
    return std::min(found + (request.modes - in_band), found * 3 / 2 + 8);
  };
  t.start("eigen solve");
  const EigenSolution solution =
      distributed ? slepc->solve(mesh, material, dof_map, free_count, options, more)
                  : solve_lowest_modes(std::move(fem.stiffness), fem.mass, options, more);
  t.stop();
  if (solution.assembly_s > 0) t.split_last("distributed assembly", solution.assembly_s);
  if (solution.ordering_s > 0) t.split_last("ordering", solution.ordering_s);
  t.split_last("factorization", solution.factorization_s);
  result.estimate = solution.estimate;
  result.solved_vectors = solution.operations;
  result.triangular_solve_s = solution.triangular_solve_s;
  result.mass_products = solution.mass_products;
  result.mass_product_s = solution.mass_product_s;

  const double highest_hz = frequency_hz_of_eigenvalue(solution.eigenvalues.maxCoeff());
  std::vector<int> keep;
  for (int i = 0; i < solution.eigenvalues.size(); ++i) {
    const double lambda = solution.eigenvalues[i];
    const double f = frequency_hz_of_eigenvalue(lambda);
    if (is_rigid_mode(lambda, i, rigid_expected, highest_hz)) {
      ++result.rigid_modes;
    } else if (f < request.fmin_hz) {
      ++result.below_band;
    } else if (f > request.fmax_hz) {
      ++result.above_band;
    } else if (static_cast<int>(keep.size()) < request.modes) {
      keep.push_back(i);
    }
  }
  if (free_body && result.rigid_modes != rigid_expected)
    notice(fmt::format(
        "{} free bod{} should have {} rigid-body modes, this model shows {}: the mesh may have "
        "broken elements",
        bodies, bodies == 1 ? "y" : "ies", rigid_expected, result.rigid_modes));
  if (!free_body && result.rigid_modes > 0)
    notice(fmt::format("{} rigid-body mode(s) remain although vertices are clamped: part of the "
                       "object is not held by --fix",
                       result.rigid_modes));
  if (keep.empty()) {
    double lowest_elastic_hz = INFINITY;
    for (int i = 0; i < solution.eigenvalues.size(); ++i) {
      const double lambda = solution.eigenvalues[i];
      if (!is_rigid_mode(lambda, i, rigid_expected, highest_hz))
        lowest_elastic_hz = std::min(lowest_elastic_hz, frequency_hz_of_eigenvalue(lambda));
    }
    throw Error(fmt::format(
        "no mode lies in the band {} .. {} Hz (the lowest elastic mode is at {:.1f} Hz); widen it "
        "with --fmin/--fmax",
        request.fmin_hz, request.fmax_hz, lowest_elastic_hz));
  }
  if (static_cast<int>(keep.size()) < request.modes)
    notice(fmt::format("only {} of the {} modes requested lie below --fmax {} Hz", keep.size(),
                       request.modes, request.fmax_hz));

  result.eigenvalues.resize(keep.size());
  for (size_t j = 0; j < keep.size(); ++j) result.eigenvalues[j] = solution.eigenvalues[keep[j]];
  if (request.frequencies_only) return result;
  result.shapes = Eigen::MatrixXd::Zero(3 * mesh.nodes.rows(), keep.size());
  for (size_t j = 0; j < keep.size(); ++j) {
    for (int d = 0; d < static_cast<int>(dof_map.size()); ++d)
      if (dof_map[d] >= 0) result.shapes(d, j) = solution.vectors(dof_map[d], keep[j]);
    // A shape's sign is arbitrary, and round-off from threaded BLAS flips it between runs: fix
    // it (largest component positive) so the same mesh gives the same model file.
    Eigen::Index largest = 0;
    result.shapes.col(j).cwiseAbs().maxCoeff(&largest);
    if (result.shapes(largest, j) < 0) result.shapes.col(j) *= -1;
  }
  return result;
}

}  // namespace mesh2dsp
