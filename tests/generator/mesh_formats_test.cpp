// Issue 10, items 5-7: units, the formats users have (glTF, PLY strips, Gmsh, upper-case
// extensions, several shells) and --repair. Every mesh is made here; the same object in two
// formats must give the same modes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <Eigen/Geometry>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fem/gmsh_input.hpp"
#include "fem/mesh_bodies.hpp"
#include "fem/mesh_units.hpp"
#include "fem/structured_box.hpp"
#include "fem/surface_mesh.hpp"
#include "fem/surface_repair.hpp"
#include "fem/tetgen_files.hpp"
#include "modal/modal_model.hpp"
#include "support/command.hpp"
#include "support/error_of.hpp"
#include "util/error.hpp"

using namespace mesh2dsp;
namespace fs = std::filesystem;

namespace {

class MeshFormats : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("mesh2dsp-formats-" +
           std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
           std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string at(const std::string& name) const { return (dir / name).string(); }
  fs::path dir;
};

test::CommandRun run(const std::string& args) {
  return test::run_command(std::string(MESH2DSP_BIN) + " " + args);
}

// `modes` with a small, fast analysis; the frequencies, or empty with a test failure.
std::vector<double> modes_of(const std::string& mesh, const std::string& out_json,
                             const std::string& extra = "", std::string* output = nullptr) {
  const auto r = run("modes " + mesh + " --material plastic --max-tet-volume 4e-6 --element-order 1 --modes 5 --keep-surface " + extra +
                     " -o " + out_json);
  if (output) *output = r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  if (r.exit_code != 0) return {};
  std::vector<double> f;
  for (const auto& m : read_modal_model(out_json).modes) f.push_back(m.frequency_hz);
  return f;
}

// The volume bound keeps every surface triangle within 4 element edges, so TetGen keeps the
// surface as it is (-Y) and the mesh does not depend on the vertex order of the file.
// Identical meshes agree to the eigen solver's round-off (~1e-11), not bit for bit.
void expect_same_modes(const std::vector<double>& a, const std::vector<double>& b, double tol,
                       const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  ASSERT_FALSE(a.empty()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i] / b[i], 1.0, tol) << what << " mode " << i;
}

using test::error_of;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ---------------------------------------------------------------------------------------------
// A box as quads (a, b, c, d), counter-clockwise seen from outside; corner i = (x, y, z) bits.
using Triangle = std::array<Eigen::Vector3d, 3>;
constexpr int kQuads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                              {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};

Eigen::Vector3d corner(const Eigen::Vector3d& origin, const Eigen::Vector3d& size, int i) {
  return origin + Eigen::Vector3d((i & 1) ? size.x() : 0, (i & 2) ? size.y() : 0, (i & 4) ? size.z() : 0);
}

// Triangles (a, b, c), (a, c, d) of each quad; `skip_quad` leaves one out (a hole).
std::vector<Triangle> box_triangles(const Eigen::Vector3d& origin, const Eigen::Vector3d& size,
                                    int skip_quad = -1) {
  std::vector<Triangle> t;
  for (int q = 0; q < 6; ++q) {
    if (q == skip_quad) continue;
    const auto* c = kQuads[q];
    t.push_back({corner(origin, size, c[0]), corner(origin, size, c[1]), corner(origin, size, c[2])});
    t.push_back({corner(origin, size, c[0]), corner(origin, size, c[2]), corner(origin, size, c[3])});
  }
  return t;
}

// An OBJ of the triangles, equal positions shared, vertices in order of first appearance.
void write_obj(const fs::path& path, const std::vector<Triangle>& tris) {
  std::vector<Eigen::Vector3d> verts;
  std::string faces;
  for (const auto& t : tris) {
    faces += "f";
    for (const auto& p : t) {
      std::size_t i = 0;
      while (i < verts.size() && verts[i] != p) ++i;
      if (i == verts.size()) verts.push_back(p);
      faces += " " + std::to_string(i + 1);
    }
    faces += "\n";
  }
  std::ofstream out(path);
  out.precision(17);
  for (const auto& v : verts) out << "v " << v.x() << " " << v.y() << " " << v.z() << "\n";
  out << faces;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// ---------------------------------------------------------------------------------------------
// glTF

std::string base64(const std::string& bytes) {
  static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const unsigned b0 = static_cast<unsigned char>(bytes[i]);
    const unsigned b1 = i + 1 < bytes.size() ? static_cast<unsigned char>(bytes[i + 1]) : 0;
    const unsigned b2 = i + 2 < bytes.size() ? static_cast<unsigned char>(bytes[i + 2]) : 0;
    const unsigned n = b0 << 16 | b1 << 8 | b2;
    out += table[n >> 18 & 63];
    out += table[n >> 12 & 63];
    out += i + 1 < bytes.size() ? table[n >> 6 & 63] : '=';
    out += i + 2 < bytes.size() ? table[n & 63] : '=';
  }
  return out;
}

