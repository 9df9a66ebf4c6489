#include "fem/surface_mesh.hpp"
#include "fem/surface_remesh.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <Eigen/Geometry>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "fem/tetgen_files.hpp"
#include "support/error_of.hpp"
#include "util/error.hpp"

using namespace mesh2dsp;
namespace fs = std::filesystem;

namespace {

const fs::path kData = fs::path(MESH2DSP_SOURCE_DIR) / "tests" / "generator" / "data";
const fs::path kMeshes = fs::path(MESH2DSP_SOURCE_DIR) / "meshes";

// A fresh folder of our own under the temporary directory (tests of several checkouts may run
// at the same time on one machine), removed when the test ends, failed or not.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : dir_(fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return dir_; }
  fs::path operator/(const std::string& name) const { return dir_ / name; }

 private:
  fs::path dir_;
};

using test::error_of;

std::string read_error(const std::string& name) {
  return error_of([&] { read_surface_mesh(kData / name); });
}

std::string check_error(const std::string& name) {
  return error_of([&] {
    auto m = read_surface_mesh(kData / name);
    check_and_orient_surface(m);
  });
}

double tet_volume(const TetMeshFile& m, int t) {
  const Eigen::Vector3d a = m.vertices.row(m.tets(t, 0)), b = m.vertices.row(m.tets(t, 1)),
                        c = m.vertices.row(m.tets(t, 2)), d = m.vertices.row(m.tets(t, 3));
  return (b - a).dot((c - a).cross(d - a)) / 6;
}

// A closed torus of n × m quads (2nm triangles), outward oriented.
SurfaceMesh torus(int n, int m, double R, double r) {
  SurfaceMesh s;
  s.vertices.resize(n * m, 3);
  s.faces.resize(2 * n * m, 3);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      const double u = 2 * M_PI * i / n, v = 2 * M_PI * j / m;
      s.vertices.row(i * m + j) << (R + r * std::cos(v)) * std::cos(u),
          (R + r * std::cos(v)) * std::sin(u), r * std::sin(v);
    }
  auto id = [&](int i, int j) { return (i % n) * m + (j % m); };
  int f = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      s.faces.row(f++) << id(i, j), id(i + 1, j), id(i + 1, j + 1);
      s.faces.row(f++) << id(i, j), id(i + 1, j + 1), id(i, j + 1);
    }
  return s;
}

}  // namespace

TEST(SurfaceMesh, EveryFormatReadsTheSameCube) {
  const ScratchDir scratch("mesh2dsp_surface_mesh_upper");
  for (const char* name :
       {"cube.obj", "cube_quads.obj", "cube_ascii.stl", "cube_binary.stl", "cube.off",
        "cube_ascii.ply", "cube_binary.ply", "cube_binary_be.ply", "CUBE_UPPER.OBJ"}) {
    SCOPED_TRACE(name);
    fs::path path = kData / name;
    if (std::string(name) == "CUBE_UPPER.OBJ") {  // extensions are case-insensitive
      path = scratch / "CUBE.OBJ";
      fs::copy_file(kData / "cube.obj", path, fs::copy_options::overwrite_existing);
    }
    auto m = read_surface_mesh(path);
    EXPECT_EQ(m.vertices.rows(), 8);
    EXPECT_EQ(m.faces.rows(), 12);
    EXPECT_NO_THROW(check_and_orient_surface(m));
    EXPECT_NEAR(signed_volume(m), 1.0, 1e-12);
  }
}

TEST(SurfaceMesh, VertexOrderFollowsTheFile) {
  // OBJ, OFF, PLY: the file's order. STL: the order of first appearance.
  const auto obj = read_surface_mesh(kData / "cube.obj");
  for (const char* name : {"cube.off", "cube_ascii.ply", "cube_binary.ply", "cube_binary_be.ply"}) {
    const auto m = read_surface_mesh(kData / name);
    EXPECT_EQ(m.vertices, obj.vertices) << name;
  }
  const auto stl = read_surface_mesh(kData / "cube_binary.stl");
  const auto stl_ascii = read_surface_mesh(kData / "cube_ascii.stl");
  EXPECT_EQ(stl.vertices, stl_ascii.vertices);
  EXPECT_EQ(stl.faces, stl_ascii.faces);
  // First triangle of the file is cube vertices (0, 2, 3): they come first, in that order.
  EXPECT_EQ(stl.faces.row(0), Eigen::RowVector3i(0, 1, 2));
  EXPECT_EQ(stl.vertices.row(1), obj.vertices.row(2));
  EXPECT_EQ(stl.vertices.row(2), obj.vertices.row(3));
  // Faces of the OBJ are the file's, 0-based.
  EXPECT_EQ(obj.faces.row(0), Eigen::RowVector3i(0, 2, 3));
}

