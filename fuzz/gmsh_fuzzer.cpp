// libFuzzer harness: Gmsh .msh (2.2 and 4.1, ASCII and binary), then made a TetMesh as
// `modes` does.
#include <cstdint>
#include <string_view>

#include "fem/tet_mesh.hpp"
#include "fem/tetgen_files.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto path = mesh2dsp::fuzz::write_scratch("input.msh", bytes);
  mesh2dsp::fuzz::expect_clean_outcome([&] {
    auto file = mesh2dsp::read_tet_mesh_file(path, 1.0);
    const auto tets = mesh2dsp::tet_mesh_from_elements(file.vertices, file.tets);
    mesh2dsp::check_tet_quality(tets);
  });
  return 0;
}
