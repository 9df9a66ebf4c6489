#include "modal/cholmod_factor.hpp"

#include <cholmod.h>
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "modal/memory_estimate.hpp"
#include "modal/permuted_lower.hpp"
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

// `sorted`: the rows within each column ascend.
cholmod_sparse view_lower(const SparseMatrix& a, bool sorted = true) {
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
  s.sorted = sorted ? 1 : 0;
  s.packed = a.isCompressed() ? 1 : 0;
  return s;
}

// The corners' parts (CHOLMOD's nd_small, 200 by default): at 200 (1 600-3 200 nodes a part,
// 8 to 16 nodes a corner in P2 and P3) CAMD's leaves filled more than METIS on the node graph
// (statue 5.05 M against 4.61 M at 20, plate 1.70 M against 1.47 M); 10 gave within 1-3 % of 20,
// a little slower.
constexpr int kCornerPartSize = 20;

// A CHOLMOD workspace for one call, reporting errors as the caller's does.
struct Workspace {
  cholmod_common c{};
  explicit Workspace(const cholmod_common& caller) {
    cholmod_start(&c);
    c.error_handler = caller.error_handler;
    c.print = 0;
  }
  ~Workspace() { cholmod_finish(&c); }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
};

// A symbolic analysis of a pattern for its ordering alone (no supernodes), on a CHOLMOD
// workspace of its own (orderings run side by side).
struct Ordering {
  std::optional<Workspace> w;
  cholmod_factor* symbolic = nullptr;
  // `given`: that permutation, analysed for its fill; else `method`'s ordering.
  void analyse(cholmod_sparse& graph, int method, int* given, const cholmod_common& caller) {
    cholmod_common& c = w.emplace(caller).c;
    c.supernodal = CHOLMOD_SIMPLICIAL;
    c.nmethods = 1;
    c.method[0].ordering = given ? CHOLMOD_GIVEN : method;
    symbolic = given ? cholmod_analyze_p(&graph, given, nullptr, 0, &c) : cholmod_analyze(&graph, &c);
    if (symbolic && c.status < CHOLMOD_OK) cholmod_free_factor(&symbolic, &c);
  }
  double fill() const { return symbolic ? w->c.method[0].lnz : INFINITY; }
  const int* order() const { return static_cast<const int*>(symbolic->Perm); }
  ~Ordering() {
    if (symbolic) cholmod_free_factor(&symbolic, &w->c);
  }
};

// The lower triangle of a graph given by each column's neighbours, as a CHOLMOD pattern over
// `column_start` and `rows` (kept by the caller).
cholmod_sparse pattern_view(int columns, std::vector<int>& column_start, std::vector<int>& rows) {
  cholmod_sparse graph{};
  graph.nrow = graph.ncol = columns;
  graph.nzmax = rows.size();
  graph.p = column_start.data();
  graph.i = rows.data();
  graph.stype = -1;
  graph.itype = CHOLMOD_INT;
  graph.xtype = CHOLMOD_PATTERN;
  graph.dtype = CHOLMOD_DOUBLE;
  graph.sorted = 1;
  graph.packed = 1;
  return graph;
}

// The node graph's lower triangle of a node-blocked pattern (node k: DOF 3k..3k+2), column by
// column: node J's column gathers the rows of DOF columns 3J..3J+2, each row mapped to its node
// (a marker keeps each node once).
struct NodeGraph {
  int nodes;
  std::vector<int> column_start, rows;
  explicit NodeGraph(const SparseMatrix& lower) : nodes(static_cast<int>(lower.rows() / 3)), column_start(nodes + 1, 0) {
    std::vector<int> marker(nodes, -1);
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
  }
  cholmod_sparse view() { return pattern_view(nodes, column_start, rows); }
};

