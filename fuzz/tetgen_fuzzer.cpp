// libFuzzer harness: TetGen .node/.ele pairs. One input holds both files, the .node text, a
// line "%%ele%%", then the .ele text (without the marker: an empty .ele). The mesh read is
// then made a TetMesh (boundary extraction) as `modes` does.
#include <cstdint>
#include <string_view>

#include "fem/tet_mesh.hpp"
#include "fem/tetgen_files.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  constexpr std::string_view marker = "%%ele%%\n";
  const auto at = bytes.find(marker);
  const auto node = bytes.substr(0, at);
  const auto ele = at == std::string_view::npos ? std::string_view{} : bytes.substr(at + marker.size());
  mesh2dsp::fuzz::write_scratch("input.ele", ele);
  const auto path = mesh2dsp::fuzz::write_scratch("input.node", node);
  mesh2dsp::fuzz::expect_clean_outcome([&] {
    auto file = mesh2dsp::read_tet_mesh_file(path, 1.0);
    const auto tets = mesh2dsp::tet_mesh_from_elements(file.vertices, file.tets);
    mesh2dsp::check_tet_quality(tets);
  });
  return 0;
}
