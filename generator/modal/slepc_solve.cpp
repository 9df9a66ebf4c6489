#include "modal/slepc_solve.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <slepceps.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "modal/cholmod_factor.hpp"
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

// The contiguous block of rows a rank owns: n/size each, the first n%size one more.
struct RowBlock {
  PetscInt begin = 0, end = 0;
};
RowBlock rows_of(PetscInt n, int rank, int size) {
  const PetscInt base = n / size, extra = n % size;
  RowBlock b;
  b.begin = rank * base + std::min<PetscInt>(rank, extra);
  b.end = b.begin + base + (rank < extra ? 1 : 0);
  return b;
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

// The distributed symmetric matrix whose lower triangle `lower` rank 0 holds (nullptr on the
// other ranks), as MPISBAIJ (upper triangle, half the memory of AIJ). Column j of a column-major
// lower triangle is row j of the upper one, so rank 0 scatters whole column blocks: each rank
// receives the row lengths, column indices and values of its own rows.
void distribute_symmetric(const SparseMatrix* lower, PetscInt n, Mat* out) {
  const int rank = world_rank(), size = world_size();
  const RowBlock mine = rows_of(n, rank, size);
  const int local_rows = static_cast<int>(mine.end - mine.begin);
  std::vector<int> row_counts, row_offsets, entry_counts, entry_offsets, all_lengths;
  if (rank == 0) {
    const int* outer = lower->outerIndexPtr();
    for (int r = 0; r < size; ++r) {
      const RowBlock b = rows_of(n, r, size);
      row_counts.push_back(static_cast<int>(b.end - b.begin));
      row_offsets.push_back(static_cast<int>(b.begin));
      entry_counts.push_back(outer[b.end] - outer[b.begin]);
      entry_offsets.push_back(outer[b.begin]);
    }
    all_lengths.resize(n);
    for (PetscInt i = 0; i < n; ++i) all_lengths[i] = outer[i + 1] - outer[i];
  }
  std::vector<int> lengths(local_rows);
  MPI_Scatterv(all_lengths.data(), row_counts.data(), row_offsets.data(), MPI_INT, lengths.data(),
               local_rows, MPI_INT, 0, PETSC_COMM_WORLD);
  const int local_entries = std::accumulate(lengths.begin(), lengths.end(), 0);
  std::vector<int> columns(local_entries);
  std::vector<double> values(local_entries);
  MPI_Scatterv(rank == 0 ? lower->innerIndexPtr() : nullptr, entry_counts.data(),
               entry_offsets.data(), MPI_INT, columns.data(), local_entries, MPI_INT, 0,
               PETSC_COMM_WORLD);
  MPI_Scatterv(rank == 0 ? lower->valuePtr() : nullptr, entry_counts.data(), entry_offsets.data(),
               MPI_DOUBLE, values.data(), local_entries, MPI_DOUBLE, 0, PETSC_COMM_WORLD);

  // Exact preallocation: entries in the rank's own column block, and beyond it.
  std::vector<PetscInt> diagonal_block(local_rows, 0), off_block(local_rows, 0);
  for (int i = 0, pos = 0; i < local_rows; ++i)
    for (int k = 0; k < lengths[i]; ++k, ++pos) ++(columns[pos] < mine.end ? diagonal_block[i] : off_block[i]);
  check(MatCreate(PETSC_COMM_WORLD, out), "MatCreate");
  check(MatSetSizes(*out, local_rows, local_rows, n, n), "MatSetSizes");
  check(MatSetType(*out, MATSBAIJ), "MatSetType");
  check(MatSeqSBAIJSetPreallocation(*out, 1, 0, diagonal_block.data()), "preallocation");
  check(MatMPISBAIJSetPreallocation(*out, 1, 0, diagonal_block.data(), 0, off_block.data()),
        "preallocation");
  std::vector<PetscInt> row_columns;
  for (int i = 0, pos = 0; i < local_rows; ++i) {
    const PetscInt row = mine.begin + i;
    row_columns.assign(columns.begin() + pos, columns.begin() + pos + lengths[i]);
    check(MatSetValues(*out, 1, &row, lengths[i], row_columns.data(), values.data() + pos, INSERT_VALUES),
          "MatSetValues");
    pos += lengths[i];
  }
  check(MatAssemblyBegin(*out, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
  check(MatAssemblyEnd(*out, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
}

// What rank 0 tells the serving ranks about a solve.
struct SolveSetup {
  PetscInt dof = 0;
  int count = 0;
  int same_pattern = 0;  // K and M share their sparsity pattern (the assembly makes them so)
  double shift = 0, tolerance = 0;
};

bool same_pattern(const SparseMatrix& a, const SparseMatrix& b) {
  return a.nonZeros() == b.nonZeros() &&
         std::equal(a.outerIndexPtr(), a.outerIndexPtr() + a.outerSize() + 1, b.outerIndexPtr()) &&
         std::equal(a.innerIndexPtr(), a.innerIndexPtr() + a.nonZeros(), b.innerIndexPtr());
}

// Every rank: the whole solve. `k`, `m` (compressed lower triangles) and `more` on rank 0 only.
EigenSolution collective_solve(const SparseMatrix* k, const SparseMatrix* m,
                               const EigenSolveOptions* options,
                               const std::function<int(const EigenSolution&)>* more) {
  const bool root = world_rank() == 0;
  SolveSetup setup;
  if (root) {
    setup.dof = static_cast<PetscInt>(k->rows());
    setup.count = options->count;
    setup.same_pattern = same_pattern(*k, *m);
    setup.shift = options->shift;
    setup.tolerance = options->tolerance;
  }
  MPI_Bcast(&setup, sizeof setup, MPI_BYTE, 0, PETSC_COMM_WORLD);

  Progress progress("eigen solve (SLEPc)");
  // Threads only for a lone rank's factorization: MUMPS's one-vector solves are too small to
  // share (threaded BLAS made them 3x slower on the loaded 2-core machine), and with several
  // ranks each rank is meant to have its core.
  std::optional<SerialThreads> serial;
  if (world_size() > 1) serial.emplace();
  OwnedMat stiffness, mass;
  distribute_symmetric(k, setup.dof, stiffness.out());
  distribute_symmetric(m, setup.dof, mass.out());

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
  check(STSetMatStructure(st, setup.same_pattern ? SAME_NONZERO_PATTERN : DIFFERENT_NONZERO_PATTERN),
        "STSetMatStructure");
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
  check(EPSSetFromOptions(eps), "EPSSetFromOptions");  // PETSC_OPTIONS may tune MUMPS or SLEPc

  OwnedVec x, gathered;
  OwnedScatter to_root;
  check(MatCreateVecs(stiffness, x.out(), nullptr), "MatCreateVecs");
  check(VecScatterCreateToZero(x, to_root.out(), gathered.out()), "VecScatterCreateToZero");

  EigenSolution out;
  double factorization_s = 0;
  int solves = 0;
  for (int count = setup.count; count > 0;) {
    check(EPSSetDimensions(eps, count, PETSC_DEFAULT, PETSC_DEFAULT), "EPSSetDimensions");
    const auto setup_start = std::chrono::steady_clock::now();
    check(EPSSetUp(eps), "EPSSetUp (the MUMPS factorization of K - shift M)");
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
    if (converged < count)
      throw Error(fmt::format("the SLEPc eigen solver did not converge ({} of {} modes; {} "
                              "degrees of freedom)",
                              converged, count, setup.dof));
    std::vector<double> lambda(count);
    Eigen::MatrixXd vectors;
    if (root) vectors.resize(setup.dof, count);
    for (int i = 0; i < count; ++i) {
      PetscScalar value = 0;
      check(EPSGetEigenpair(eps, i, &value, nullptr, x, nullptr), "EPSGetEigenpair");
      lambda[i] = PetscRealPart(value);
      check(VecScatterBegin(to_root, x, gathered, INSERT_VALUES, SCATTER_FORWARD), "VecScatter");
      check(VecScatterEnd(to_root, x, gathered, INSERT_VALUES, SCATTER_FORWARD), "VecScatter");
      if (root) {
        const PetscScalar* a = nullptr;
        check(VecGetArrayRead(gathered, &a), "VecGetArrayRead");
        std::copy(a, a + setup.dof, vectors.col(i).data());
        check(VecRestoreArrayRead(gathered, &a), "VecRestoreArrayRead");
      }
    }
    int next = 0;
    if (root) {
      // Ascending λ (SLEPc orders by distance to σ, the same here up to ties), φᵀMφ = 1.
      std::vector<int> order(count);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return lambda[a] < lambda[b]; });
      out.eigenvalues.resize(count);
      out.vectors.resize(setup.dof, count);
      for (int i = 0; i < count; ++i) {
        out.eigenvalues[i] = lambda[order[i]];
        out.vectors.col(i) = vectors.col(order[i]);
      }
      const Eigen::MatrixXd mv = symmetric_times(*m, out.vectors);
      for (int i = 0; i < count; ++i) out.vectors.col(i) /= std::sqrt(out.vectors.col(i).dot(mv.col(i)));
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
  return out;
}

}  // namespace

bool parallel_session_wanted(int argc, char** argv) {
  // Open MPI, PMIx (Slurm, Open MPI 5) and MPICH/hydra launchers set these for every rank.
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(variable)) return true;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "slepc" || arg == "--solver=slepc") return true;
  }
  return false;
}

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
          collective_solve(nullptr, nullptr, nullptr, nullptr);
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

std::vector<double> rank_peak_memory_mb() {
  const double mine = process_peak_memory_mb();
  if (!g_session) return {mine};
  command_ranks(kPeakMemory);
  std::vector<double> all(world_size());
  MPI_Gather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, PETSC_COMM_WORLD);
  return all;
}