// A nested dissection of the node graph found on the graph of the mesh's corners (the
// tetrahedra's edges: a sword scan's cubic mesh has 5 k corners against 85 k nodes, whose graph
// METIS took 1.07 s to dissect). CHOLMOD's nested dissection (recursive METIS vertex separators)
// splits the corners into a tree of parts of at most kCornerPartSize; a node joins the deepest
// part among its corners' (an edge's or a face's node is coupled only to the nodes of the
// elements around it, whose corners lie in that part and its ancestors: a separator keeps the
// parts beside it apart); CAMD then orders the node graph with the parts as constraints,
// children before parents. Fill (nonzeros of L on the node graph) against METIS_NodeND on the
// node graph: a statue scan's P2 mesh 4.61 M against 5.03 M, spot's 3.14 M against 3.39 M, a
// CAD bell's P3 mesh 5.58 M against 5.94 M, the 5 mm benchmark bar 0.79 M against 0.84 M, the
// plate 1.47 M against 1.57 M; each ordering in 0.03-0.21 s instead of 0.1-1.07 s (the sword's:
// AMD's 4.92 M stays the best, against 4.97 M). Empty when the nodes have no edges or faces
// (linear elements: the corners' graph is the node graph).
std::vector<int> corner_dissection_order(cholmod_sparse& node_graph, const NodeCorners& corners,
                                         const cholmod_common& caller) {
  int vertices = 0;
  bool higher_order = false;
  for (const auto& c : corners) {
    vertices = std::max({vertices, c[0] + 1, c[1] + 1, c[2] + 1});
    higher_order = higher_order || c[1] >= 0;
  }
  if (!higher_order) return {};
  // The corners' graph: an edge between two corners of one entity (every tetrahedron edge
  // carries an edge node in P2 and P3).
  std::vector<std::vector<int>> higher(static_cast<std::size_t>(vertices));  // neighbours of higher index
  for (const auto& c : corners)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        if (c[i] >= 0 && c[j] > c[i]) higher[c[i]].push_back(c[j]);
  std::vector<int> column_start(static_cast<std::size_t>(vertices) + 1, 0), rows;
  for (int v = 0; v < vertices; ++v) {
    auto& r = higher[v];
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    rows.insert(rows.end(), r.begin(), r.end());
    column_start[v + 1] = static_cast<int>(rows.size());
  }
  cholmod_sparse graph = pattern_view(vertices, column_start, rows);
  std::vector<int> vertex_order(vertices), parent(vertices), vertex_part(vertices);
  {
    Workspace w(caller);
    w.c.method[w.c.current].nd_small = kCornerPartSize;
    if (cholmod_nested_dissection(&graph, nullptr, 0, vertex_order.data(), parent.data(), vertex_part.data(), &w.c) <= 0)
      return {};
  }
  // Parts are numbered children before parents: the deepest of a node's corners' is the lowest.
  std::vector<int> node_part(corners.size());
  for (std::size_t node = 0; node < corners.size(); ++node) {
    int part = vertices;
    for (int v : corners[node])
      if (v >= 0) part = std::min(part, vertex_part[v]);
    if (part == vertices) return {};  // a node outside every element
    node_part[node] = part;
  }
  std::vector<int> order(corners.size());
  Workspace w(caller);
  if (!cholmod_camd(&node_graph, nullptr, 0, node_part.data(), order.data(), &w.c)) return {};
  return order;
}