template <class T>
void append(std::string& s, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  s.append(b, sizeof(T));
}

// A box exported the way modelling tools do: 24 vertices (split at every crease), four quads as
// indexed TRIANGLES, one as a TRIANGLE_STRIP, one as a TRIANGLE_FAN, under two nodes (a 90°
// rotation about z over a scale-and-translate). Returns the glTF JSON and its binary buffer;
// `drawn` receives the triangles the file draws, in world coordinates and drawing order.
std::pair<std::string, std::string> box_gltf(const std::string& buffer_uri,
                                             std::vector<Triangle>& drawn) {
  const Eigen::Vector3d origin(0, 0, 0), size(0.05, 0.03, 0.02);  // buffer units (scaled ×2 below)
  std::string bin;
  std::vector<Eigen::Vector3d> q;  // float-rounded buffer positions
  for (int quad = 0; quad < 6; ++quad) {
    const auto* c = kQuads[quad];
    // Strip order b, c, a, d draws (b, c, a) and (a, c, d): the same two triangles.
    const int order[4] = {quad == 4 ? c[1] : c[0], quad == 4 ? c[2] : c[1], quad == 4 ? c[0] : c[2], c[3]};
    for (const int i : order) {
      const Eigen::Vector3d p = corner(origin, size, i);
      Eigen::Vector3d pf;
      for (int k = 0; k < 3; ++k) {
        const float x = static_cast<float>(p[k]);
        append(bin, x);
        pf[k] = x;
      }
      q.push_back(pf);
    }
  }
  std::vector<std::uint16_t> indices;
  for (std::uint16_t quad = 0; quad < 4; ++quad)
    for (const int k : {0, 1, 2, 0, 2, 3}) indices.push_back(static_cast<std::uint16_t>(4 * quad + k));
  for (const auto i : indices) append(bin, i);

  const Eigen::Affine3d world = Eigen::Affine3d(Eigen::AngleAxisd(M_PI / 2, Eigen::Vector3d::UnitZ())) *
                                Eigen::Translation3d(0.25, 0, 0) * Eigen::Scaling(2.0);
  auto w = [&](int v) { return Eigen::Vector3d(world * q[static_cast<std::size_t>(v)]); };
  drawn.clear();
  for (std::size_t t = 0; t < indices.size(); t += 3)
    drawn.push_back({w(indices[t]), w(indices[t + 1]), w(indices[t + 2])});
  drawn.push_back({w(16), w(17), w(18)});  // strip: (s0, s1, s2), (s2, s1, s3)
  drawn.push_back({w(18), w(17), w(19)});
  drawn.push_back({w(20), w(21), w(22)});  // fan: (f0, f1, f2), (f0, f2, f3)
  drawn.push_back({w(20), w(22), w(23)});

  const std::string json = R"({"asset":{"version":"2.0","generator":"mesh2dsp test"},
  "scene":0,"scenes":[{"nodes":[0]}],
  "nodes":[{"rotation":[0,0,0.7071067811865476,0.7071067811865476],"children":[1]},
           {"translation":[0.25,0,0],"scale":[2,2,2],"mesh":0}],
  "meshes":[{"primitives":[
     {"attributes":{"POSITION":0},"indices":3,"mode":4},
     {"attributes":{"POSITION":1},"mode":5},
     {"attributes":{"POSITION":2},"mode":6}]}],
  "accessors":[
     {"bufferView":0,"byteOffset":0,"componentType":5126,"count":16,"type":"VEC3","min":[0,0,0],"max":[0.05,0.03,0.02]},
     {"bufferView":0,"byteOffset":192,"componentType":5126,"count":4,"type":"VEC3","min":[0,0,0],"max":[0.05,0.03,0.02]},
     {"bufferView":0,"byteOffset":240,"componentType":5126,"count":4,"type":"VEC3","min":[0,0,0],"max":[0.05,0.03,0.02]},
     {"bufferView":1,"componentType":5123,"count":24,"type":"SCALAR"}],
  "bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":288},{"buffer":0,"byteOffset":288,"byteLength":48}],
  "buffers":[{"byteLength":336)" +
                           (buffer_uri.empty() ? std::string() : ",\"uri\":\"" + buffer_uri + "\"") +
                           "}]}";
  return {json, bin};
}

std::string glb(std::string json, std::string bin) {
  while (json.size() % 4) json += ' ';
  while (bin.size() % 4) bin += '\0';
  std::string out = "glTF";
  append(out, std::uint32_t{2});
  append(out, static_cast<std::uint32_t>(12 + 8 + json.size() + 8 + bin.size()));
  append(out, static_cast<std::uint32_t>(json.size()));
  append(out, std::uint32_t{0x4E4F534A});  // JSON
  out += json;
  append(out, static_cast<std::uint32_t>(bin.size()));
  append(out, std::uint32_t{0x004E4942});  // BIN
  out += bin;
  return out;
}

}  // namespace

