// Outside the tree, through the installed package only: the modes of a mesh and the dependency-free
// C++ header of its model, as the README's library example does.
//   consumer MESH OUT.hpp   -> prints "modes N first_hz F" and writes OUT.hpp
#include <cstdio>
#include <fstream>

#include "analysis/analysis.hpp"
#include "emit/emitters.hpp"
#include "util/error.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: consumer MESH OUT.hpp\n");
    return 2;
  }
  try {
    mesh2dsp::AnalysisOptions options;
    options.input = argv[1];
    options.material_name = "steel";
    options.modes = 6;
    const mesh2dsp::ModalModel model = mesh2dsp::analyze(options);
    std::ofstream(argv[2]) << mesh2dsp::emit_c_header(model, {});
    std::printf("modes %zu first_hz %.1f\n", model.modes.size(),
                model.modes.empty() ? 0.0 : model.modes.front().frequency_hz);
  } catch (const mesh2dsp::Error& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
  return 0;
}
