#include "modal/cholmod_factor.hpp"

#include <cholmod.h>
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "modal/supernodal_solve.hpp"
#include "util/error.hpp"
#include "util/free_memory.hpp"
#include "util/run_parts.hpp"

namespace mesh2dsp {
namespace {

// CHOLMOD reports errors through a global callback without a user pointer; the message is kept
// per thread and turned into an Error by the call that failed.
thread_local std::string last_cholmod_error;

void record_cholmod_error(int status, const char* /*file*/, int /*line*/, const char* message) {
  if (status < 0) last_cholmod_error = message ? message : "unknown error";
}

std::string describe_failure(int status) {
  const std::string what = last_cholmod_error.empty() ? fmt::format("status {}", status)
                                                      : last_cholmod_error;
  if (status == CHOLMOD_OUT_OF_MEMORY || status == CHOLMOD_TOO_LARGE)
    return fmt::format(
        "the factorization does not fit (CHOLMOD: {}): ask for fewer modes (--modes), lower "
        "--fmax, use --element-order 1 or a larger --max-tet-volume",
        what);
  return fmt::format("the sparse factorization failed (CHOLMOD: {})", what);
}

cholmod_dense view_dense(const Eigen::MatrixXd& b) {
  cholmod_dense d{};
  d.nrow = b.rows();
  d.ncol = b.cols();
  d.nzmax = b.size();
  d.d = b.rows();
  d.x = const_cast<double*>(b.data());
  d.xtype = CHOLMOD_REAL;
  d.dtype = CHOLMOD_DOUBLE;
  return d;
}

cholmod_sparse view_lower(const SparseMatrix& a) {
  cholmod_sparse s{};
  s.nrow = a.rows();
  s.ncol = a.cols();
  s.nzmax = a.nonZeros();
  s.p = const_cast<int*>(a.outerIndexPtr());
  s.i = const_cast<int*>(a.innerIndexPtr());
  s.nz = const_cast<int*>(a.innerNonZeroPtr());
  s.x = const_cast<double*>(a.valuePtr());
  s.stype = -1;  // lower triangle of a symmetric matrix
  s.itype = CHOLMOD_INT;
  s.xtype = CHOLMOD_REAL;
  s.dtype = CHOLMOD_DOUBLE;
  s.sorted = 1;
  s.packed = a.isCompressed() ? 1 : 0;
  return s;
}

// The fill-reducing ordering of a matrix with three DOF per node (node k's DOF are 3k..3k+2,
// as the FEM assembles them): AMD and METIS (the one with less fill) run on the node graph, nine
// times smaller than the DOF graph, and each node's three DOF follow it (a node's DOF are coupled
// to the same neighbours). Measured, ordering and symbolic analysis together: 10.9 -> 7.9 s on a
// 581 k-DOF P2 mesh, 0.6-1.5 -> 0.4-1.2 s on 50-100 k DOF, for 1-10 % more factor flops and
// the same modes. Empty when the matrix cannot be node-blocked.
std::vector<int> node_blocked_ordering(const SparseMatrix& lower, cholmod_common& c) {
  const Eigen::Index n = lower.rows();
  // Not square, empty or not node-blocked: CHOLMOD orders it (and reports what is wrong with it).
  if (n != lower.cols() || n == 0 || n % 3 != 0) return {};
  const int nodes = static_cast<int>(n / 3);
  // The node graph's lower triangle, column by column: node J's column gathers the rows of
  // DOF columns 3J..3J+2, each row mapped to its node (a marker keeps each node once).
  std::vector<int> column_start(nodes + 1, 0), rows, marker(nodes, -1);
  rows.reserve(static_cast<std::size_t>(lower.nonZeros() / 6 + nodes));
  for (int node = 0; node < nodes; ++node) {
    const std::size_t first = rows.size();
    for (int d = 0; d < 3; ++d)
      for (SparseMatrix::InnerIterator it(lower, 3 * node + d); it; ++it) {
        const int row_node = static_cast<int>(it.row() / 3);
        if (row_node >= node && marker[row_node] != node) {
          marker[row_node] = node;
          rows.push_back(row_node);
        }
      }
    std::sort(rows.begin() + static_cast<std::ptrdiff_t>(first), rows.end());
    column_start[node + 1] = static_cast<int>(rows.size());
  }
  cholmod_sparse graph{};
  graph.nrow = graph.ncol = nodes;
  graph.nzmax = rows.size();
  graph.p = column_start.data();
  graph.i = rows.data();
  graph.stype = -1;
  graph.itype = CHOLMOD_INT;
  graph.xtype = CHOLMOD_PATTERN;
  graph.dtype = CHOLMOD_DOUBLE;
  graph.sorted = 1;
  graph.packed = 1;
  // AMD and METIS side by side, one core each (in turn inside one cholmod_analyze they took 0.7 s
  // of the statue's 1.1 s of ordering); the one with less fill is kept, AMD on a tie. Only the
  // ordering is wanted of the node graph: no supernodal analysis.
  struct Ordering {
    cholmod_common c{};
    cholmod_factor* symbolic = nullptr;
    ~Ordering() {
      if (symbolic) cholmod_free_factor(&symbolic, &c);
      cholmod_finish(&c);
    }
  } orderings[2];
  const int method[2] = {CHOLMOD_AMD, CHOLMOD_METIS};
  run_parts(2, [&](int k) {
    Ordering& o = orderings[k];
    cholmod_start(&o.c);
    o.c.error_handler = c.error_handler;
    o.c.print = 0;
    o.c.supernodal = CHOLMOD_SIMPLICIAL;
    o.c.nmethods = 1;
    o.c.method[0].ordering = method[k];
    o.symbolic = cholmod_analyze(&graph, &o.c);
    if (o.symbolic && o.c.status < CHOLMOD_OK) cholmod_free_factor(&o.symbolic, &o.c);
  });
  auto fill = [&](int k) { return orderings[k].symbolic ? orderings[k].c.method[0].lnz : INFINITY; };
  const int best = fill(1) < fill(0) ? 1 : 0;
  if (!orderings[best].symbolic) return {};
  const int* node_order = static_cast<const int*>(orderings[best].symbolic->Perm);
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int k = 0; k < nodes; ++k)
    for (int d = 0; d < 3; ++d) order[3 * k + d] = 3 * node_order[k] + d;
  return order;
}

// Debian's CHOLMOD asks for teams of CHOLMOD_OMP_NUM_THREADS (4) in its supernodal
// factorization, whatever the machine has, around the copies and assembly of each supernode's
// updates, while the BLAS it calls (OpenBLAS, its own threads) does the arithmetic on every core.
// Its teams get one thread here: dynamic teams bound by an OpenMP thread count of one (the
// num_threads(4) clause overrides the count alone, not the dynamic bound). Dynamic teams
// bound only by the machine were tried before: libgomp bounds them by the cores less the
// 15-minute load average, so an idle machine got teams of two beside OpenBLAS's two threads and
// a busy one teams of one, and the factorization was 3x slower on the idle machine. Measured in
// alternating runs, teams of two -> one: the bell (P3, 153 k DOF) 3.6/4.7 -> 1.2/1.3 s, the sword
// (255 k DOF) 2.0/2.4 -> 1.0/0.9 s. For the scope of one CHOLMOD call; the caller's settings
// come back.
class SingleThreadOpenMpTeams {
 public:
  SingleThreadOpenMpTeams() : previous_dynamic_(omp_get_dynamic()), previous_threads_(omp_get_max_threads()) {
    omp_set_dynamic(1);
    omp_set_num_threads(1);
  }
  ~SingleThreadOpenMpTeams() {
    omp_set_num_threads(previous_threads_);
    omp_set_dynamic(previous_dynamic_);
  }
  SingleThreadOpenMpTeams(const SingleThreadOpenMpTeams&) = delete;
  SingleThreadOpenMpTeams& operator=(const SingleThreadOpenMpTeams&) = delete;