TEST_F(MeshFormats, GltfAndGlbGiveTheSameMeshAndModesAsObj) {
  std::vector<Triangle> drawn;
  const auto [json_base, bin] = box_gltf("", drawn);
  const auto [json, unused] =
      box_gltf("data:application/octet-stream;base64," + base64(bin), drawn);
  write_text(dir / "box.gltf", json);
  write_text(dir / "box.glb", glb(json_base, bin));
  write_obj(dir / "box.obj", drawn);

  const auto obj = read_checked_surface_mesh(dir / "box.obj");
  for (const char* name : {"box.gltf", "box.glb"}) {
    const auto m = read_checked_surface_mesh(dir / name);
    ASSERT_EQ(m.vertices.rows(), 8) << name << ": the 24 split vertices merge into the 8 corners";
    ASSERT_EQ(m.faces, obj.faces) << name;
    EXPECT_LT((m.vertices - obj.vertices).cwiseAbs().maxCoeff(), 1e-15) << name;
  }
  // The node transforms are applied: (x, y, z) -> (-2y, 2x + 0.25, 2z) (rotation after
  // scale-then-translate).
  EXPECT_NEAR(obj.vertices.col(0).minCoeff(), -0.06, 1e-7);
  EXPECT_NEAR(obj.vertices.col(1).minCoeff(), 0.25, 1e-7);
  EXPECT_NEAR(obj.vertices.col(2).maxCoeff(), 0.04, 1e-7);

  // An external buffer file next to the .gltf, and a mirroring node (scale -1): the faces must
  // still point outwards, with no "inside out" notice.
  write_text(dir / "box.bin", bin);
  std::string external = box_gltf("box.bin", drawn).first;
  write_text(dir / "external.gltf", external);
  EXPECT_EQ(read_checked_surface_mesh(dir / "external.gltf").faces, obj.faces);
  external.replace(external.find("\"scale\":[2,2,2]"), 15, "\"scale\":[-2,2,2]");
  write_text(dir / "mirrored.gltf", external);
  testing::internal::CaptureStderr();
  const auto mirrored = read_checked_surface_mesh(dir / "mirrored.gltf");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_NEAR(signed_volume(mirrored), signed_volume(obj), 1e-12);

  const auto reference = modes_of(at("box.obj"), at("obj.json"));
  expect_same_modes(modes_of(at("box.gltf"), at("gltf.json")), reference, 1e-8, "gltf");
  expect_same_modes(modes_of(at("box.glb"), at("glb.json")), reference, 1e-8, "glb");
}

TEST_F(MeshFormats, BrokenGltfIsOneClearError) {
  write_text(dir / "bad.gltf", "{\"asset\":{\"version\":\"2.0\"},\"meshes\":[");
  EXPECT_TRUE(contains(error_of([&] { read_surface_mesh(dir / "bad.gltf"); }), "bad.gltf"));
  // A buffer shorter than its views: refused, never read past its end.
  std::vector<Triangle> drawn;
  std::string j =
      box_gltf("data:application/octet-stream;base64," + base64(std::string(100, '\0')), drawn).first;
  j.replace(j.find("\"byteLength\":336"), 16, "\"byteLength\":100");
  write_text(dir / "short.gltf", j);
  const auto r = run("modes " + at("short.gltf") + " -o " + at("x.json"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.output, "short.gltf")) << r.output;
  EXPECT_FALSE(fs::exists(at("x.json")));
}

// ---------------------------------------------------------------------------------------------
// Units

TEST_F(MeshFormats, MillimetreMeshGetsTheUnitsNoticeAndUnitsMmEqualsScale) {
  // A 100 × 60 × 40 mm box written in millimetres: read as metres it is 123 m across.
  write_obj(dir / "box_mm.obj", box_triangles({0, 0, 0}, {100, 60, 40}));
  testing::internal::CaptureStderr();
  read_checked_surface_mesh(dir / "box_mm.obj");
  const std::string notice = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(notice, "--units mm")) << notice;
  EXPECT_TRUE(contains(notice, "--scale 0.001")) << notice;

  // What a user of the CLI sees (a coarse analysis of the 123 m box: only the notice matters).
  const auto as_metres = run("modes " + at("box_mm.obj") +
                             " --material plastic --max-tet-volume 1000 --element-order 1 --modes 2 "
                             "--fmin 0.01 -o " + at("m.json"));
  EXPECT_TRUE(contains(as_metres.output, "123 m across")) << as_metres.output;
  EXPECT_TRUE(contains(as_metres.output, "--units mm")) << as_metres.output;

  std::string with_units, with_scale;
  const auto a = modes_of(at("box_mm.obj"), at("units.json"), "--units mm", &with_units);
  const auto b = modes_of(at("box_mm.obj"), at("scale.json"), "--scale 0.001", &with_scale);
  expect_same_modes(a, b, 1e-8, "--units mm vs --scale 0.001");
  EXPECT_FALSE(contains(with_units, "implausible")) << with_units;
  EXPECT_DOUBLE_EQ(read_modal_model(at("units.json")).mesh.scale, 0.001);

  // Both given: fine when they agree, refused when not.
  EXPECT_EQ(run("modes " + at("box_mm.obj") + " --units mm --scale 0.001 --material plastic --max-tet-volume 2e-6 --element-order 1 --modes 2 -o " + at("c.json")).exit_code, 0);
  const auto r = run("modes " + at("box_mm.obj") + " --units cm --scale 0.001 -o " + at("d.json"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.output, "--units cm")) << r.output;
  EXPECT_FALSE(fs::exists(at("d.json")));
  EXPECT_NE(run("modes " + at("box_mm.obj") + " --units furlong -o " + at("e.json")).exit_code, 0);
}