// The fill-reducing ordering of a matrix with three DOF per node (node k's DOF are 3k..3k+2,
// as the FEM assembles them): AMD and METIS (the one with less fill) run on the node graph, nine
// times smaller than the DOF graph, and each node's three DOF follow it (a node's DOF are coupled
// to the same neighbours). Measured, ordering and symbolic analysis together: 10.9 -> 7.9 s on a
// 581 k-DOF P2 mesh, 0.6-1.5 -> 0.4-1.2 s on 50-100 k DOF, for 1-10 % more factor flops and
// the same modes. With the nodes' corners, the graph of the corners is dissected instead of the
// node graph (corner_dissection_order). Empty when the matrix cannot be node-blocked.
std::vector<int> node_blocked_ordering(const SparseMatrix& lower, const NodeCorners& corners, cholmod_common& c,
                                       double& node_fill) {
  const Eigen::Index n = lower.rows();
  // Not square, empty or not node-blocked: CHOLMOD orders it (and reports what is wrong with it).
  if (n != lower.cols() || n == 0 || n % 3 != 0) return {};
  const int nodes = static_cast<int>(n / 3);
  NodeGraph node_graph(lower);
  cholmod_sparse graph = node_graph.view();
  // AMD and a nested dissection side by side, one core each (AMD and METIS in turn inside one
  // cholmod_analyze took 0.7 s of the statue's 1.1 s of ordering); the one with less fill is kept,
  // AMD on a tie. The dissection is the corners' when they are given (and it succeeds), else
  // METIS on the node graph. Only the ordering is wanted of the node graph: no supernodal analysis.
  Ordering orderings[2];
  const bool by_corners = static_cast<int>(corners.size()) == nodes;
  run_parts(2, [&](int k) {
    if (k == 0) return orderings[0].analyse(graph, CHOLMOD_AMD, nullptr, c);
    std::vector<int> dissection = by_corners ? corner_dissection_order(graph, corners, c) : std::vector<int>{};
    orderings[1].analyse(graph, CHOLMOD_METIS, dissection.empty() ? nullptr : dissection.data(), c);
  });
  const int best = orderings[1].fill() < orderings[0].fill() ? 1 : 0;
  if (!orderings[best].symbolic) return {};
  node_fill = orderings[best].fill();
  const int* node_order = orderings[best].order();
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

// The factor's values, faulted in ahead (CholmodFactor's WarmBlock): handed to the one
// allocation of exactly their size during the factorization. One at a time: a factorization
// that finds the slot taken (another thread's) allocates as before.
class ReservedBlock {
 public:
  // Whether `block` took the slot (else the caller keeps it).
  bool reserve(void* block, std::size_t bytes) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (block_) return false;
    block_ = block;
    wanted_ = bytes;
    return true;
  }
  void* take(std::size_t bytes) {
    if (bytes == 0 || wanted_.load(std::memory_order_relaxed) != bytes) return nullptr;  // most calls
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!block_ || wanted_ != bytes) return nullptr;
    wanted_ = 0;
    return std::exchange(block_, nullptr);
  }
  // `block` back, if it is still there.
  void* release(void* block) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!block || block_ != block) return nullptr;
    wanted_ = 0;
    return std::exchange(block_, nullptr);
  }

 private:
  std::mutex mutex_;
  void* block_ = nullptr;
  std::atomic<std::size_t> wanted_{0};  // the block's size; read without the lock first
};
ReservedBlock reserved_factor_values;

