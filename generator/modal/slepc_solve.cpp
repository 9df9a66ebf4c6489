#include "modal/slepc_solve.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <slepceps.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "fem/elements.hpp"
#include "modal/distributed_solver.hpp"
#include "modal/memory_estimate.hpp"
#include "modal/node_partition.hpp"
#include "modal/rank_memory.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"
#include "util/serial_threads.hpp"

namespace mesh2dsp {
namespace {

// What rank 0 asks of the serving ranks (broadcast, one int).
enum Command : int { kStop = 0, kSolve = 1, kResetPeakMemory = 2, kPeakMemory = 3 };

ParallelSession* g_session = nullptr;
// A PETSc call failed during a solve: it may have failed on one rank only, leaving the others
// inside a collective call, so the session ends with MPI_Abort rather than a stop command.
bool g_broken = false;

// A failure inside PETSc/SLEPc/MUMPS, possibly on this rank alone.
class PetscFailure : public Error {
 public:
  using Error::Error;
};

void check(PetscErrorCode code, const char* what) {
  if (code == 0) return;
  const char* text = nullptr;
  PetscErrorMessage(code, &text, nullptr);
  throw PetscFailure(fmt::format("the SLEPc eigen solver failed in {}: {} (PETSc error {})", what,
                                 text ? text : "unknown", static_cast<int>(code)));
}

void start_slepc() {
  PetscBool started = PETSC_FALSE;
  SlepcInitialized(&started);
  if (started) return;
  // No argc/argv: PETSc must not read mesh2dsp's own options. PETSC_OPTIONS still tunes it.
  check(SlepcInitialize(nullptr, nullptr, nullptr, nullptr), "SlepcInitialize");
  // Errors come back as codes and become one mesh2dsp::Error, not a PETSc traceback.
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
}

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 1;
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  return size;
}

// Commands go out by a non-blocking broadcast, on both sides (blocking and non-blocking
// collectives do not match): a serving rank polls it with short sleeps instead of spinning in
// MPI_Bcast, which would keep a core busy all the while rank 0 reads and meshes.
int broadcast_command(int command) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibcast(&command, 1, MPI_INT, 0, PETSC_COMM_WORLD, &request);
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return command;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// Rank 0 only: sends a command to the serving ranks (nothing to do without a session).
void command_ranks(Command command) {
  if (g_session) broadcast_command(command);
}

// The first row of each rank's contiguous block, and the end (size + 1 values).
using RowStarts = std::vector<PetscInt>;

// The rank whose block holds `row`.
int owner_of_row(PetscInt row, const RowStarts& starts) {
  return static_cast<int>(std::upper_bound(starts.begin(), starts.end(), row) - starts.begin()) - 1;
}

// Owns one PETSc object (the C API's destroy functions take a pointer to the handle).
template <class T, PetscErrorCode (*Destroy)(T*)>
struct Owned {
  T handle = nullptr;
  Owned() = default;
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() {
    if (handle) Destroy(&handle);
  }
  operator T() const { return handle; }
  T* out() { return &handle; }
};
using OwnedMat = Owned<Mat, MatDestroy>;
using OwnedVec = Owned<Vec, VecDestroy>;
using OwnedEps = Owned<EPS, EPSDestroy>;
using OwnedScatter = Owned<VecScatter, VecScatterDestroy>;

// What rank 0 tells the serving ranks about a solve.
struct SolveSetup {
  PetscInt dof = 0;  // free degrees of freedom: the matrices' size
  int count = 0;
  int nodes = 0, elements = 0, nodes_per_element = 0;
  double shift = 0, tolerance = 0;
  double lame_lambda = 0, lame_mu = 0, density = 0;
  double memory_limit_bytes = 0;  // --max-memory: per rank; 0: the node's available memory
};

// MUMPS's working memory per rank is capped (ICNTL(23)) at this rank's share of what its node
// has free (or --max-memory), so a factorization that cannot fit stops after MUMPS's analysis
// with its estimate, before allocating, instead of dying in the middle. A user's own
// -st_mat_mumps_icntl_23 wins.
void cap_factor_memory(double limit_bytes) {
  static bool set_here = false;  // by an earlier solve of this process, not by the user
  PetscBool given = PETSC_FALSE;
  check(PetscOptionsHasName(nullptr, nullptr, "-st_mat_mumps_icntl_23", &given), "PetscOptionsHasName");
  if (given && !set_here) return;
  if (!(limit_bytes > 0)) {
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(PETSC_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int ranks_here = 1;
    MPI_Comm_size(node, &ranks_here);
    MPI_Comm_free(&node);
    // The matrices, the Krylov basis and rank 0's mesh need the rest.
    limit_bytes = 0.8 * available_memory_bytes() / ranks_here;
  }
  const long mb = static_cast<long>(limit_bytes / (1 << 20));
  if (mb > 0) {
    check(PetscOptionsSetValue(nullptr, "-st_mat_mumps_icntl_23", std::to_string(mb).c_str()),
          "PetscOptionsSetValue");
    set_here = true;
  }
}

// After a failed EPSSetUp: MUMPS's memory errors (the same on every rank) as one Error saying
// what it needs; anything else as the PETSc failure it is.
void check_factorization(PetscErrorCode code, PC pc) {
  if (code == 0) return;
  Mat factor = nullptr;
  PetscInt status = 0, needed_mb = 0, cap_mb = 0;
  if (PCFactorGetMatrix(pc, &factor) == 0 && factor && MatMumpsGetInfog(factor, 1, &status) == 0 &&
      (status == -19 || status == -9 || status == -13)) {
    MatMumpsGetInfog(factor, 16, &needed_mb);  // estimate, most demanding rank
    MatMumpsGetIcntl(factor, 23, &cap_mb);
    throw Error(fmt::format(
        "the factorization needs about {} MB on a rank (MUMPS's estimate), more than the {} MB "
        "a rank may use here: run on more ranks or nodes, coarsen the mesh (--max-tet-volume), "
        "or allow more with --max-memory (per rank)",
        needed_mb, cap_mb));
  }
  check(code, "EPSSetUp (the MUMPS factorization of K - shift M)");
}

// K and M assembled by the ranks between them, as MPISBAIJ (upper triangles: half the memory of
// AIJ). Every rank receives the node coordinates and the row numbering (36 bytes a node, small
// next to its share of the matrices) and its block of elements; an element goes to the rank
// owning most of its rows, so most of what it adds lands in that rank's own rows (PETSc sends
// the rest at assembly). The pattern comes from a first pass through a MATPREALLOCATOR, so the
// matrices are allocated once, exactly, and K and M share it. `row_of_dof` (rank 0) receives
// the PETSc row of each free DOF.
double assemble_distributed(const FemMesh* mesh, const std::vector<int>* dof_map,
                            const SolveSetup& setup, Mat* k, Mat* m, std::vector<int>* row_of_dof) {
  const auto start = std::chrono::steady_clock::now();
  const int rank = world_rank(), size = world_size();
  const int per = setup.nodes_per_element, d = 3 * per;

  std::vector<double> nodes(3 * static_cast<size_t>(setup.nodes));
  std::vector<int> dofs(3 * static_cast<size_t>(setup.nodes));
  std::vector<int> element_nodes, counts, offsets;
  RowStarts starts(size + 1, 0);
  if (rank == 0) {
    for (int i = 0; i < setup.nodes; ++i)
      for (int c = 0; c < 3; ++c) nodes[3 * i + c] = mesh->nodes(i, c);
    // Rows numbered part by part of a METIS partition of the node graph (node_partition.hpp),
    // so each rank's block of rows is one part and only the parts' boundaries couple ranks (the
    // mesher's numbering puts all P2 corner nodes before the edge nodes: contiguous blocks of it
    // are scattered through the whole object). Within a part, and when METIS gives no partition,
    // along the object's longest axis: then each block is a slab of the object.
    Eigen::Index axis = 0;
    (mesh->nodes.colwise().maxCoeff() - mesh->nodes.colwise().minCoeff()).maxCoeff(&axis);
    const std::vector<int> part = partition_nodes(mesh->elements, setup.nodes, size);
    std::vector<int> node_of_dof(setup.dof), order(setup.dof);
    for (size_t full = 0; full < dof_map->size(); ++full)
      if ((*dof_map)[full] >= 0) node_of_dof[(*dof_map)[full]] = static_cast<int>(full / 3);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      const int pa = part.empty() ? 0 : part[node_of_dof[a]], pb = part.empty() ? 0 : part[node_of_dof[b]];
      if (pa != pb) return pa < pb;
      return mesh->nodes(node_of_dof[a], axis) < mesh->nodes(node_of_dof[b], axis);
    });
    starts.assign(size + 1, 0);
    if (part.empty()) {  // equal blocks of the slab order
      for (int r = 0; r <= size; ++r) starts[r] = static_cast<PetscInt>(static_cast<long long>(setup.dof) * r / size);
    } else {
      for (int dof = 0; dof < static_cast<int>(setup.dof); ++dof) ++starts[part[node_of_dof[dof]] + 1];
      for (int r = 0; r < size; ++r) starts[r + 1] += starts[r];
    }
    row_of_dof->assign(setup.dof, 0);
    for (int row = 0; row < static_cast<int>(setup.dof); ++row) (*row_of_dof)[order[row]] = row;
    for (size_t full = 0; full < dof_map->size(); ++full)
      dofs[full] = (*dof_map)[full] >= 0 ? (*row_of_dof)[(*dof_map)[full]] : -1;
    // Each element to the rank owning most of its rows.
    std::vector<std::vector<int>> by_rank(size);
    std::vector<int> votes(size);
    for (int t = 0; t < setup.elements; ++t) {
      std::fill(votes.begin(), votes.end(), 0);
      for (int a = 0; a < per; ++a)
        for (int c = 0; c < 3; ++c)
          if (const int row = dofs[3 * mesh->elements(t, a) + c]; row >= 0)
            ++votes[owner_of_row(row, starts)];
      const int owner = static_cast<int>(std::max_element(votes.begin(), votes.end()) - votes.begin());
      if (votes[owner] == 0) continue;  // every node clamped: adds nothing
      for (int a = 0; a < per; ++a) by_rank[owner].push_back(mesh->elements(t, a));
    }
    for (int r = 0; r < size; ++r) {
      offsets.push_back(static_cast<int>(element_nodes.size()));
      counts.push_back(static_cast<int>(by_rank[r].size()));
      element_nodes.insert(element_nodes.end(), by_rank[r].begin(), by_rank[r].end());
      std::vector<int>().swap(by_rank[r]);
    }
  }
  MPI_Bcast(nodes.data(), static_cast<int>(nodes.size()), MPI_DOUBLE, 0, PETSC_COMM_WORLD);
  MPI_Bcast(dofs.data(), static_cast<int>(dofs.size()), MPI_INT, 0, PETSC_COMM_WORLD);
  MPI_Bcast(starts.data(), size + 1, MPIU_INT, 0, PETSC_COMM_WORLD);
  const int local_rows = static_cast<int>(starts[rank + 1] - starts[rank]);
  int local_count = 0;
  MPI_Scatter(counts.data(), 1, MPI_INT, &local_count, 1, MPI_INT, 0, PETSC_COMM_WORLD);
  std::vector<int> local(local_count);
  MPI_Scatterv(element_nodes.data(), counts.data(), offsets.data(), MPI_INT, local.data(),
               local_count, MPI_INT, 0, PETSC_COMM_WORLD);
  std::vector<int>().swap(element_nodes);
  const int local_elements = local_count / per;