TEST(SurfaceMesh, ScaleMultipliesCoordinates) {
  for (const char* name : {"cube.obj", "cube_binary.stl", "cube.off", "cube_ascii.ply"}) {
    auto m = read_surface_mesh(kData / name, 0.01);
    check_and_orient_surface(m);
    EXPECT_NEAR(signed_volume(m), 1e-6, 1e-18) << name;
    EXPECT_NEAR(m.vertices.maxCoeff(), 0.01, 1e-15) << name;
  }
  EXPECT_NE(error_of([] { read_surface_mesh(kData / "cube.obj", 0.0); }).find("scale"),
            std::string::npos);
  EXPECT_NE(error_of([] { read_surface_mesh(kData / "cube.obj", -2.0); }).find("scale"),
            std::string::npos);
}

TEST(SurfaceMesh, ReadErrorsNameFileAndProblem) {
  auto expect = [](const std::string& name, const std::string& words) {
    const std::string msg = read_error(name);
    EXPECT_NE(msg.find(name), std::string::npos) << msg;
    EXPECT_NE(msg.find(words), std::string::npos) << "expected '" << words << "' in: " << msg;
  };
  expect("empty.obj", "empty");
  expect("empty.stl", "empty");
  expect("comments_only.obj", "empty mesh");
  expect("truncated_binary.stl", "truncated");
  expect("truncated_binary.ply", "truncated");
  expect("missing_vertex.off", "refers to vertex 8");
  expect("too_few_faces.off", "truncated");
  expect("nan_coordinate.obj", "not finite");
  expect("nan_coordinate.obj", "line 3");
  expect("nan_coordinate.off", "not finite");
  expect("no_such_file.obj", "no such file");
  expect("make_test_meshes.py", "unknown mesh format");
}

TEST(SurfaceMesh, MalformedTextIsAnErrorNotACrash) {
  const ScratchDir scratch("mesh2dsp_surface_mesh_test");
  const fs::path& dir = scratch.path();
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
    return dir / name;
  };
  const std::pair<std::string, std::string> cases[] = {
      {"a.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n"},
      {"b.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -9\n"},
      {"c.obj", "v 0 0\nf 1 2 3\n"},
      {"d.obj", "v 0 0 abc\nf 1 1 1\n"},
      {"e.obj", "v 0 0 1e999\n"},
      {"a.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n2 0 1\n"},
      {"b.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 x\n"},
      {"c.off", "OF\n"},
      {"d.off", "OFF\n-3 1 0\n"},
      {"a.stl", "solid x\nfacet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"},
      {"b.stl", "solid x\nfacet normal 0 0 0\nouter loop\nvertex 0 0 inf\n"},
      {"c.stl", std::string("abc")},
      {"a.ply",
       "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
       "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
       "0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n"},
      {"b.ply",
       "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
       "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
       "0 0 0\n1 0 0\n0 1\n"},
      {"c.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"},
      {"d.ply",
       "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n"
       "property float y\nproperty float z\nelement face 1\n"
       "property list uchar int vertex_indices\nend_header\n\x01\x02"},
      {"e.ply",
       "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
       "property float z\nelement face 0\nproperty list uchar int vertex_indices\nend_header\n"
       "nan 0 0\n"},
  };
  for (const auto& [name, text] : cases) {
    const auto path = write(name, text);
    const std::string msg = error_of([&] { read_surface_mesh(path); });
    EXPECT_NE(msg.find(name), std::string::npos) << name << ": " << msg;
  }
  EXPECT_NE(error_of([&] { read_surface_mesh(dir / "e.obj"); }).find("not finite"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_surface_mesh(dir / "e.ply"); }).find("not finite"),
            std::string::npos);
}

TEST(SurfaceMesh, CheckErrorsNameTheProblem) {
  auto expect = [](const std::string& name, std::initializer_list<const char*> words) {
    const std::string msg = check_error(name);
    for (const char* w : words)
      EXPECT_NE(msg.find(w), std::string::npos) << "expected '" << w << "' in: " << msg;
  };
  expect("open_box.obj", {"hole", "shared by 1 face"});
  expect("edge_three_faces.obj", {"edge (0, 1) is shared by 3 faces"});
  expect("two_cubes_vertex.obj", {"vertex 7 is non-manifold", "2 separate fans"});
  expect("flipped_face.obj", {"orientation", "face"});
  expect("degenerate_face.obj", {"degenerate", "face 12"});
  expect("repeated_vertex.obj", {"degenerate", "repeats vertex 0"});
}

