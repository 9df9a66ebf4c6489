#include "fem/tetgen_files.hpp"

#include "fem/gmsh_input.hpp"

#include <fmt/format.h>

#include <Eigen/Geometry>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& path, int line, const std::string& message) {
  if (line > 0) throw Error(fmt::format("{}:{}: {}", path.string(), line, message));
  throw Error(fmt::format("{}: {}", path.string(), message));
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

struct Line {
  int number;
  std::vector<std::string_view> tokens;
};

// Reads the file as non-empty lines, '#' comments stripped, split into tokens.
class LineFile {
 public:
  explicit LineFile(const fs::path& path) : path_(path) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) fail(path, 0, "no such file");
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(path, 0, "cannot open the file for reading");
    text_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    std::size_t pos = 0;
    int number = 0;
    while (pos < text_.size()) {
      ++number;
      std::size_t end = text_.find('\n', pos);
      if (end == std::string::npos) end = text_.size();
      std::string_view line(text_.data() + pos, end - pos);
      pos = end + 1;
      if (const auto c = line.find('#'); c != std::string_view::npos) line = line.substr(0, c);
      Line l{number, {}};
      std::size_t i = 0;
      while (i < line.size()) {
        while (i < line.size() && is_space(line[i])) ++i;
        const std::size_t b = i;
        while (i < line.size() && !is_space(line[i])) ++i;
        if (i > b) l.tokens.push_back(line.substr(b, i - b));
      }
      if (!l.tokens.empty()) lines_.push_back(std::move(l));
    }
  }
  const std::vector<Line>& lines() const { return lines_; }
  const fs::path& path() const { return path_; }

  long long integer(const Line& l, std::size_t k, const char* what) const {
    if (k >= l.tokens.size()) fail(path_, l.number, fmt::format("missing {}", what));
    std::string_view t = l.tokens[k];
    if (!t.empty() && t.front() == '+') t.remove_prefix(1);
    long long v;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size())
      fail(path_, l.number, fmt::format("{} '{}' is not an integer", what, l.tokens[k]));
    return v;
  }
  double real(const Line& l, std::size_t k, const char* what) const {
    if (k >= l.tokens.size()) fail(path_, l.number, fmt::format("missing {}", what));
    std::string_view t = l.tokens[k];
    if (!t.empty() && t.front() == '+') t.remove_prefix(1);
    double v;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc::result_out_of_range)
      v = std::numeric_limits<double>::infinity();
    else if (ec != std::errc() || p != t.data() + t.size())
      fail(path_, l.number, fmt::format("{} '{}' is not a number", what, l.tokens[k]));
    if (!std::isfinite(v))
      fail(path_, l.number, fmt::format("{} '{}' is not finite", what, l.tokens[k]));
    return v;
  }

 private:
  fs::path path_;
  std::string text_;
  std::vector<Line> lines_;
};

}  // namespace

TetMeshFile read_tetgen_mesh(const fs::path& node_or_ele_path, double scale) {
  if (!std::isfinite(scale) || scale <= 0)
    throw Error(fmt::format("scale must be a positive finite number (got {})", scale));
  const auto ext = node_or_ele_path.extension().string();
  std::string lower_ext = ext;
  for (auto& c : lower_ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower_ext != ".node" && lower_ext != ".ele")
    fail(node_or_ele_path, 0, "a TetGen mesh is given by its .node or .ele file");
  // The partner file in the same case (X.NODE goes with X.ELE).
  const bool upper = ext[1] >= 'A' && ext[1] <= 'Z';
  fs::path node_path = node_or_ele_path, ele_path = node_or_ele_path;
  node_path.replace_extension(upper ? ".NODE" : ".node");
  ele_path.replace_extension(upper ? ".ELE" : ".ele");

  TetMeshFile out;

  // .node: "<#points> <dimension=3> <#attributes> <boundary markers 0|1>", then
  // "<point#> <x> <y> <z> [attributes] [marker]".
  LineFile node(node_path);
  const auto& nl = node.lines();
  if (nl.empty()) fail(node_path, 0, "empty file (no header line)");
  const long long np = node.integer(nl[0], 0, "point count");
  const long long dim = node.integer(nl[0], 1, "dimension");
  if (np <= 0) fail(node_path, nl[0].number, fmt::format("point count is {}", np));
  if (np > std::numeric_limits<int>::max()) fail(node_path, nl[0].number, "too many points");
  if (dim != 3) fail(node_path, nl[0].number, fmt::format("dimension is {}, expected 3", dim));
  if (static_cast<std::size_t>(np) > nl.size() - 1)
    fail(node_path, 0,
         fmt::format("the header announces {} points, the file lists {} (truncated?)", np,
                     nl.size() - 1));
  out.vertices.resize(np, 3);
  long long base = 0;
  for (long long i = 0; i < np; ++i) {
    const Line& l = nl[static_cast<std::size_t>(i + 1)];
    const long long id = node.integer(l, 0, "point number");
    if (i == 0) {
      if (id != 0 && id != 1)
        fail(node_path, l.number, fmt::format("first point number is {}, expected 0 or 1", id));
      base = id;
    } else if (id != base + i) {
      fail(node_path, l.number,
           fmt::format("point number {} out of sequence (expected {})", id, base + i));
    }
    for (int k = 0; k < 3; ++k) out.vertices(i, k) = scale * node.real(l, 1 + k, "coordinate");
    if (!out.vertices.row(i).allFinite())
      fail(node_path, l.number,
           fmt::format("coordinates are not finite after scaling by {}", scale));
  }

  // .ele: "<#tets> <nodes per tet 4|10> <region attribute 0|1>", then
  // "<tet#> <n1> ... <nk> [attribute]".
  LineFile ele(ele_path);
  const auto& el = ele.lines();
  if (el.empty()) fail(ele_path, 0, "empty file (no header line)");
  const long long nt = ele.integer(el[0], 0, "tetrahedron count");
  const long long per = ele.integer(el[0], 1, "nodes per tetrahedron");
  if (nt <= 0) fail(ele_path, el[0].number, fmt::format("tetrahedron count is {}", nt));
  if (nt > std::numeric_limits<int>::max()) fail(ele_path, el[0].number, "too many tetrahedra");
  if (per != 4 && per != 10)
    fail(ele_path, el[0].number, fmt::format("{} nodes per tetrahedron, expected 4 or 10", per));
  if (static_cast<std::size_t>(nt) > el.size() - 1)
    fail(ele_path, 0,
         fmt::format("the header announces {} tetrahedra, the file lists {} (truncated?)", nt,
                     el.size() - 1));
  out.tets.resize(nt, 4);
  const auto& V = out.vertices;
  for (long long t = 0; t < nt; ++t) {
    const Line& l = el[static_cast<std::size_t>(t + 1)];
    ele.integer(l, 0, "tetrahedron number");
    if (static_cast<long long>(l.tokens.size()) < 1 + per)
      fail(ele_path, l.number,
           fmt::format("tetrahedron lists {} nodes, expected {}", l.tokens.size() - 1, per));
    for (long long k = 0; k < per; ++k) {
      const long long n = ele.integer(l, static_cast<std::size_t>(1 + k), "node number");
      if (n < base || n >= base + np)
        fail(ele_path, l.number,
             fmt::format("node {} does not exist ({} has points {} to {})", n,
                         node_path.filename().string(), base, base + np - 1));
      if (k < 4) out.tets(t, k) = static_cast<int>(n - base);
    }
    if (const auto problem = orient_tet(V, out.tets, static_cast<Eigen::Index>(t)); !problem.empty())
      fail(ele_path, l.number, problem);
  }
  drop_unused_points(out, node_path.string(), per == 10, base);
  return out;
}