TEST(MeshUnits, SuggestionsFollowTheSize) {
  EXPECT_EQ(implausible_size_message(0.3, 1.0), "");
  EXPECT_EQ(implausible_size_message(15.0, 1.0), "");  // a large bell is fine
  EXPECT_TRUE(contains(implausible_size_message(164.0, 1.0), "--units mm"));   // a fork in mm
  EXPECT_TRUE(contains(implausible_size_message(45.0, 1.0), "--units cm"));    // a 45 cm object in cm
  EXPECT_TRUE(contains(implausible_size_message(3e-4, 0.001), "--units m"));   // metres read as mm
  EXPECT_TRUE(contains(implausible_size_message(1e9, 1.0), "--scale 1e-10"));  // no unit fits
  EXPECT_EQ(unit_scale("in"), 0.0254);
  EXPECT_FALSE(unit_scale("ft").has_value());
}

// ---------------------------------------------------------------------------------------------
// PLY triangle strips, upper-case extensions

TEST_F(MeshFormats, PlyTriangleStripsReadLikeFaces) {
  const Eigen::Vector3d size(0.1, 0.06, 0.04);
  write_obj(dir / "box.obj", box_triangles({0, 0, 0}, size));
  // The eight corners in file order, six strips (b, c, a, d) joined by -1 restarts; one strip
  // also carries a degenerate join triangle (repeated vertex), which is skipped.
  std::string ascii = "ply\nformat ascii 1.0\nelement vertex 8\nproperty float x\nproperty float y\n"
                      "property float z\nelement tristrips 1\nproperty list int int vertex_indices\nend_header\n";
  std::string binary = "ply\nformat binary_little_endian 1.0\nelement vertex 8\nproperty double x\n"
                       "property double y\nproperty double z\nelement tristrips 1\n"
                       "property list uchar int vertex_indices\nend_header\n";
  std::vector<int> strip;
  for (int q = 0; q < 6; ++q) {
    const auto* c = kQuads[q];
    if (q) strip.push_back(-1);
    for (const int i : {c[1], c[2], c[0], c[3]}) strip.push_back(i);
    if (q == 2) {  // a degenerate join: d repeated, then continue with nothing new
      strip.push_back(c[3]);
    }
  }
  std::string verts_ascii;
  for (int i = 0; i < 8; ++i) {
    const auto p = corner({0, 0, 0}, size, i);
    verts_ascii += std::to_string(p.x()) + " " + std::to_string(p.y()) + " " + std::to_string(p.z()) + "\n";
    for (int k = 0; k < 3; ++k) append(binary, p[k]);
  }
  ascii += verts_ascii + std::to_string(strip.size());
  for (const int s : strip) ascii += " " + std::to_string(s);
  ascii += "\n";
  binary += std::string(1, static_cast<char>(strip.size()));
  for (const int s : strip) append(binary, static_cast<std::int32_t>(s));
  write_text(dir / "strips_ascii.ply", ascii);
  write_text(dir / "strips_binary.ply", binary);

  const auto obj = read_checked_surface_mesh(dir / "box.obj");
  for (const char* name : {"strips_ascii.ply", "strips_binary.ply"}) {
    const auto m = read_checked_surface_mesh(dir / name);
    EXPECT_EQ(m.faces.rows(), 12) << name;
    EXPECT_NEAR(signed_volume(m), 0.1 * 0.06 * 0.04, 1e-12) << name;
  }
  const auto reference = modes_of(at("box.obj"), at("obj.json"));
  const auto strips = modes_of(at("strips_binary.ply"), at("ply.json"));
  // Same surface, other vertex numbering and triangle order: TetGen may place its interior
  // points differently, so agreement is to discretization level, not bit for bit.
  expect_same_modes(strips, reference, 0.02, "tristrips");
}

TEST_F(MeshFormats, UpperCaseExtensionsAreRead) {
  write_obj(dir / "box.obj", box_triangles({0, 0, 0}, {0.1, 0.06, 0.04}));
  fs::copy_file(dir / "box.obj", dir / "BOX.OBJ");
  const auto reference = modes_of(at("box.obj"), at("a.json"));
  expect_same_modes(modes_of(at("BOX.OBJ"), at("b.json")), reference, 1e-8, ".OBJ");
  const auto tets = structured_box({0, 0, 0}, {0.1, 0.06, 0.04}, 2, 2, 1);
  write_tetgen_files(tets, dir / "T");
  fs::rename(dir / "T.node", dir / "T.NODE");
  fs::rename(dir / "T.ele", dir / "T.ELE");
  EXPECT_EQ(read_tet_mesh_file(dir / "T.ELE").tets.rows(), tets.tets.rows());
}