 private:
  int previous_dynamic_, previous_threads_;
};

// CHOLMOD's large arrays (the factor's values: 430 MB for a statue scan, 3.2 GB for a bell)
// have their pages faulted in on every core as soon as they are allocated: the factorization
// then writes them one supernode at a time from one thread (fault_in_on_every_core). Through
// SuiteSparse's allocator hooks, installed once.
void* cholmod_malloc_faulted_in(std::size_t bytes) {
  void* memory = std::malloc(bytes);
  fault_in_on_every_core(memory, bytes);
  return memory;
}

void* cholmod_calloc_faulted_in(std::size_t count, std::size_t size) {
  void* memory = std::calloc(count, size);
  if (size != 0 && count <= SIZE_MAX / size) fault_in_on_every_core(memory, count * size);
  return memory;
}

void use_faulted_in_allocations() {
  static const bool installed = [] {
    SuiteSparse_config.malloc_func = cholmod_malloc_faulted_in;
    SuiteSparse_config.calloc_func = cholmod_calloc_faulted_in;
    return true;
  }();
  (void)installed;
}

}  // namespace

struct CholmodFactor::State {
  cholmod_common common{};
  cholmod_factor* factor = nullptr;
  cholmod_dense *solution = nullptr, *work_y = nullptr, *work_e = nullptr;  // cholmod_solve2's
  std::unique_ptr<SupernodalSolve> parallel_solve;  // the solves in the factor's order
  void free_numeric() {
    parallel_solve.reset();
    cholmod_free_dense(&solution, &common);
    cholmod_free_dense(&work_y, &common);
    cholmod_free_dense(&work_e, &common);
    if (factor) cholmod_free_factor(&factor, &common);
  }
  ~State() {
    free_numeric();
    cholmod_finish(&common);
  }
};

