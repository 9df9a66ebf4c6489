// libFuzzer harness: surface mesh files (OBJ, STL, OFF, PLY; MESH2DSP_FUZZ_EXT picks which
// reader, as the extension does for a user) read and then checked, as `modes` does.
#include <cstdint>
#include <string_view>

#include "fem/surface_mesh.hpp"
#include "fuzz_support.hpp"

#ifndef MESH2DSP_FUZZ_EXT
#error "define MESH2DSP_FUZZ_EXT, e.g. \".obj\""
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto path = mesh2dsp::fuzz::write_scratch(std::string("input") + MESH2DSP_FUZZ_EXT, bytes);
  mesh2dsp::fuzz::expect_clean_outcome([&] {
    auto mesh = mesh2dsp::read_surface_mesh(path, 1.0);
    mesh2dsp::check_and_orient_surface(mesh);
  });
  return 0;
}