TEST(SurfaceMesh, ReadCheckedNamesTheFile) {
  const std::string msg = error_of([] { read_checked_surface_mesh(kData / "open_box.obj"); });
  EXPECT_NE(msg.find("open_box.obj: surface mesh: edge"), std::string::npos) << msg;
  const auto m = read_checked_surface_mesh(kData / "cube_binary.ply", 2.0);
  EXPECT_NEAR(signed_volume(m), 8.0, 1e-12);
}

TEST(SurfaceMesh, CheckCatchesNonFiniteAndUnusedVertices) {
  auto m = read_surface_mesh(kData / "cube.obj");
  auto bad = m;
  bad.vertices(3, 1) = std::nan("");
  EXPECT_NE(error_of([&] {
              check_and_orient_surface(bad);
            }).find("vertex 3 has a coordinate that is not finite"),
            std::string::npos);
  bad = m;
  bad.vertices.conservativeResize(9, 3);
  bad.vertices.row(8) << 5, 5, 5;
  EXPECT_NE(error_of([&] { check_and_orient_surface(bad); }).find("vertex 8 is not used"),
            std::string::npos);
  bad = m;
  bad.faces(4, 2) = 42;
  EXPECT_NE(error_of([&] { check_and_orient_surface(bad); }).find("refers to vertex 42"),
            std::string::npos);
  SurfaceMesh empty;
  EXPECT_NE(error_of([&] { check_and_orient_surface(empty); }).find("empty"), std::string::npos);
}

TEST(SurfaceMesh, InvertedCubeIsFlippedWithNotice) {
  auto m = read_surface_mesh(kData / "inverted_cube.obj");
  EXPECT_NEAR(signed_volume(m), -1.0, 1e-12);
  testing::internal::CaptureStderr();
  check_and_orient_surface(m);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("inside out"), std::string::npos) << err;
  EXPECT_NEAR(signed_volume(m), 1.0, 1e-12);
  // The flipped mesh is the outward cube: checking again is silent and changes nothing.
  const Eigen::MatrixXi faces = m.faces;
  testing::internal::CaptureStderr();
  check_and_orient_surface(m);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(m.faces, faces);
}