// ---------------------------------------------------------------------------------------------
// Gmsh

namespace {

// v22_binary_meshio: binary 2.2 as meshio writes it (some versions): no newline between the
// endianness marker and $EndMeshFormat nor between any section's binary data and its $End line,
// and a binary $NodeData section. v41_binary_tight: the same missing newlines in format 4.1.
enum class Msh { v22_ascii, v22_binary, v22_binary_meshio, v41_ascii, v41_binary, v41_binary_tight, v41_ascii_tet10 };

// The tet mesh as a .msh file; node tags 100, 103, 106, ... (Gmsh does not promise 1..n), a
// point element and the boundary triangles alongside the tetrahedra (all to be ignored).
void write_msh(const fs::path& path, const TetMesh& m, Msh kind) {
  const auto tag = [](Eigen::Index i) -> long long { return 100 + 3 * static_cast<long long>(i); };
  const bool tight = kind == Msh::v22_binary_meshio || kind == Msh::v41_binary_tight;
  const bool binary = kind == Msh::v22_binary || kind == Msh::v41_binary || tight;
  const bool v4 = kind != Msh::v22_ascii && kind != Msh::v22_binary && kind != Msh::v22_binary_meshio;
  const std::string data_end = binary && !tight ? "\n" : "";  // between binary data and $End...
  const bool tet10 = kind == Msh::v41_ascii_tet10;
  // 10-node elements: the six edge midpoints as extra nodes after the corners.
  Eigen::MatrixXd nodes = m.vertices;
  std::vector<std::vector<long long>> tets;
  for (Eigen::Index t = 0; t < m.tets.rows(); ++t) {
    std::vector<long long> e;
    for (int k = 0; k < 4; ++k) e.push_back(tag(m.tets(t, k)));
    if (tet10)
      for (const auto& [a, b] : {std::pair{0, 1}, {1, 2}, {0, 2}, {0, 3}, {2, 3}, {1, 3}}) {
        nodes.conservativeResize(nodes.rows() + 1, 3);
        nodes.row(nodes.rows() - 1) = 0.5 * (m.vertices.row(m.tets(t, a)) + m.vertices.row(m.tets(t, b)));
        e.push_back(tag(nodes.rows() - 1));
      }
    tets.push_back(e);
  }
  const long long nn = nodes.rows(), nt = static_cast<long long>(tets.size()), ns = m.surface_faces.rows();
  const int tet_type = tet10 ? 11 : 4;
  std::string s = std::string("$MeshFormat\n") + (v4 ? "4.1" : "2.2") + (binary ? " 1 8\n" : " 0 8\n");
  if (binary) {
    append(s, std::int32_t{1});
    s += data_end;
  }
  s += "$EndMeshFormat\n$PhysicalNames\n1\n3 1 \"body\"\n$EndPhysicalNames\n";
  auto num = [&](auto v, bool size_t_in_v4 = true) {
    if (!binary) {
      s += std::to_string(v) + " ";
    } else if (v4 && size_t_in_v4) {
      append(s, static_cast<std::uint64_t>(v));
    } else {
      append(s, static_cast<std::int32_t>(v));
    }
  };
  auto real = [&](double x) {
    if (binary) {
      append(s, x);
    } else {
      char b[32];
      std::snprintf(b, sizeof b, "%.17g ", x);
      s += b;
    }
  };
  auto eol = [&] {
    if (!binary) s += "\n";
  };
  if (!v4) {
    s += "$Nodes\n" + std::to_string(nn) + "\n";
    for (Eigen::Index i = 0; i < nn; ++i) {
      num(tag(i));
      for (int k = 0; k < 3; ++k) real(nodes(i, k));
      eol();
    }
    s += data_end + std::string("$EndNodes\n$Elements\n") + std::to_string(1 + ns + nt) + "\n";
    if (binary) {
      for (const int h : {15, 1, 2}) num(h);
      for (const long long v : {1ll, 7ll, 7ll, tag(0)}) num(v);
      for (const long long h : {2ll, ns, 2ll}) num(h);
      for (long long f = 0; f < ns; ++f) {
        for (const long long v : {2 + f, 1ll, 1ll}) num(v);
        for (int k = 0; k < 3; ++k) num(tag(m.surface_faces(f, k)));
      }
      for (const long long h : {4ll, nt, 2ll}) num(h);
      for (long long t = 0; t < nt; ++t) {
        for (const long long v : {2 + ns + t, 1ll, 1ll}) num(v);
        for (const long long n : tets[static_cast<std::size_t>(t)]) num(n);
      }
      s += data_end;
    } else {
      s += "1 15 2 7 7 " + std::to_string(tag(0)) + "\n";
      for (Eigen::Index f = 0; f < ns; ++f) {
        s += std::to_string(2 + f) + " 2 2 1 1";
        for (int k = 0; k < 3; ++k) s += " " + std::to_string(tag(m.surface_faces(f, k)));
        s += "\n";
      }
      for (long long t = 0; t < nt; ++t) {
        s += std::to_string(2 + ns + t) + " " + std::to_string(tet_type) + " 2 1 1";
        for (const long long n : tets[static_cast<std::size_t>(t)]) s += " " + std::to_string(n);
        s += "\n";
      }
    }
    s += "$EndElements\n";
    if (tight) {  // one value per node, as meshio writes point data
      s += "$NodeData\n1\n\"temperature\"\n1\n0.0\n3\n0\n1\n" + std::to_string(nn) + "\n";
      for (Eigen::Index i = 0; i < nn; ++i) num(tag(i)), real(20.0);
      s += "$EndNodeData\n";
    }
  } else {
    if (!binary) s += "$Entities\n0 0 0 1\n1 0 0 0 1 1 1 1 1 0\n$EndEntities\n";
    s += "$Nodes\n";
    num(1), num(nn), num(tag(0)), num(tag(nn - 1)), eol();
    num(3, false), num(1, false), num(0, false), num(nn), eol();
    for (Eigen::Index i = 0; i < nn; ++i) num(tag(i)), eol();
    for (Eigen::Index i = 0; i < nn; ++i) {
      for (int k = 0; k < 3; ++k) real(nodes(i, k));
      eol();
    }
    s += data_end + std::string("$EndNodes\n$Elements\n");
    num(2), num(ns + nt), num(1), num(ns + nt), eol();
    num(2, false), num(1, false), num(2, false), num(ns), eol();
    for (Eigen::Index f = 0; f < ns; ++f) {
      num(1 + f);
      for (int k = 0; k < 3; ++k) num(tag(m.surface_faces(f, k)));
      eol();
    }
    num(3, false), num(1, false), num(tet_type, false), num(nt), eol();
    for (long long t = 0; t < nt; ++t) {
      num(1 + ns + t);
      for (const long long n : tets[static_cast<std::size_t>(t)]) num(n);
      eol();
    }
    s += data_end + std::string("$EndElements\n");
  }
  write_text(path, s);
}

}  // namespace

