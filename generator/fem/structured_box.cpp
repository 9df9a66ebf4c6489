#include "fem/structured_box.hpp"

#include <fmt/format.h>

#include <fstream>
#include <vector>

#include "util/error.hpp"

namespace mesh2dsp {

TetMesh structured_box(const Eigen::Vector3d& origin, const Eigen::Vector3d& size, int nx, int ny,
                       int nz) {
  if (nx < 1 || ny < 1 || nz < 1) throw Error("structured_box: at least one cell per axis");
  const int n[3] = {nx, ny, nz};
  auto index = [&](int i, int j, int k) { return i + (nx + 1) * (j + (ny + 1) * k); };
  Eigen::MatrixXd vertices((nx + 1) * (ny + 1) * (nz + 1), 3);
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i)
        vertices.row(index(i, j, k)) = origin.transpose() +
            Eigen::RowVector3d(size.x() * i / nx, size.y() * j / ny, size.z() * k / nz);
  static constexpr int kPermutations[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                              {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  std::vector<Eigen::Vector4i> tets;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const int cell[3] = {i, j, k};
        bool flip[3];
        for (int a = 0; a < 3; ++a) flip[a] = 2 * cell[a] >= n[a];
        auto corner = [&](int c[3]) {
          int g[3];
          for (int a = 0; a < 3; ++a) g[a] = cell[a] + (flip[a] ? 1 - c[a] : c[a]);
          return index(g[0], g[1], g[2]);
        };
        for (const auto& p : kPermutations) {
          int c[3] = {0, 0, 0};
          Eigen::Vector4i t;
          t[0] = corner(c);
          for (int s = 0; s < 3; ++s) {
            c[p[s]] = 1;
            t[s + 1] = corner(c);
          }
          tets.push_back(t);
        }
      }
  Eigen::MatrixXi elements(static_cast<int>(tets.size()), 4);
  for (size_t t = 0; t < tets.size(); ++t) elements.row(t) = tets[t].transpose();
  return tet_mesh_from_elements(std::move(vertices), std::move(elements));
}

void write_tetgen_files(const TetMesh& mesh, const std::filesystem::path& stem) {
  std::ofstream node(std::filesystem::path(stem).replace_extension(".node"));
  node << fmt::format("{} 3 0 0\n", mesh.vertices.rows());
  for (int v = 0; v < mesh.vertices.rows(); ++v)
    node << fmt::format("{} {:.17g} {:.17g} {:.17g}\n", v, mesh.vertices(v, 0), mesh.vertices(v, 1),
                        mesh.vertices(v, 2));
  std::ofstream ele(std::filesystem::path(stem).replace_extension(".ele"));
  ele << fmt::format("{} 4 0\n", mesh.tets.rows());
  for (int t = 0; t < mesh.tets.rows(); ++t)
    ele << fmt::format("{} {} {} {} {}\n", t, mesh.tets(t, 0), mesh.tets(t, 1), mesh.tets(t, 2),
                       mesh.tets(t, 3));
  if (!node || !ele) throw Error(fmt::format("cannot write {}.node/.ele", stem.string()));
}

}  // namespace mesh2dsp
