#include "modal/memory_estimate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include "util/error.hpp"

namespace mesh2dsp {
namespace {

// Rates measured on the 2-core development machine (bench --json, which records each term
// beside what it predicts), on solves of 50 modes: P2 on a scanned cow (93 573 DOF), a statue
// (153 669), a CAD bracket (53 262), a trefoil tube (54 729) and a low-poly wheel (13 287); P3 on
// a CAD bell (152 775) and a sword scan (254 997); the cow at 300 modes (125 928 DOF, 912
// vectors). Refitted 2026-12-04 after CHOLMOD's own OpenMP teams were kept to one thread in the
// factorization (before, an idle machine ran them beside OpenBLAS's threads, 2-3x slower).
// - Factorization (supernodal, OpenBLAS on every core): 5.8e10 flop/s on large factors, plus
//   0.06 µs per stored entry of the matrix, which dominates below a few 1e10 flops.
// - Triangular solves, block of 8, both cores: 4.4e10 flop/s at 4 flops per factor entry per
//   vector.
// - M products: 0.4 per Lanczos vector (three or four per block step), each 0.67 ns per stored
//   entry.
// - The rest of the iteration (block steps, reorthogonalisation, Ritz checks): 1.8e-8 s × n × m
//   (n DOF, m basis vectors) plus 0.87e-10 s × n × m² for the passes over the whole basis; the
//   Ritz vectors 3.4e10 flop/s.
// Estimate over measured factorization + iterations, 2026-12-04: cow 0.97, statue 1.06, bracket
// 0.78, tube 1.22, wheel 0.63 (0.44 s), bell 1.01, sword 1.31 (its basis: 168 vectors against
// the 224 expected), cow at 300 modes 1.10 (the former rates, refitted on 2026-12-02 to runs
// with the slower factorization: 1.13-2.57).
constexpr double kFactorFlopsPerS = 5.8e10;
constexpr double kFactorPerNonzeroS = 6.0e-8;
constexpr double kSolveFlopsPerS = 4.4e10;
constexpr double kMassProductsPerVector = 0.4;
constexpr double kMassProductPerNonzeroS = 0.67e-9;
constexpr double kIterationPerDofVectorS = 1.8e-8;
constexpr double kReorthogonalisationPerNm2S = 0.87e-10;
constexpr double kRitzVectorFlopsPerS = 3.4e10;

}  // namespace

int expected_basis_columns(int modes, int block_size, int dof) {
  return std::min(dof, 3 * modes + 4 * block_size);
}

SolveEstimate estimate_eigen_solve(int dof, double nonzeros_lower, const FactorSize& factor,
                                   int modes, int block_size) {
  SolveEstimate e;
  e.dof = dof;
  e.modes = modes;
  e.basis_columns = expected_basis_columns(modes, block_size, dof);
  const double n = dof, m = e.basis_columns;
  // M, K − σM (formed in K's storage) and CHOLMOD's permuted copy of it while the factor is
  // made: a double and an int per entry, plus the column pointers.
  e.matrices_bytes = 3 * (12 * nonzeros_lower + 4 * n);
  e.factor_bytes = factor.bytes();
  // Basis V (M·V is not stored), the projected matrix and its eigenvectors, the blocks being
  // solved and orthogonalised with their M products, the returned shapes (twice: the solution
  // and the analysis result over all nodes).
  e.basis_bytes = 8 * n * (m + 8 * block_size) + 3 * 8 * m * m + 2 * 8 * n * modes;
  e.nonzeros_lower = nonzeros_lower;
  e.factor_entries = factor.entries;
  e.factor_flops = factor.flops;
  e.factor_s = kFactorPerNonzeroS * nonzeros_lower + factor.flops / kFactorFlopsPerS;
  // The basis a solid needs is about the memory bound above (the wheel and the statue-like
  // blob: 968 vectors for 314 modes); thin and slender objects need less (the bell: 240 for 64,
  // about 700 for 314), where the estimate errs long.
  e.solve_s = m * 4 * factor.entries / kSolveFlopsPerS;
  e.mass_s = kMassProductsPerVector * m * nonzeros_lower * kMassProductPerNonzeroS;
  e.orthogonalisation_s = kIterationPerDofVectorS * n * m + kReorthogonalisationPerNm2S * n * m * m;
  e.ritz_s = 2 * n * m * modes / kRitzVectorFlopsPerS;
  e.iteration_s = e.solve_s + e.mass_s + e.orthogonalisation_s + e.ritz_s;
  return e;
}

double available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  double value = 0;
  while (in >> key >> value) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return value * 1024;  // reported in kB
  }
  return 0;
}

double parse_memory_size(const std::string& text) {
  std::istringstream in(text);
  double value = 0;
  std::string suffix;
  if (!(in >> value) || !std::isfinite(value) || value <= 0)
    throw Error(fmt::format("cannot read the memory size \"{}\": expected e.g. 2G, 500M or a number of bytes", text));
  in >> suffix;
  std::string rest;
  if (in >> rest)
    throw Error(fmt::format("cannot read the memory size \"{}\": expected e.g. 2G, 500M or a number of bytes", text));
  std::transform(suffix.begin(), suffix.end(), suffix.begin(), [](unsigned char c) { return std::toupper(c); });
  if (suffix.ends_with("IB")) suffix.erase(suffix.size() - 2);
  else if (suffix.size() > 1 && suffix.ends_with("B")) suffix.pop_back();
  double factor = 0;
  if (suffix.empty() || suffix == "B") factor = 1;
  else if (suffix == "K") factor = 1024;
  else if (suffix == "M") factor = 1024.0 * 1024;
  else if (suffix == "G") factor = 1024.0 * 1024 * 1024;
  else if (suffix == "T") factor = 1024.0 * 1024 * 1024 * 1024;
  else
    throw Error(fmt::format("cannot read the memory size \"{}\": the unit must be K, M, G or T", text));
  return value * factor;
}

std::string format_bytes(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.1f} GB", bytes / 1e9);
  if (bytes < 1e6) return fmt::format("{:.0f} kB", std::ceil(bytes / 1e3));  // small limits
  return fmt::format("{:.0f} MB", std::ceil(bytes / 1e6));
}

void check_memory(const SolveEstimate& e, double limit_bytes) {
  const bool given = limit_bytes > 0;
  const double limit = given ? limit_bytes : available_memory_bytes();
  if (limit <= 0 || e.peak_bytes() <= limit) return;
  throw Error(fmt::format(
      "the eigen solve needs about {} ({} DOF: factor {}, matrices {}, {} modes {}) but {} {}: "
      "ask for fewer modes (--modes), lower --fmax, use --element-order 1 or a larger "
      "--max-tet-volume, or run on a machine with more memory",
      format_bytes(e.peak_bytes()), e.dof, format_bytes(e.factor_bytes),
      format_bytes(e.matrices_bytes), e.modes, format_bytes(e.basis_bytes),
      given ? "--max-memory allows" : "only", given ? format_bytes(limit) : format_bytes(limit) + " is available"));
}

}  // namespace mesh2dsp
