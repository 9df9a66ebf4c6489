// mesh2dsp: git-style subcommands. Built twice: `mesh2dsp-full` with every command, and
// `mesh2dsp` without the Faust runtime's, which it lists and hands over (forward_to_full.hpp).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <exception>
#include <optional>

#include "cli/commands.hpp"
#ifdef MESH2DSP_FORWARD_RUNTIME
#include "cli/forward_to_full.hpp"
#endif
#include "util/error.hpp"
#include "util/free_memory.hpp"
#include "util/progress.hpp"
#ifdef MESH2DSP_HAVE_SLEPC
#include "modal/slepc_solve.hpp"
#endif

int main(int argc, char** argv) {
  mesh2dsp::use_huge_pages_for_large_allocations();
#ifdef MESH2DSP_FORWARD_RUNTIME
  if (const auto status = mesh2dsp::forward_to_full(argc, argv)) return *status;
#endif
#ifdef MESH2DSP_HAVE_SLEPC
  mesh2dsp::register_slepc_solver();
  // Under mpirun (or with --solver slepc) MPI starts first, on every rank: rank 0 runs the
  // command, the others only join its eigen solves (modal/slepc_solve.hpp). Without either,
  // no MPI at all (its start-up costs half a second).
  std::optional<mesh2dsp::ParallelSession> session;
  if (mesh2dsp::parallel_session_wanted(argc, argv)) {
    try {
      session.emplace();
    } catch (const mesh2dsp::Error& e) {
      fmt::print(stderr, "mesh2dsp: error: {}\n", e.what());
      return 1;
    }
    if (session->rank() != 0) return mesh2dsp::serve_parallel_solves();
  }
#endif
  CLI::App app{"mesh2dsp: turn a 3D object (surface mesh + material) into modal sound code"};
  app.require_subcommand(1);
  app.fallthrough();  // -q/--quiet also after the subcommand
  app.set_version_flag("--version", "mesh2dsp " MESH2DSP_VERSION);
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet, "no progress, no notices")->configurable(false);
  app.parse_complete_callback([&] { mesh2dsp::set_quiet(quiet); });

  mesh2dsp::register_modes_command(app);
  mesh2dsp::register_bench_command(app);
#ifdef MESH2DSP_HAVE_EMIT
  mesh2dsp::register_generate_command(app);
  mesh2dsp::register_view_command(app);
#endif
#ifdef MESH2DSP_HAVE_RUNTIME
  mesh2dsp::register_render_command(app);
  mesh2dsp::register_play_command(app);
#endif
#ifdef MESH2DSP_HAVE_SOLVER
  mesh2dsp::register_reference_command(app);
#endif
#ifdef MESH2DSP_HAVE_VALIDATE
  mesh2dsp::register_validate_command(app);
  mesh2dsp::register_fit_command(app);
#endif
#ifdef MESH2DSP_FORWARD_RUNTIME
  // Listed in --help; never parsed here (forward_to_full ran first).
  for (const auto& c : mesh2dsp::kRuntimeCommands) app.add_subcommand(c.name, c.summary)->allow_extras();
#endif

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const mesh2dsp::Error& e) {
    fmt::print(stderr, "mesh2dsp: error: {}\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "mesh2dsp: error: out of memory (try a coarser mesh: --max-tet-volume)\n");
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "mesh2dsp: internal error: {}\n", e.what());
    return 70;
  }
  return 0;
}