TEST_F(MeshFormats, GmshFilesGiveTheSameMeshAndModesAsTetgenFiles) {
  const auto box = structured_box({0, 0, 0}, {0.1, 0.06, 0.04}, 3, 2, 2);
  write_tetgen_files(box, dir / "box");
  const auto reference_mesh = read_tetgen_mesh(dir / "box.node");
  const auto reference = modes_of(at("box.node"), at("tetgen.json"));
  const std::pair<Msh, const char*> kinds[] = {{Msh::v22_ascii, "v22a.msh"},
                                               {Msh::v22_binary, "v22b.msh"},
                                               {Msh::v22_binary_meshio, "v22b_meshio.msh"},
                                               {Msh::v41_ascii, "v41a.msh"},
                                               {Msh::v41_binary, "v41b.msh"},
                                               {Msh::v41_binary_tight, "v41b_tight.msh"},
                                               {Msh::v41_ascii_tet10, "v41a_tet10.msh"}};
  for (const auto& [kind, name] : kinds) {
    write_msh(dir / name, box, kind);
    if (kind == Msh::v22_binary_meshio) {  // the bytes of the file the issue was about
      std::ifstream in(dir / name, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      ASSERT_TRUE(contains(bytes, std::string("8\n\x01\0\0\0$EndMeshFormat\n", 21)));
      ASSERT_TRUE(contains(bytes, "$EndNodeData"));
    }
    testing::internal::CaptureStderr();
    const auto m = read_gmsh_mesh(dir / name);
    const std::string notices = testing::internal::GetCapturedStderr();
    EXPECT_EQ(m.tets, reference_mesh.tets) << name;
    EXPECT_LT((m.vertices - reference_mesh.vertices).cwiseAbs().maxCoeff(), 1e-15) << name;
    if (kind == Msh::v41_ascii_tet10) EXPECT_TRUE(contains(notices, "edge-midpoint")) << notices;
  }
  // The CLI end to end for each encoding.
  for (const char* name : {"v22a.msh", "v22b.msh", "v22b_meshio.msh", "v41a.msh", "v41b.msh"})
    expect_same_modes(modes_of(at(name), at(std::string(name) + ".json")), reference, 1e-8, name);
}

TEST_F(MeshFormats, BadGmshFilesAreOneClearError) {
  const auto box = structured_box({0, 0, 0}, {0.1, 0.06, 0.04}, 1, 1, 1);
  write_msh(dir / "good.msh", box, Msh::v41_binary);
  std::ifstream in(dir / "good.msh", std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto error_for = [&](const std::string& text) {
    write_text(dir / "bad.msh", text);
    return error_of([&] { read_gmsh_mesh(dir / "bad.msh"); });
  };
  EXPECT_TRUE(contains(error_for(good.substr(0, good.size() / 2)), "truncated"));
  EXPECT_TRUE(contains(error_for("$MeshFormat\n4 0 8\n$EndMeshFormat\n"), "4.1 or 2.2"));
  EXPECT_TRUE(contains(error_for("hello\n"), "$MeshFormat"));
  EXPECT_TRUE(contains(error_for("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n8\n"
                                 "1 0 0 0\n2 1 0 0\n3 0 1 0\n4 1 1 0\n5 0 0 1\n6 1 0 1\n7 0 1 1\n8 1 1 1\n"
                                 "$EndNodes\n$Elements\n1\n1 5 0 1 2 4 3 5 6 8 7\n$EndElements\n"),
                       "1 hexahedra"));
  EXPECT_TRUE(contains(error_for("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n"
                                 "1 0 0 0\n2 1 0 0\n3 0 1 0\n$EndNodes\n$Elements\n1\n1 2 0 1 2 3\n$EndElements\n"),
                       "no tetrahedra"));
  EXPECT_TRUE(contains(error_for("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n"
                                 "1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n$Elements\n1\n1 4 0 1 2 3 9\n$EndElements\n"),
                       "node 9"));
  const auto r = run("modes " + at("bad.msh") + " -o " + at("x.json"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.output, "bad.msh")) << r.output;
}

// ---------------------------------------------------------------------------------------------
// --repair

TEST_F(MeshFormats, RepairClosesACubeWithAMissingFaceAndSaysSo) {
  write_obj(dir / "open.obj", box_triangles({0, 0, 0}, {0.1, 0.1, 0.1}, /*skip_quad=*/1));
  const auto refused = run("modes " + at("open.obj") + " --element-order 1 --modes 5 -o " + at("a.json"));
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_TRUE(contains(refused.output, "hole")) << refused.output;
  EXPECT_TRUE(contains(refused.output, "try --repair")) << refused.output;
  EXPECT_FALSE(fs::exists(at("a.json")));

  // Filling adds faces (and refinement vertices at the end): vertex:I still names file vertex I.
  const auto open = read_surface_mesh(dir / "open.obj");
  testing::internal::CaptureStderr();
  const auto closed_mesh = read_checked_surface_mesh(dir / "open.obj", 1.0, /*repair=*/true);
  const std::string repair_notice = testing::internal::GetCapturedStderr();
  ASSERT_GE(closed_mesh.vertices.rows(), open.vertices.rows());
  EXPECT_EQ(closed_mesh.vertices.topRows(open.vertices.rows()), open.vertices);
  EXPECT_FALSE(contains(repair_notice, "vertex numbers")) << repair_notice;

  std::string output;
  const auto repaired = modes_of(at("open.obj"), at("b.json"), "--repair", &output);
  EXPECT_TRUE(contains(output, "filled 1 hole")) << output;
  write_obj(dir / "closed.obj", box_triangles({0, 0, 0}, {0.1, 0.1, 0.1}));
  const auto closed = modes_of(at("closed.obj"), at("c.json"));
  // The patch may be triangulated differently from the missing face: the same cube otherwise.
  expect_same_modes(repaired, closed, 0.03, "repaired vs closed cube");
}

TEST(SurfaceRepair, CountsWhatItChanged) {
  // A cube exported with split vertices (24, as per-face normals make them), one face flipped,
  // one face doubled and one face repeating a vertex.
  SurfaceMesh m;
  m.vertices.resize(24, 3);
  std::vector<Eigen::Vector3i> faces;
  for (int q = 0; q < 6; ++q) {
    for (int k = 0; k < 4; ++k) m.vertices.row(4 * q + k) = corner({0, 0, 0}, {1, 1, 1}, kQuads[q][k]).transpose();
    faces.emplace_back(4 * q, 4 * q + 1, 4 * q + 2);
    faces.emplace_back(4 * q, 4 * q + 2, 4 * q + 3);
  }
  std::swap(faces[3][1], faces[3][2]);  // flipped
  faces.push_back(faces[0]);            // doubled
  faces.emplace_back(0, 0, 1);          // repeats a vertex
  m.faces.resize(static_cast<Eigen::Index>(faces.size()), 3);
  for (std::size_t f = 0; f < faces.size(); ++f) m.faces.row(static_cast<Eigen::Index>(f)) = faces[f].transpose();

  testing::internal::CaptureStderr();
  EXPECT_TRUE(contains(error_of([&] { auto c = m; check_and_orient_surface(c); }), "degenerate"));
  testing::internal::GetCapturedStderr();
  testing::internal::CaptureStderr();
  const auto report = repair_surface(m);
  const std::string notice = testing::internal::GetCapturedStderr();
  EXPECT_EQ(report.merged_vertices, 16);
  EXPECT_EQ(report.dropped_faces, 2);
  EXPECT_EQ(report.reoriented_faces, 1);
  EXPECT_TRUE(contains(notice, "merged 16 duplicate vertices")) << notice;
  check_and_orient_surface(m);
  EXPECT_EQ(m.vertices.rows(), 8);
  EXPECT_EQ(m.faces.rows(), 12);
  EXPECT_NEAR(signed_volume(m), 1.0, 1e-12);

  // A closed, clean surface: nothing to repair, nothing changed.
  const SurfaceMesh before = m;
  testing::internal::CaptureStderr();
  EXPECT_FALSE(repair_surface(m).changed());
  EXPECT_TRUE(contains(testing::internal::GetCapturedStderr(), "nothing to repair"));
  EXPECT_EQ(m.faces, before.faces);
}

// ---------------------------------------------------------------------------------------------
// Several shells

namespace {
void write_boxes(const fs::path& path, const std::vector<std::pair<Eigen::Vector3d, Eigen::Vector3d>>& boxes,
                 int inverted = -1) {
  std::vector<Triangle> tris;
  for (std::size_t b = 0; b < boxes.size(); ++b)
    for (auto t : box_triangles(boxes[b].first, boxes[b].second)) {
      if (static_cast<int>(b) == inverted) std::swap(t[1], t[2]);
      tris.push_back(t);
    }
  write_obj(path, tris);
}
}  // namespace

TEST_F(MeshFormats, TwoDisjointCubesAreOneModelWithANotice) {
  write_boxes(dir / "two.obj", {{{0, 0, 0}, {0.1, 0.06, 0.04}}, {{0.2, 0, 0}, {0.1, 0.06, 0.04}}});
  std::string output;
  const auto f = modes_of(at("two.obj"), at("two.json"), "", &output);
  EXPECT_TRUE(contains(output, "2 separate bodies")) << output;
  EXPECT_TRUE(contains(output, "shell 1")) << output;
  EXPECT_TRUE(contains(output, "shell 2")) << output;
  // Two equal boxes: every mode comes twice.
  ASSERT_GE(f.size(), 4u);
  EXPECT_NEAR(f[1] / f[0], 1.0, 0.02);
}

TEST(MeshBodies, CountsSeparateBodiesOfATetMesh) {
  const auto a = structured_box({0, 0, 0}, {0.1, 0.06, 0.04}, 2, 1, 1);
  EXPECT_EQ(count_connected_bodies(a.tets, a.vertices.rows()), 1);
  // Two copies side by side, the second's nodes numbered after the first's.
  Eigen::MatrixXi two(2 * a.tets.rows(), 4);
  two << a.tets, a.tets.array() + static_cast<int>(a.vertices.rows());
  EXPECT_EQ(count_connected_bodies(two, 2 * a.vertices.rows()), 2);
}

TEST_F(MeshFormats, OverlappingShellsAreRefusedNamingBoth) {
  write_boxes(dir / "overlap.obj", {{{0, 0, 0}, {0.1, 0.1, 0.1}}, {{0.05, 0.05, 0.05}, {0.1, 0.1, 0.1}}});
  const auto r = run("modes " + at("overlap.obj") + " -o " + at("x.json"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.output, "shell 1")) << r.output;
  EXPECT_TRUE(contains(r.output, "shell 2")) << r.output;
  EXPECT_TRUE(contains(r.output, "intersect")) << r.output;
  EXPECT_FALSE(fs::exists(at("x.json")));

  // A box inside another, both outward: overlapping material, refused naming both.
  write_boxes(dir / "nested.obj", {{{0, 0, 0}, {0.1, 0.1, 0.1}}, {{0.03, 0.03, 0.03}, {0.02, 0.02, 0.02}}});
  const std::string nested = error_of([&] { read_checked_surface_mesh(dir / "nested.obj"); });
  EXPECT_TRUE(contains(nested, "shell 2")) << nested;
  EXPECT_TRUE(contains(nested, "inside the material of shell 1")) << nested;
  EXPECT_TRUE(contains(nested, "try --repair")) << nested;  // a cavity with outward faces?
  testing::internal::CaptureStderr();
  const auto repaired = read_checked_surface_mesh(dir / "nested.obj", 1.0, /*repair=*/true);
  EXPECT_TRUE(contains(testing::internal::GetCapturedStderr(), "re-oriented 12 faces"));
  EXPECT_NEAR(signed_volume(repaired), 1e-3 - 8e-6, 1e-12);
  // The same inner box pointing inwards is a cavity: fine, and silent.
  write_boxes(dir / "cavity.obj", {{{0, 0, 0}, {0.1, 0.1, 0.1}}, {{0.03, 0.03, 0.03}, {0.02, 0.02, 0.02}}}, 1);
  testing::internal::CaptureStderr();
  const auto cavity = read_checked_surface_mesh(dir / "cavity.obj");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_NEAR(signed_volume(cavity), 1e-3 - 8e-6, 1e-12);
}
