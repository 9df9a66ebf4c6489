// libFuzzer harness: glTF 2.0 through tinygltf and our accessor reader. Inputs starting with
// the binary magic "glTF" are read as .glb, the rest as .gltf (JSON, embedded data: URIs).
#include <cstdint>
#include <string_view>

#include "fem/surface_mesh.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const bool binary = bytes.substr(0, 4) == "glTF";
  const auto path = mesh2dsp::fuzz::write_scratch(binary ? "input.glb" : "input.gltf", bytes);
  mesh2dsp::fuzz::expect_clean_outcome([&] {
    auto mesh = mesh2dsp::read_surface_mesh(path, 1.0);
    mesh2dsp::check_and_orient_surface(mesh);
  });
  return 0;
}
