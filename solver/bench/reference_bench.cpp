// Seconds of compute per simulated second against mesh size (issues 5 and 12), beside
// O'Brien et al.'s Table 1. Structured steel bars (0.30 × 0.03 × 0.02 m, free) of about 300,
// 1 000, 5 000 and 20 000 tetrahedra, P1 and P2, and optionally a mesh file (e.g. a bowl
// remeshed to ~1 000 tetrahedra like O'Brien's), each linear solver, stepping at the audio rate
// (Δt = 1/48 000 s, validate's default: the warp is corrected exactly, newmark.hpp); a fixed
// number of steps is timed and scaled to one simulated second. CPU is user + system of the
// process (getrusage); "sys %" is system / user, what idle threads spinning would show.
// Usage: mesh2dsp_reference_bench [steps] [max_tets] [mesh.obj surface_edge_m order]
// MESH2DSP_BENCH_SOLVER=supernodal (or simplicial, supernodal-f32) measures that solver only.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "fem/fem_mesh.hpp"
#include "fem/material.hpp"
#include "fem/mesh_input.hpp"
#include "fem/structured_box.hpp"
#include "reference.hpp"
#include "util/error.hpp"

using namespace mesh2dsp;

namespace {

void bench(const std::string& label, const TetMesh& tets, int order, long long steps, const Material& steel) {
  const FemMesh fem = make_fem_mesh(tets, order);
  struct Variant { LinearSolverKind kind; bool single; const char* name; };
  for (const Variant& v : {Variant{LinearSolverKind::simplicial, false, "simplicial"},
                           Variant{LinearSolverKind::cholmod_supernodal, false, "supernodal"},
                           Variant{LinearSolverKind::cholmod_supernodal, true, "supernodal-f32"}}) {
    // Eigen's simplicial factor is only measured where it is competitive.
    if (v.kind == LinearSolverKind::simplicial && tets.tets.rows() > 6000) continue;
    if (const char* only = std::getenv("MESH2DSP_BENCH_SOLVER"); only && v.name != std::string(only)) continue;
    ReferenceSettings settings;
    settings.duration_s = 1;
    settings.dt_s = 1.0 / settings.sample_rate_hz;
    settings.max_steps = tets.tets.rows() > 6000 ? std::max(100LL, steps / 4) : steps;
    settings.show_progress = false;
    settings.solver = v.kind;
    settings.single_precision = v.single;
    settings.force = parse_force("cosine:0.0001", 1);
    settings.strike = parse_strike("auto", "", tets, {});
    settings.listeners_m = {default_listener(tets)};
    ReferenceResult r;
    try {
      r = render_reference(tets, fem, steel, {}, settings);
    } catch (const Error& e) {  // e.g. a float factor that diverged: say so, measure the rest
      fmt::print("{:>10} {:>7} {:>2} {:>9} {:>15}: {}\n", label, tets.tets.rows(), order, "", v.name, e.what());
      continue;
    }
    const double wall = r.integration_s / static_cast<double>(r.steps);
    const double cpu = r.integration_cpu_s / static_cast<double>(r.steps);
    const double user = r.integration_cpu_s - r.integration_system_s;
    fmt::print("{:>10} {:>7} {:>2} {:>9} {:>9.3f} {:>9.1f} {:>9.1f} {:>9.1f} {:>6.1f} {:>10.1f} {:>10.1f} {:>15} {}\n",
               label, tets.tets.rows(), order, r.free_dofs, r.factorization_s, wall * 1e6, cpu * 1e6,
               r.audio_s / r.steps * 1e6, user > 0 ? 100 * r.integration_system_s / user : 0.0,
               wall / r.dt_s, cpu / r.dt_s, v.name, r.factor_nonzeros);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const long long steps = argc > 1 ? std::atoll(argv[1]) : 2000;
  const int max_tets = argc > 2 ? std::atoi(argv[2]) : 25000;
  const Material steel = find_material_preset("steel");
  // OpenBLAS starts its worker threads when the library loads and they spin on sched_yield for
  // its thread timeout (~0.1 s) before they sleep; a render never calls threaded BLAS after that
  // (its one BLAS user, the supernodal factorization, runs serially), but the first small rows here would carry the start-up
  // spin as a second core's CPU. A real render sits behind mesh loading and meshing instead.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  fmt::print("{:>10} {:>7} {:>2} {:>9} {:>9} {:>9} {:>9} {:>9} {:>6} {:>10} {:>10} {:>15} {}\n", "mesh", "tets", "P",
             "free DOF", "factor s", "wall us", "cpu us", "audio us", "sys %", "wall s/s", "cpu s/s", "solver",
             "L nnz");
  if (argc > 5) {
    MeshInputOptions options;
    if (std::atof(argv[4]) > 0) options.surface_edge_m = std::atof(argv[4]);  // 0: the default
    const TetMesh tets = load_tet_mesh(argv[3], steel, options);
    bench("file", tets, std::atoi(argv[5]), steps, steel);
    return 0;
  }
  struct Size { int nx, ny, nz; };
  const Size sizes[] = {{10, 3, 2}, {14, 4, 3}, {28, 6, 5}, {45, 9, 8}};  // ×6 tets per cell
  for (int order : {1, 2})
    for (const auto& s : sizes) {
      const TetMesh tets = structured_box({0, 0, 0}, {0.30, 0.03, 0.02}, s.nx, s.ny, s.nz);
      if (tets.tets.rows() > max_tets) continue;
      bench("bar", tets, order, steps, steel);
    }
  return 0;
}