// CHOLMOD's large arrays (the factor's values: 430 MB for a statue scan, 3.2 GB for a bell)
// have their pages faulted in on every core as soon as they are allocated: the factorization
// then writes them one supernode at a time from one thread (fault_in_on_every_core). Through
// SuiteSparse's allocator hooks, installed once. The factor's values come from the warmed
// block when one is reserved for them.
void* cholmod_malloc_faulted_in(std::size_t bytes) {
  void* memory = reserved_factor_values.take(bytes);
  if (!memory) memory = std::malloc(bytes);
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
  std::unique_ptr<WarmBlock> warm_values;  // the factor's values, faulted in during the analysis
  std::vector<int> order;  // entry k: the row of A the factor takes k-th
  SparseMatrix permuted;   // P A Pᵀ's lower triangle, kept for factorize() (or empty)
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

std::vector<int> corner_dissection_node_order(const SparseMatrix& pattern_lower, const NodeCorners& corners) {
  if (pattern_lower.rows() % 3 != 0 || static_cast<Eigen::Index>(corners.size()) * 3 != pattern_lower.rows()) return {};
  NodeGraph node_graph(pattern_lower);
  cholmod_sparse graph = node_graph.view();
  cholmod_common caller{};
  caller.error_handler = record_cholmod_error;
  return corner_dissection_order(graph, corners, caller);
}

CholmodFactor::CholmodFactor(const SparseMatrix& pattern, const NodeCorners& node_corners, double memory_limit_bytes)
    : state_(std::make_unique<State>()) {
  analyse(pattern, nullptr, node_corners, memory_limit_bytes);
}

CholmodFactor::CholmodFactor(SparseMatrix&& lower, const NodeCorners& node_corners, double memory_limit_bytes)
    : state_(std::make_unique<State>()) {
  analyse(lower, &lower, node_corners, memory_limit_bytes);
}

void CholmodFactor::analyse(const SparseMatrix& lower, SparseMatrix* taken, const NodeCorners& node_corners,
                            double memory_limit_bytes) {
  use_faulted_in_allocations();
  rows_ = lower.rows();
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
  double node_fill = 0;
  std::vector<int> order = node_blocked_ordering(lower, node_corners, c, node_fill);
  if (!order.empty()) {
    // The matrix is put in the order here, on every core (permuted_lower), and analysed as it
    // then stands: CHOLMOD's analysis of a matrix with a given order made four single-threaded
    // permuted transposes of its pattern (the sword scan's 1.1-1.3 s of analysis, two thirds of
    // it first touches of their memory), in its natural order two plain ones. The node order
    // comes postordered from the node graph's analysis, and a node's three rows follow it, so
    // the order needs no postorder again. The factorization takes the same permuted matrix.
    state_->permuted = permuted_lower(lower, order.data());
    if (taken) free_sparse(*taken);
    c.nmethods = 1;
    c.method[0].ordering = CHOLMOD_NATURAL;
    c.postorder = 0;
    // The symbolic analysis runs on one core; the other faults in the factor's values meanwhile:
    // a 3 x 3 block for each nonzero of the node graph's factor, and the supernodes' padding
    // (the sword scan's 439 MB against 9 x 4.92 M doubles, 1.24 times; the block is reserved
    // at 1.5 times, what the factor does not need handed back when it takes it).
    // Not for a factor the memory check after the analysis may refuse (--max-memory): the
    // refusal would come after touching it.
    constexpr double kSupernodalPadding = 1.5;
    const double values_bytes = 9 * sizeof(double) * node_fill;
    const double limit_bytes = memory_limit_bytes > 0 ? memory_limit_bytes : available_memory_bytes();
    if (limit_bytes > 0 && values_bytes <= limit_bytes / 2)
      state_->warm_values = std::make_unique<WarmBlock>(
          static_cast<std::size_t>(std::min(kSupernodalPadding * values_bytes, limit_bytes / 2)));
    cholmod_sparse a = view_lower(state_->permuted, /*sorted=*/false);
    state_->factor = cholmod_analyze(&a, &c);
    state_->order = std::move(order);
    if (!taken) free_sparse(state_->permuted);  // a pattern's values are not the matrix's
  } else {
    cholmod_sparse a = view_lower(lower);
    state_->factor = cholmod_analyze(&a, &c);
    if (state_->factor && c.status >= CHOLMOD_OK) {
      const int* perm = static_cast<const int*>(state_->factor->Perm);
      state_->order.assign(perm, perm + rows_);
      if (taken) {
        SparseMatrix permuted = permuted_lower(lower, state_->order.data());  // for factorize()
        state_->permuted.swap(permuted);
        free_sparse(*taken);
      }
    }
  }
  if (!state_->factor || c.status < CHOLMOD_OK) throw Error(describe_failure(c.status));
  // CHOLMOD_SUPERNODAL asks for one; the factorization below takes nothing else.
  if (!state_->factor->is_super) throw Error("internal: CHOLMOD's analysis gave no supernodal factor");
  const cholmod_factor& l = *state_->factor;
  size_.entries = static_cast<double>(l.xsize);
  size_.flops = c.fl;
  // Supernodal update workspace (maxcsize doubles) and the integer structure.
  size_.workspace_bytes = 8.0 * static_cast<double>(l.maxcsize) + 4.0 * static_cast<double>(l.ssize) +
                          64.0 * static_cast<double>(rows_);
}

CholmodFactor::~CholmodFactor() = default;

void CholmodFactor::factorize() {
  if (state_->permuted.rows() != rows_)
    throw Error("internal: no matrix kept for the factorization (it was given as a pattern, or factorized)");
  factorize_in_order(state_->permuted);
  free_sparse(state_->permuted);
}

void CholmodFactor::factorize(const SparseMatrix& lower) {
  if (!state_->factor) throw Error("the factorization was released");
  if (lower.rows() != rows_ || lower.cols() != rows_)
    throw Error("internal: the matrix factorized is not the size of the one analysed");
  free_sparse(state_->permuted);  // a matrix kept by the constructor is not the one wanted
  // Initialized, not assigned: Eigen 3.4's sparse assignment would copy it.
  const SparseMatrix permuted = permuted_lower(lower, state_->order.data());
  factorize_in_order(permuted);
}

// `a_lower`: the lower triangle of P A Pᵀ, P the factor's order (its own permutation is then the
// identity, or the one `a_lower` was put in).
void CholmodFactor::factorize_in_order(const SparseMatrix& a_lower) {
  if (!state_->factor) throw Error("the factorization was released");
  auto& c = state_->common;
  cholmod_factor* l = state_->factor;
  last_cholmod_error.clear();
  const SingleThreadOpenMpTeams teams;
  cholmod_sparse a = view_lower(a_lower, /*sorted=*/false);
  // The warmed block for the factor's values, for this factorization only: what it does not
  // take goes back.
  struct Reservation {
    void* block = nullptr;
    explicit Reservation(std::unique_ptr<WarmBlock> warm, std::size_t bytes) {
      if (warm) block = warm->take(bytes);
      if (block && !reserved_factor_values.reserve(block, bytes)) std::free(std::exchange(block, nullptr));
    }
    ~Reservation() { std::free(reserved_factor_values.release(block)); }
  } reservation(std::move(state_->warm_values), l->xsize * sizeof(double));
  // The supernodal factorization of the matrix already in the factor's order (CHOLMOD's own
  // route, cholmod_factorize, would permute it again).
  double no_diagonal_shift[2] = {0, 0};
  const int ok = cholmod_super_numeric(&a, nullptr, no_diagonal_shift, l, &c);
  if (!ok || c.status < CHOLMOD_OK) throw Error(describe_failure(c.status));
  if (c.status == CHOLMOD_NOT_POSDEF || l->minor < static_cast<size_t>(rows_))
    throw Error(
        "the stiffness matrix could not be factorized (K − σM is not positive definite): the "
        "mesh or the material is broken");
}

void CholmodFactor::release() { state_->free_numeric(); }

void CholmodFactor::solve(const Eigen::MatrixXd& b, Eigen::MatrixXd& x) const {
  const std::vector<int>& order = state_->order;
  if (b.rows() != rows_) throw Error("internal: a right-hand side of the wrong size");
  Eigen::MatrixXd b_in_order(b.rows(), b.cols()), x_in_order;
  for (Eigen::Index k = 0; k < rows_; ++k) b_in_order.row(k) = b.row(order[k]);
  // CHOLMOD's own solve (one core), against which SupernodalSolve's is tested.
  solve_system(CHOLMOD_LDLt, b_in_order, x_in_order);
  x.resize(b.rows(), b.cols());
  for (Eigen::Index k = 0; k < rows_; ++k) x.row(order[k]) = x_in_order.row(k);
}

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
  if (!state_->factor) throw Error("the factorization was released");
  return Eigen::Map<const Eigen::VectorXi>(state_->order.data(), rows_);
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
