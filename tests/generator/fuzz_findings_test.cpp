// Issue 15: regression tests for what fuzzing found in the parsers (fuzz/README.md; the inputs
// themselves are kept in fuzz/corpus/<harness>/finding-* and replayed by fuzz_replay_*). Each
// asserts the one clear message that replaced the crash, the exception or the allocation.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fem/surface_mesh.hpp"
#include "fem/tetgen_files.hpp"
#include "support/error_of.hpp"

using namespace mesh2dsp;
using mesh2dsp::test::error_of;
namespace fs = std::filesystem;

namespace {

fs::path write(const std::string& name, const std::string& bytes) {
  const fs::path dir = fs::path(testing::TempDir()) / "mesh2dsp_fuzz_findings";
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << bytes;
  return dir / name;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A fuzzer's input kept in fuzz/corpus/<harness>/, copied under the name (and extension) the
// reader needs.
fs::path corpus_input(const std::string& harness_file, const std::string& name) {
  const fs::path finding = fs::path(MESH2DSP_SOURCE_DIR) / "fuzz/corpus" / harness_file;
  EXPECT_TRUE(fs::exists(finding)) << finding;
  const fs::path copy = fs::path(testing::TempDir()) / "mesh2dsp_fuzz_findings" / name;
  fs::create_directories(copy.parent_path());
  fs::copy_file(finding, copy, fs::copy_options::overwrite_existing);
  return copy;
}

}  // namespace

// gmsh: a node count of 10^8 in a 60-byte file reserved ~2.4 GB (libFuzzer: out-of-memory,
// malloc(1207959552)) before the short read was noticed. Counts are now checked against the
// bytes left in the file first.
TEST(FuzzFindings, GmshCountsBeyondTheFileAreOneMessageNotAnAllocation) {
  const auto v41 = write("count41.msh",
                         "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 100000000 1 100000000\n"
                         "3 1 0 100000000\n1\n");
  EXPECT_TRUE(contains(error_of([&] { read_tet_mesh_file(v41); }),
                       "node count 100000000 is more than the"));
  const auto v22 = write("count22.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n2000000000\n1 0 0 0\n");
  EXPECT_TRUE(contains(error_of([&] { read_tet_mesh_file(v22); }), "bytes left in the file"));
}

// glTF: an index accessor of float type (componentType 5126) whose bytes are NaN passed the
// range check (NaN compares false) and was cast to an index (UBSan: NaN outside the range of
// unsigned long). Indices must be unsigned integers (glTF 2.0); a NaN can no longer pass.
TEST(FuzzFindings, GltfFloatIndicesAreOneMessage) {
  // The fuzzer's own input (fuzz/corpus/gltf/finding-float-nan-index): 8 float positions,
  // 18 float indices some of which are NaN.
  const fs::path glb = corpus_input("gltf/finding-float-nan-index", "float-index.glb");
  EXPECT_TRUE(contains(error_of([&] { read_surface_mesh(glb); }),
                       "component type must be an unsigned integer"));
}

// glTF: a buffer URI that resolves to a directory ("%xtrasdata:…" in the fuzzer's input, which
// tinygltf decodes to an empty name: the path left is the file's own directory) was opened and
// sized with tellg, whose -1 became a 2^63-byte resize (ASan: requested allocation size exceeds
// maximum).
// Buffers are now read from regular files only, sized by the file system.
TEST(FuzzFindings, GltfBufferUrisNamingADirectoryAreOneMessage) {
  const fs::path gltf = corpus_input("gltf/finding-buffer-uri-directory", "uri-directory.gltf");
  const std::string fuzzed = error_of([&] { read_surface_mesh(gltf); });
  EXPECT_TRUE(contains(fuzzed, "not a readable glTF 2.0 file")) << fuzzed;

  // The same by name: a buffer whose URI is a directory beside the file.
  fs::create_directories(gltf.parent_path() / "buffers.bin");
  const auto named = write("uri-named-directory.gltf",
                           R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":36,"uri":"buffers.bin"}]})");
  const std::string message = error_of([&] { read_surface_mesh(named); });
  EXPECT_TRUE(contains(message, "not a regular file")) << message;
}