CholmodFactor::CholmodFactor(const SparseMatrix& pattern) : state_(std::make_unique<State>()) {
  use_faulted_in_allocations();
  rows_ = pattern.rows();
  auto& c = state_->common;
  cholmod_start(&c);
  c.error_handler = record_cholmod_error;
  c.print = 0;  // the error becomes the Error's message, not stderr noise
  // Supernodal LLᵀ (BLAS-3); try AMD and METIS and keep the ordering with less fill: METIS
  // saves 15-30 % of the factorization work on P2 tet meshes, and more as they grow.
  c.supernodal = CHOLMOD_SUPERNODAL;
  c.nmethods = 2;
  c.method[0].ordering = CHOLMOD_AMD;
  c.method[1].ordering = CHOLMOD_METIS;
  last_cholmod_error.clear();
  cholmod_sparse a = view_lower(pattern);
  std::vector<int> order = node_blocked_ordering(pattern, c);
  if (!order.empty()) {
    c.nmethods = 1;
    c.method[0].ordering = CHOLMOD_GIVEN;
    state_->factor = cholmod_analyze_p(&a, order.data(), nullptr, 0, &c);
  } else {
    state_->factor = cholmod_analyze(&a, &c);
  }
  if (!state_->factor || c.status < CHOLMOD_OK) throw Error(describe_failure(c.status));
  const cholmod_factor& l = *state_->factor;
  size_.entries = static_cast<double>(l.xsize);
  size_.flops = c.fl;
  // Supernodal update workspace (maxcsize doubles) and the integer structure.
  size_.workspace_bytes = 8.0 * static_cast<double>(l.maxcsize) + 4.0 * static_cast<double>(l.ssize) +
                          64.0 * static_cast<double>(rows_);
}

CholmodFactor::~CholmodFactor() = default;

void CholmodFactor::factorize(const SparseMatrix& lower) {
  if (!state_->factor) throw Error("the factorization was released");
  auto& c = state_->common;
  last_cholmod_error.clear();
  cholmod_sparse a = view_lower(lower);
  const SingleThreadOpenMpTeams teams;
  const int ok = cholmod_factorize(&a, state_->factor, &c);
  if (!ok || c.status < CHOLMOD_OK) throw Error(describe_failure(c.status));
  if (c.status == CHOLMOD_NOT_POSDEF || state_->factor->minor < static_cast<size_t>(rows_))
    throw Error(
        "the stiffness matrix could not be factorized (K − σM is not positive definite): the "
        "mesh or the material is broken");
}