bool parallel_session_running() { return g_session != nullptr; }

void reset_rank_peak_memory() {
  command_ranks(kResetPeakMemory);
  reset_process_peak_memory();
}

EigenSolution solve_lowest_modes_slepc(const SparseMatrix& k, const SparseMatrix& m,
                                       const EigenSolveOptions& options,
                                       const std::function<int(const EigenSolution&)>& more) {
  const Eigen::Index n = k.rows();
  if (n == 0 || k.rows() != m.rows()) throw Error("empty or inconsistent FEM system");
  if (options.shift >= 0) throw Error("internal: the eigen shift must be negative");
  if (options.count < 1) throw Error("internal: no eigenpairs requested");
  if (options.count >= n)
    throw Error(fmt::format("{} modes asked of a model with only {} degrees of freedom: ask for "
                            "fewer modes or refine the mesh",
                            options.count, n));
  if (!g_session) {
    // Called without main()'s session (a library user, a test): SLEPc on this process alone.
    PetscBool started = PETSC_FALSE;
    SlepcInitialized(&started);
    if (!started) {
      start_slepc();
      std::atexit([] { SlepcFinalize(); });
    }
  }
  // The scatter sends the compressed arrays (a copy only when they are not compressed).
  SparseMatrix k_copy, m_copy;
  const SparseMatrix* kp = &k;
  const SparseMatrix* mp = &m;
  if (!k.isCompressed()) {
    k_copy = k;
    k_copy.makeCompressed();
    kp = &k_copy;
  }
  if (!m.isCompressed()) {
    m_copy = m;
    m_copy.makeCompressed();
    mp = &m_copy;
  }
  command_ranks(kSolve);
  try {
    return collective_solve(kp, mp, &options, &more);
  } catch (const PetscFailure& e) {
    g_broken = true;
    throw Error(e.what());
  }
}

}  // namespace mesh2dsp