std::string orient_tet(const Eigen::MatrixXd& V, Eigen::MatrixXi& tets, Eigen::Index t) {
  const int a = tets(t, 0), b = tets(t, 1), c = tets(t, 2), d = tets(t, 3);
  if (a == b || a == c || a == d || b == c || b == d || c == d)
    return "tetrahedron repeats a node";
  const Eigen::Vector3d e1 = V.row(b) - V.row(a), e2 = V.row(c) - V.row(a),
                        e3 = V.row(d) - V.row(a);
  const double det = e1.dot(e2.cross(e3));
  const double len = std::max({e1.norm(), e2.norm(), e3.norm(), (V.row(c) - V.row(b)).norm(),
                               (V.row(d) - V.row(b)).norm(), (V.row(d) - V.row(c)).norm()});
  if (!(std::abs(det) > 1e-12 * len * len * len))
    return fmt::format("tetrahedron has zero volume ({:.3g} m³)", det / 6);
  if (det < 0) std::swap(tets(t, 1), tets(t, 2));
  return {};
}

void drop_unused_points(TetMeshFile& out, const std::string& source, bool quadratic,
                        long long base) {
  // Nodes no tetrahedron uses (the edge-midpoint nodes of 10-node elements, points TetGen
  // left out) would be free nodes: a singular stiffness matrix. Drop them, keeping the order.
  const long long np = out.vertices.rows();
  std::vector<int> new_index(static_cast<std::size_t>(np), -1);
  for (Eigen::Index t = 0; t < out.tets.rows(); ++t)
    for (int k = 0; k < 4; ++k) new_index[static_cast<std::size_t>(out.tets(t, k))] = 0;
  int kept = 0;
  long long first_dropped = -1;
  bool renumbered = false;
  for (long long i = 0; i < np; ++i) {
    auto& n = new_index[static_cast<std::size_t>(i)];
    if (n < 0) {
      if (first_dropped < 0) first_dropped = i;
      continue;
    }
    n = kept++;
    if (first_dropped >= 0) renumbered = true;
  }
  if (kept < np) {
    Eigen::MatrixXd vertices(kept, 3);
    for (long long i = 0; i < np; ++i)
      if (new_index[static_cast<std::size_t>(i)] >= 0)
        vertices.row(new_index[static_cast<std::size_t>(i)]) = out.vertices.row(i);
    out.vertices = std::move(vertices);
    for (Eigen::Index t = 0; t < out.tets.rows(); ++t)
      for (int k = 0; k < 4; ++k)
        out.tets(t, k) = new_index[static_cast<std::size_t>(out.tets(t, k))];
    std::string message = fmt::format(
        "{}: dropped {} of {} points that no tetrahedron corner uses{}", source, np - kept, np,
        quadratic ? " (the edge-midpoint nodes: mesh2dsp makes its own)" : "");
    if (renumbered)
      message += fmt::format(
          "; vertex numbers from file point {} on shift down (vertex:I counts the kept points)",
          first_dropped + base);
    notice(message);
  }
}

TetMeshFile read_tet_mesh_file(const fs::path& path, double scale) {
  std::string ext = path.extension().string();
  for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".msh") return read_gmsh_mesh(path, scale);
  return read_tetgen_mesh(path, scale);
}

}  // namespace mesh2dsp
