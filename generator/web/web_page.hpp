#pragma once
// The offline browser page of `mesh2dsp view` and `generate --web`: a static folder that shows
// the object and its modes, strikes it anywhere and plays the emitted Faust compiled in the
// browser (faustwasm). Everything the page needs is in the folder: no network at load.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "emit/emitters.hpp"
#include "modal/modal_model.hpp"

namespace mesh2dsp {

// Where the built JavaScript (web/build.mjs: index.html, app.js, faust.js) lies; throws
// mesh2dsp::Error with what to run when it was not built.
std::filesystem::path web_assets_dir();

struct WebPage {
  std::filesystem::path index;   // DIR/index.html
  std::uintmax_t bytes = 0;      // the folder's size
  std::string surface_dsp;       // file name of the strike-anywhere program in DIR
};

// Writes into `dir` (created): index.html, app.js, faust.js, data.js (the model, its surface
// data, the programs' text), <name>.modal.json with <name>.surface.bin, <name>.dsp (the
// instrument as `generate --faust` writes it) and <name>_surface.dsp (the same emitter with
// every surface vertex an excitation point and the surface triangles as contact triangles:
// what the page plays). Each file is written atomically, index.html last. Throws
// mesh2dsp::Error when the model has no surface data.
WebPage write_web_page(const ModalModel& model, const std::filesystem::path& dir,
                       const EmitSettings& settings);

// Serves `dir` on 127.0.0.1:port (0: any free port) until interrupted; calls `on_listening`
// with the URL once the socket listens. GET only, files inside `dir` only.
void serve_directory(const std::filesystem::path& dir, int port,
                     const std::function<void(const std::string&)>& on_listening);

}  // namespace mesh2dsp