  // Global rows of an element's DOFs (node-major as the element matrices); −1 (clamped) is
  // ignored by MatSetValues.
  std::vector<PetscInt> rows(d);
  auto element_rows = [&](int e) {
    for (int a = 0; a < per; ++a)
      for (int c = 0; c < 3; ++c) rows[3 * a + c] = dofs[3 * local[per * e + a] + c];
  };
  OwnedMat pattern;
  check(MatCreate(PETSC_COMM_WORLD, pattern.out()), "MatCreate");
  check(MatSetSizes(pattern, local_rows, local_rows, setup.dof, setup.dof), "MatSetSizes");
  check(MatSetType(pattern, MATPREALLOCATOR), "MatSetType");
  check(MatSetUp(pattern), "MatSetUp");
  const std::vector<double> zeros(d * d, 0.0);
  for (int e = 0; e < local_elements; ++e) {
    element_rows(e);
    check(MatSetValues(pattern, d, rows.data(), d, rows.data(), zeros.data(), INSERT_VALUES), "MatSetValues");
  }
  check(MatAssemblyBegin(pattern, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
  check(MatAssemblyEnd(pattern, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
  // A preallocator fills one matrix: M is a copy of K's (zero-filled) pattern.
  check(MatCreate(PETSC_COMM_WORLD, k), "MatCreate");
  check(MatSetSizes(*k, local_rows, local_rows, setup.dof, setup.dof), "MatSetSizes");
  check(MatSetType(*k, MATSBAIJ), "MatSetType");
  check(MatPreallocatorPreallocate(pattern, PETSC_TRUE, *k), "MatPreallocatorPreallocate");
  check(MatDuplicate(*k, MAT_COPY_VALUES, m), "MatDuplicate");
  // Whole element matrices go in; SBAIJ keeps their upper part. (Set after the preallocation:
  // before it, MPISBAIJ's preallocation from a MATPREALLOCATOR crashes in PETSc 3.18.)
  check(MatSetOption(*k, MAT_IGNORE_LOWER_TRIANGULAR, PETSC_TRUE), "MatSetOption");
  check(MatSetOption(*m, MAT_IGNORE_LOWER_TRIANGULAR, PETSC_TRUE), "MatSetOption");
  check(MatDestroy(pattern.out()), "MatDestroy");
  Eigen::MatrixXd ke(d, d), me(d, d);
  for (int e = 0; e < local_elements; ++e) {
    element_rows(e);
    P2Nodes x = P2Nodes::Zero();
    for (int c = 0; c < per; ++c)
      for (int i = 0; i < 3; ++i) x(c, i) = nodes[3 * local[per * e + c] + i];
    if (per == 4) {
      Eigen::Matrix<double, 12, 12> ks, ms;
      p1_element_matrices(TetCorners(x.topRows<4>()), setup.lame_lambda, setup.lame_mu, setup.density, ks, ms);
      ke = ks;
      me = ms;
    } else {
      Eigen::Matrix<double, 30, 30> ks, ms;
      p2_element_matrices(x, setup.lame_lambda, setup.lame_mu, setup.density, ks, ms);
      ke = ks;
      me = ms;
    }
    // Element matrices are symmetric: column-major reads as the row-major PETSc expects.
    check(MatSetValues(*k, d, rows.data(), d, rows.data(), ke.data(), ADD_VALUES), "MatSetValues");
    check(MatSetValues(*m, d, rows.data(), d, rows.data(), me.data(), ADD_VALUES), "MatSetValues");
  }
  for (Mat* a : {k, m}) {
    check(MatAssemblyBegin(*a, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
    check(MatAssemblyEnd(*a, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Every rank: the whole solve. The problem (`mesh`, `material`, `dof_map` with `free_dofs`
// rows), `options` and `more` on rank 0 only (nullptr elsewhere).
EigenSolution collective_solve(const FemMesh* mesh, const Material* material,
                               const std::vector<int>* dof_map, int free_dofs,
                               const EigenSolveOptions* options,
                               const std::function<int(const EigenSolution&)>* more) {
  const bool root = world_rank() == 0;
  SolveSetup setup;
  if (root) {
    setup.dof = free_dofs;
    setup.count = options->count;
    setup.nodes = static_cast<int>(mesh->nodes.rows());
    setup.elements = static_cast<int>(mesh->elements.rows());
    setup.nodes_per_element = static_cast<int>(mesh->elements.cols());
    setup.shift = options->shift;
    setup.tolerance = options->tolerance;
    setup.lame_lambda = lame_lambda(*material);
    setup.lame_mu = lame_mu(*material);
    setup.density = material->density_kg_m3;
    setup.memory_limit_bytes = options->memory_limit_bytes;
  }
  MPI_Bcast(&setup, sizeof setup, MPI_BYTE, 0, PETSC_COMM_WORLD);

  Progress progress("eigen solve (SLEPc)");
  // Threads only for a lone rank's factorization: MUMPS's one-vector solves are too small to
  // share (threaded BLAS made them 3x slower on the loaded 2-core machine), and with several
  // ranks each rank is meant to have its core.
  std::optional<SerialThreads> serial;
  if (world_size() > 1) serial.emplace();
  OwnedMat stiffness, mass;
  std::vector<int> row_of_dof;  // rank 0
  const double assembly_s =
      assemble_distributed(mesh, dof_map, setup, stiffness.out(), mass.out(), &row_of_dof);

  // Shift-and-invert Krylov–Schur on a MUMPS Cholesky factor of K − σM, σ < 0 as the default
  // solver's: K − σM is positive definite with the rigid-body modes, and the eigenvalues nearest
  // σ are the lowest ones, rigid modes first (excluded by frequency afterwards, as there).
  // Stewart, "A Krylov–Schur algorithm for large eigenproblems" (SIAM J. Matrix Anal. Appl.
  // 23(3), 2001); Hernandez, Roman & Vidal, "SLEPc: A scalable and flexible toolkit for the
  // solution of eigenvalue problems" (ACM TOMS 31(3), 2005).
  OwnedEps eps;
  check(EPSCreate(PETSC_COMM_WORLD, eps.out()), "EPSCreate");
  check(EPSSetOperators(eps, stiffness, mass), "EPSSetOperators");
  check(EPSSetProblemType(eps, EPS_GHEP), "EPSSetProblemType");
  check(EPSSetType(eps, EPSKRYLOVSCHUR), "EPSSetType");
  ST st = nullptr;
  check(EPSGetST(eps, &st), "EPSGetST");
  check(STSetType(st, STSINVERT), "STSetType");
  check(STSetMatStructure(st, SAME_NONZERO_PATTERN), "STSetMatStructure");  // one preallocation
  KSP ksp = nullptr;
  check(STGetKSP(st, &ksp), "STGetKSP");
  check(KSPSetType(ksp, KSPPREONLY), "KSPSetType");
  PC pc = nullptr;
  check(KSPGetPC(ksp, &pc), "KSPGetPC");
  check(PCSetType(pc, PCCHOLESKY), "PCSetType");
  check(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS), "PCFactorSetMatSolverType");
  check(EPSSetTarget(eps, setup.shift), "EPSSetTarget");
  check(EPSSetWhichEigenpairs(eps, EPS_TARGET_MAGNITUDE), "EPSSetWhichEigenpairs");
  // The default solver's criterion: residual relative to |θ| of the shift-inverted problem.
  check(EPSSetTolerances(eps, setup.tolerance, PETSC_DEFAULT), "EPSSetTolerances");
  cap_factor_memory(setup.memory_limit_bytes);
  check(EPSSetFromOptions(eps), "EPSSetFromOptions");  // PETSC_OPTIONS may tune MUMPS or SLEPc

  OwnedVec x, mx, gathered;
  OwnedScatter to_root;
  check(MatCreateVecs(stiffness, x.out(), mx.out()), "MatCreateVecs");
  check(VecScatterCreateToZero(x, to_root.out(), gathered.out()), "VecScatterCreateToZero");

  EigenSolution out;
  double factorization_s = 0;
  int solves = 0;
  // Eigenvectors of earlier rounds: when `more` asks for more modes, the next round looks only
  // for the new ones, with the found ones as SLEPc's deflation space (on the same factor).
  std::vector<Vec> found;
  struct Release {
    std::vector<Vec>& v;
    ~Release() {
      for (Vec& x : v) VecDestroy(&x);
    }
  } release{found};
  std::vector<double> lambda;
  Eigen::MatrixXd vectors;  // rank 0: the found eigenvectors, in the order found
  for (int count = setup.count; count > 0;) {
    const int have = static_cast<int>(found.size()), wanted = count - have;
    if (have > 0) check(EPSSetDeflationSpace(eps, have, found.data()), "EPSSetDeflationSpace");
    check(EPSSetDimensions(eps, wanted, PETSC_DEFAULT, PETSC_DEFAULT), "EPSSetDimensions");
    const auto setup_start = std::chrono::steady_clock::now();
    check_factorization(EPSSetUp(eps), pc);
    factorization_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();
    {
      std::optional<SerialThreads> serial_iteration;
      if (!serial) serial_iteration.emplace();
      check(EPSSolve(eps), "EPSSolve");
    }
    ++solves;
    PetscInt converged = 0;
    check(EPSGetConverged(eps, &converged), "EPSGetConverged");
    // The same number on every rank, so every rank throws (and the session stays usable).
    if (converged < wanted)
      throw Error(fmt::format("the SLEPc eigen solver did not converge ({} of {} modes; {} "
                              "degrees of freedom)",
                              have + converged, count, setup.dof));
    if (root) vectors.conservativeResize(setup.dof, count);
    for (int i = 0; i < wanted; ++i) {
      PetscScalar value = 0;
      check(EPSGetEigenpair(eps, i, &value, nullptr, x, nullptr), "EPSGetEigenpair");
      lambda.push_back(PetscRealPart(value));
      // φᵀMφ = 1 (SLEPc's own normalisation, made sure of).
      PetscScalar norm2 = 0;
      check(MatMult(mass, x, mx), "MatMult");
      check(VecDot(x, mx, &norm2), "VecDot");
      check(VecScale(x, 1.0 / std::sqrt(PetscRealPart(norm2))), "VecScale");
      Vec kept = nullptr;
      check(VecDuplicate(x, &kept), "VecDuplicate");
      found.push_back(kept);
      check(VecCopy(x, kept), "VecCopy");
      check(VecScatterBegin(to_root, x, gathered, INSERT_VALUES, SCATTER_FORWARD), "VecScatter");
      check(VecScatterEnd(to_root, x, gathered, INSERT_VALUES, SCATTER_FORWARD), "VecScatter");
      if (root) {
        const PetscScalar* a = nullptr;
        check(VecGetArrayRead(gathered, &a), "VecGetArrayRead");
        for (PetscInt f = 0; f < setup.dof; ++f) vectors(f, have + i) = a[row_of_dof[f]];
        check(VecRestoreArrayRead(gathered, &a), "VecRestoreArrayRead");
      }
    }
    int next = 0;
    if (root) {
      // Ascending λ (SLEPc orders by distance to σ, the same here up to ties).
      std::vector<int> order(count);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return lambda[a] < lambda[b]; });
      out.eigenvalues.resize(count);
      out.vectors.resize(setup.dof, count);
      for (int i = 0; i < count; ++i) {
        out.eigenvalues[i] = lambda[order[i]];
        out.vectors.col(i) = vectors.col(order[i]);
      }
      progress.update(0.99, fmt::format("{} modes", count));
      try {
        next = (*more && count < setup.dof - 1) ? (*more)(out) : 0;
      } catch (...) {
        next = 0;
        MPI_Bcast(&next, 1, MPI_INT, 0, PETSC_COMM_WORLD);
        throw;
      }
    }
    MPI_Bcast(&next, 1, MPI_INT, 0, PETSC_COMM_WORLD);
    count = next > count ? std::min<int>(next, static_cast<int>(setup.dof) - 1) : 0;
  }
  progress.finish(fmt::format("{} modes on {} rank{}", out.eigenvalues.size(), world_size(),
                              world_size() == 1 ? "" : "s"));
  out.factorizations = 1;
  out.factorization_s = factorization_s;
  out.operations = solves;
  out.assembly_s = assembly_s;
  return out;
}

}  // namespace

ParallelSession::ParallelSession() {
  start_slepc();
  rank_ = world_rank();
  size_ = world_size();
  g_session = this;
}

ParallelSession::~ParallelSession() {
  if (rank_ == 0 && g_broken && size_ > 1) MPI_Abort(PETSC_COMM_WORLD, 1);
  if (rank_ == 0) command_ranks(kStop);
  g_session = nullptr;
  SlepcFinalize();
}

int serve_parallel_solves() {
  set_quiet(true);  // only rank 0 speaks
  for (;;) {
    switch (broadcast_command(kStop)) {
      case kStop:
        return 0;
      case kSolve:
        try {
          collective_solve(nullptr, nullptr, nullptr, 0, nullptr, nullptr);
        } catch (const PetscFailure& e) {
          // Perhaps this rank's alone, with rank 0 waiting in a collective call: end the job.
          std::fprintf(stderr, "mesh2dsp: error (rank %d): %s\n", world_rank(), e.what());
          MPI_Abort(PETSC_COMM_WORLD, 1);
        } catch (const Error&) {
          // Decided on numbers every rank shares: rank 0 reports it, the session goes on.
        } catch (const std::exception& e) {
          std::fprintf(stderr, "mesh2dsp: error (rank %d): %s\n", world_rank(), e.what());
          MPI_Abort(PETSC_COMM_WORLD, 1);
        }
        break;
      case kResetPeakMemory:
        reset_process_peak_memory();
        break;
      case kPeakMemory: {
        const double mine = process_peak_memory_mb();
        MPI_Gather(&mine, 1, MPI_DOUBLE, nullptr, 1, MPI_DOUBLE, 0, PETSC_COMM_WORLD);
        break;
      }
      default:
        return 1;
    }
  }
}

namespace {
std::vector<double> session_peak_memory_mb() {
  const double mine = process_peak_memory_mb();
  if (!g_session) return {mine};
  command_ranks(kPeakMemory);
  std::vector<double> all(world_size());
  MPI_Gather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, PETSC_COMM_WORLD);
  return all;
}

void reset_session_peak_memory() {
  command_ranks(kResetPeakMemory);
  reset_process_peak_memory();
}
}  // namespace

void register_slepc_solver() {
  set_distributed_solver(DistributedSolver{
      solve_fem_modes_slepc, session_peak_memory_mb, reset_session_peak_memory,
      [] { return g_session != nullptr; }});
}

EigenSolution solve_fem_modes_slepc(const FemMesh& mesh, const Material& material,
                                    const std::vector<int>& dof_map, int free_dofs,
                                    const EigenSolveOptions& options,
                                    const std::function<int(const EigenSolution&)>& more) {
  if (free_dofs == 0 || dof_map.size() != 3 * static_cast<size_t>(mesh.nodes.rows()))
    throw Error("empty or inconsistent FEM system");
  if (options.shift >= 0) throw Error("internal: the eigen shift must be negative");
  if (options.count < 1) throw Error("internal: no eigenpairs requested");
  if (options.count >= free_dofs)
    throw Error(fmt::format("{} modes asked of a model with only {} degrees of freedom: ask for "
                            "fewer modes or refine the mesh",
                            options.count, free_dofs));
  validate_material(material);
  check_element_orientation(mesh);
  if (!g_session) {
    // Called without main()'s session (a library user, a test): SLEPc on this process alone.
    PetscBool started = PETSC_FALSE;
    SlepcInitialized(&started);
    if (!started) {
      start_slepc();
      std::atexit([] { SlepcFinalize(); });
    }
  }
  command_ranks(kSolve);
  try {
    return collective_solve(&mesh, &material, &dof_map, free_dofs, &options, &more);
  } catch (const PetscFailure& e) {
    g_broken = true;
    throw Error(e.what());
  }
}

}  // namespace mesh2dsp