void CholmodFactor::release() { state_->free_numeric(); }

void CholmodFactor::solve(const Eigen::MatrixXd& b, Eigen::MatrixXd& x) const { solve_system(CHOLMOD_A, b, x); }

// CHOLMOD_LDLt solves L D Lᵀ x = b without the permutation; for an LLᵀ factor D = I. A
// supernodal LLᵀ factor (what the analysis asks for) is solved on every core by SupernodalSolve.
void CholmodFactor::solve_in_order(const Eigen::MatrixXd& b, Eigen::MatrixXd& x) const {
  auto& s = *state_;
  if (!s.factor) throw Error("the factorization was released before a solve");
  const cholmod_factor& l = *s.factor;
  if (!l.is_super || !l.is_ll || l.xtype != CHOLMOD_REAL || l.itype != CHOLMOD_INT) {
    solve_system(CHOLMOD_LDLt, b, x);
    return;
  }
  if (!s.parallel_solve) {
    SupernodalFactorView view;
    view.rows = static_cast<int>(l.n);
    view.supernodes = static_cast<int>(l.nsuper);
    view.first_column = static_cast<const int*>(l.super);
    view.row_start = static_cast<const int*>(l.pi);
    view.value_start = static_cast<const int*>(l.px);
    view.row_index = static_cast<const int*>(l.s);
    view.values = static_cast<const double*>(l.x);
    // Below some thousand rows per core a solve takes microseconds: one core, no hand-over.
    const int parts = std::max(1, std::min(omp_get_num_procs(), view.rows / 8192));
    s.parallel_solve = std::make_unique<SupernodalSolve>(view, solve_parts_ > 0 ? solve_parts_ : parts);
  }
  s.parallel_solve->solve(b, x);
}

void CholmodFactor::solve_system(int system, const Eigen::MatrixXd& b, Eigen::MatrixXd& x) const {
  auto& s = *state_;
  if (!s.factor) throw Error("the factorization was released before a solve");
  cholmod_dense rhs = view_dense(b);
  last_cholmod_error.clear();
  // cholmod_solve2 reuses the three buffers when their shape fits and reallocates them otherwise.
  if (!cholmod_solve2(system, s.factor, &rhs, nullptr, &s.solution, nullptr, &s.work_y, &s.work_e, &s.common))
    throw Error(describe_failure(s.common.status));
  x = Eigen::Map<const Eigen::MatrixXd>(static_cast<const double*>(s.solution->x), b.rows(), b.cols());
}

Eigen::VectorXi CholmodFactor::order() const {
  const cholmod_factor* l = state_->factor;
  if (!l) throw Error("the factorization was released");
  Eigen::VectorXi out(rows_);
  const int* perm = static_cast<const int*>(l->Perm);
  for (Eigen::Index k = 0; k < rows_; ++k) out[k] = perm ? perm[k] : static_cast<int>(k);
  return out;
}

Eigen::MatrixXd symmetric_times(const SparseMatrix& lower, const Eigen::MatrixXd& x) {
  struct Common {
    cholmod_common c{};
    Common() {
      cholmod_start(&c);
      c.error_handler = record_cholmod_error;
      c.print = 0;
    }
    ~Common() { cholmod_finish(&c); }
  };
  thread_local Common common;
  Eigen::MatrixXd y(lower.rows(), x.cols());
  cholmod_sparse a = view_lower(lower);
  cholmod_dense in = view_dense(x), out = view_dense(y);
  double one[2] = {1, 0}, zero[2] = {0, 0};
  last_cholmod_error.clear();
  if (!cholmod_sdmult(&a, 0, one, zero, &in, &out, &common.c))
    throw Error(describe_failure(common.c.status));
  return y;
}

}  // namespace mesh2dsp