TEST(SurfaceMesh, CavitiesFaceInwardsButStrayInvertedShellsAreErrors) {
  auto hollow = read_surface_mesh(kData / "hollow_cube.obj");
  testing::internal::CaptureStderr();
  check_and_orient_surface(hollow);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_NEAR(signed_volume(hollow), 1.0 - 0.125, 1e-12);

  auto inverted = read_surface_mesh(kData / "inverted_hollow_cube.obj");
  testing::internal::CaptureStderr();
  check_and_orient_surface(inverted);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("inside out"), std::string::npos);
  EXPECT_NEAR(signed_volume(inverted), 1.0 - 0.125, 1e-12);
  EXPECT_EQ(inverted.faces, hollow.faces);

  const std::string msg = check_error("stray_inverted_shell.obj");
  EXPECT_NE(msg.find("orientation"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not a cavity"), std::string::npos) << msg;
}

TEST(SurfaceMesh, CubeCornerNormalsPointOutwards) {
  const auto m = read_surface_mesh(kData / "cube.obj");
  const auto n = vertex_normals(m);
  ASSERT_EQ(n.rows(), 8);
  const Eigen::RowVector3d centre(0.5, 0.5, 0.5);
  for (int i = 0; i < 8; ++i) {
    EXPECT_NEAR(n.row(i).norm(), 1.0, 1e-12);
    const Eigen::RowVector3d out = m.vertices.row(i) - centre;
    for (int k = 0; k < 3; ++k) EXPECT_GT(n(i, k) * out(k), 0.1) << "vertex " << i << " axis " << k;
  }
}

TEST(SurfaceMesh, LargeClosedMeshPasses) {
  // 100k faces: the check must pass (its speed is measured, not asserted: see the report).
  auto m = torus(250, 200, 0.1, 0.03);
  const auto t0 = std::chrono::steady_clock::now();
  check_and_orient_surface(m);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  RecordProperty("check_ms", std::to_string(ms));
  EXPECT_NEAR(signed_volume(m), 2 * M_PI * M_PI * 0.1 * 0.03 * 0.03,
              2e-3 * 2 * M_PI * M_PI * 0.1 * 0.03 * 0.03);
}

TEST(SurfaceMesh, BundledMeshesPassTheCheck) {
  std::set<std::string> found;
  if (fs::is_directory(kMeshes))
    for (const auto& entry : fs::directory_iterator(kMeshes)) {
      if (entry.path().extension() != ".obj") continue;
      SCOPED_TRACE(entry.path().string());
      auto m = read_surface_mesh(entry.path());
      testing::internal::CaptureStderr();
      EXPECT_NO_THROW(check_and_orient_surface(m));
      EXPECT_EQ(testing::internal::GetCapturedStderr(), "")
          << "bundled meshes are outward oriented";
      EXPECT_GT(signed_volume(m), 0);
      found.insert(entry.path().filename().string());
    }
  for (const char* name : {"bar.obj", "plate.obj", "sphere.obj", "bowl.obj", "bell.obj",
                           "vibraphone_bar.obj", "cantilever.obj"})
    EXPECT_TRUE(found.count(name)) << name << " missing from meshes/";
}

TEST(SurfaceMesh, CommittedMeshesAreWhatTheScriptsMake) {
  // The .obj files are generated: regenerate into a temporary folder and compare bytes, so a
  // hand edit or a script change without regeneration is caught.
  if (std::system("python3 --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const ScratchDir scratch("mesh2dsp_regenerated_meshes");
  const fs::path& tmp = scratch.path();
  for (const auto& [script, committed] : {std::pair{kMeshes / "make_meshes.py", kMeshes},
                                          std::pair{kData / "make_test_meshes.py", kData}}) {
    fs::remove_all(tmp);
    const std::string cmd = "python3 '" + script.string() + "' '" + tmp.string() + "' > /dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    int compared = 0;
    for (const auto& entry : fs::directory_iterator(tmp)) {
      auto slurp = [](const fs::path& p) {
        std::ifstream in(p, std::ios::binary);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      };
      const fs::path mine = committed / entry.path().filename();
      ASSERT_TRUE(fs::exists(mine)) << mine << " is generated but not committed";
      if (committed == kMeshes && entry.path().extension() == ".obj") {
        // Computed coordinates: equal up to libm's last-bit differences between platforms.
        const auto a = read_surface_mesh(entry.path()), b = read_surface_mesh(mine);
        EXPECT_EQ(a.faces, b.faces) << mine << " differs from what " << script << " makes";
        ASSERT_EQ(a.vertices.rows(), b.vertices.rows()) << mine;
        EXPECT_LT((a.vertices - b.vertices).cwiseAbs().maxCoeff(), 1e-12) << mine;
      } else {
        EXPECT_TRUE(slurp(entry.path()) == slurp(mine))
            << mine << " differs from what " << script << " makes";
      }
      ++compared;
    }
    EXPECT_GT(compared, 5);
  }
}

TEST(TetgenFiles, ReadsNodeAndEleWithEitherPath) {
  for (const char* name : {"cube_tets.node", "cube_tets.ele"}) {
    const auto m = read_tetgen_mesh(kData / name, 1.0);
    ASSERT_EQ(m.vertices.rows(), 8);
    ASSERT_EQ(m.tets.rows(), 6);
    double total = 0;
    for (int t = 0; t < 6; ++t) {
      EXPECT_GT(tet_volume(m, t), 0) << "tet " << t << " not flipped to positive orientation";
      total += tet_volume(m, t);
    }
    EXPECT_NEAR(total, 1.0, 1e-12);
    // 1-based file → 0-based indices; vertex 0 is the file's point 1 (the origin).
    EXPECT_EQ(m.tets.minCoeff(), 0);
    EXPECT_EQ(m.tets.maxCoeff(), 7);
    EXPECT_EQ(m.vertices.row(0).norm(), 0.0);
    EXPECT_EQ(m.vertices.row(7), Eigen::RowVector3d(1, 1, 1));
  }
}

TEST(TetgenFiles, TenNodeElementsKeepCornersAndScale) {
  testing::internal::CaptureStderr();
  const auto m = read_tetgen_mesh(kData / "cube_tets10.ele", 0.1);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("dropped 19 of 27 points"), std::string::npos) << err;
  EXPECT_EQ(err.find("shift"), std::string::npos) << "midpoints come last: numbering unchanged";
  EXPECT_EQ(m.vertices.rows(), 8);  // the corners; edge midpoints (free nodes otherwise) dropped
  EXPECT_EQ(m.vertices.row(7), Eigen::RowVector3d(0.1, 0.1, 0.1));
  ASSERT_EQ(m.tets.rows(), 6);
  double total = 0;
  for (int t = 0; t < 6; ++t) {
    EXPECT_GT(tet_volume(m, t), 0);
    total += tet_volume(m, t);
  }
  EXPECT_NEAR(total, 1e-3, 1e-15);
}

TEST(TetgenFiles, ErrorsNameFileAndLine) {
  const std::string msg = error_of([] { read_tetgen_mesh(kData / "bad_tets.node", 1.0); });
  EXPECT_NE(msg.find("bad_tets.ele:2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("node 5 does not exist"), std::string::npos) << msg;
  EXPECT_NE(error_of([] { read_tetgen_mesh(kData / "missing.node", 1.0); }).find("missing.node"),
            std::string::npos);
  EXPECT_NE(error_of([] { read_tetgen_mesh(kData / "cube.obj", 1.0); }).find(".node or .ele"),
            std::string::npos);

  const ScratchDir scratch("mesh2dsp_tetgen_files_test");
  const fs::path& dir = scratch.path();
  auto pair = [&](const std::string& node, const std::string& ele) {
    std::ofstream(dir / "t.node") << node;
    std::ofstream(dir / "t.ele") << ele;
    return error_of([&] { read_tetgen_mesh(dir / "t.node", 1.0); });
  };
  const std::string good_node = "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n";
  EXPECT_NE(pair("4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 nan 0\n3 0 0 1\n", "1 4 0\n0 0 1 2 3\n")
                .find("t.node:4"),
            std::string::npos);
  EXPECT_NE(pair("5 3 0 0\n0 0 0 0\n", "1 4 0\n0 0 1 2 3\n").find("truncated"), std::string::npos);
  EXPECT_NE(pair("2 3 0 0\n0 0 0 0\n2 1 0 0\n", "1 4 0\n0 0 1 2 3\n").find("sequence"),
            std::string::npos);
  EXPECT_NE(pair(good_node, "2 4 0\n0 0 1 2 3\n").find("truncated"), std::string::npos);
  EXPECT_NE(pair(good_node, "1 4 0\n0 0 1 2\n").find("t.ele:2"), std::string::npos);
  EXPECT_NE(pair(good_node, "1 6 0\n0 0 1 2 3 0 0\n").find("4 or 10"), std::string::npos);
  EXPECT_NE(pair(good_node, "1 4 0\n0 0 1 2 2\n").find("repeats"), std::string::npos);
  EXPECT_NE(pair("4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 1 1 0\n", "1 4 0\n0 0 1 2 3\n")
                .find("zero volume"),
            std::string::npos);
  // An unused point in the middle: dropped, and the notice says the numbering shifts.
  std::ofstream(dir / "u.node") << "5 3 0 0\n0 0 0 0\n1 1 0 0\n2 9 9 9\n3 0 1 0\n4 0 0 1\n";
  std::ofstream(dir / "u.ele") << "1 4 0\n0 0 1 3 4\n";
  testing::internal::CaptureStderr();
  const auto m = read_tetgen_mesh(dir / "u.ele", 1.0);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("from file point 2 on shift down"), std::string::npos) << err;
  EXPECT_EQ(m.vertices.rows(), 4);
  EXPECT_EQ(m.vertices.row(2), Eigen::RowVector3d(0, 1, 0));
  EXPECT_EQ(m.tets.maxCoeff(), 3);
}

// Remeshing keeps the shape (corners and creases are constraints) and the orientation.
TEST(SurfaceRemesh, CoarsensAndRefinesTheBarKeepingItsShape) {
  const auto bar = mesh2dsp::read_checked_surface_mesh(std::string(MESH2DSP_SOURCE_DIR) + "/meshes/bar.obj");
  const double volume = mesh2dsp::signed_volume(bar);
  for (double edge : {0.02, 0.004}) {
    const auto m = mesh2dsp::remesh_surface(bar, edge);
    EXPECT_NEAR(mesh2dsp::signed_volume(m) / volume, 1.0, 0.005) << edge;
    EXPECT_NEAR(mesh2dsp::mean_edge_length(m) / edge, 1.0, 0.35) << edge;
    const Eigen::Vector3d lo = m.vertices.colwise().minCoeff(), hi = m.vertices.colwise().maxCoeff();
    EXPECT_LT((lo - Eigen::Vector3d(-0.15, -0.015, -0.01)).norm(), 1e-9) << edge;
    EXPECT_LT((hi - Eigen::Vector3d(0.15, 0.015, 0.01)).norm(), 1e-9) << edge;
    if (edge > 0.01) EXPECT_LT(m.vertices.rows(), bar.vertices.rows());
    else EXPECT_GT(m.vertices.rows(), bar.vertices.rows());
  }
}
