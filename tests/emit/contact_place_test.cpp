// Where the force enters the modes, under controls that move while the object rings: a strike's
// gains are latched at its onset (moving the glide or the contact later does not re-weight modes
// already ringing), a continuous contact's force enters with the shape where the contact is now,
// switching the moving contact or its triangle never clicks, and the shape along a contact
// triangle's edge follows the mode shape on the surface. The header and Faust's C++ of the same
// instrument are driven alike (data/place_harness.cpp).
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <array>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Geometry>

#include "audio_support.hpp"
#include "modal/modal_model.hpp"
#include "modal/surface_shapes.hpp"

namespace emit_test {
namespace {

struct Numbers {
  double a = -1, b = -1;
};

class ContactPlaceTest : public ScratchTest {
 protected:
  // The header and Faust's C++ of `file` (as `name`), and the place harness built on them.
  std::string build(const fs::path& file, const std::string& name) {
    std::string upper = name, cls;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const auto g = generate(file, "--name " + name + " --excitation all --no-model-json --cpp " + name + ".hpp --faust " +
                                      name + ".dsp");
    EXPECT_EQ(g.status, 0) << g.output;
    const auto f = run("cd '" + dir.string() + "' && faust -lang cpp -cn FaustModel -a '" +
                       (kData / "faust-cpp-arch.cpp").string() + "' " + name + ".dsp -o " + name + "_faust.cpp");
    EXPECT_EQ(f.status, 0) << f.output;
    const bool delayed = mesh2dsp::read_modal_model(file).listeners.size() > 0;
    const std::string exe = (dir / ("place_" + name)).string();
    const auto c = run("cd '" + dir.string() + "' && " + MESH2DSP_CXX + " -std=c++20 -O2 -fwrapv -I. -DMODEL=" + name +
                       " -DMODEL_UPPER=" + upper + " -DMODEL_HEADER='\"" + name + ".hpp\"' -DFAUST_CLASS_FILE='\"" + name +
                       "_faust.cpp\"' -DDELAYED=" + (delayed ? "1" : "0") + " '" +
                       (kData / "place_harness.cpp").string() + "' -o '" + exe + "'");
    EXPECT_EQ(c.status, 0) << c.output;
    return exe;
  }
  // "<what> <engine> <label a> <a> <label b> <b>" for each engine.
  std::map<std::string, Numbers> measure(const std::string& exe, const std::string& what, const std::string& where) {
    const auto r = run("'" + exe + "' " + what + " " + where);
    EXPECT_EQ(r.status, 0) << r.output;
    std::map<std::string, Numbers> by_engine;
    for (const char* engine : {"header", "faust"}) {
      const auto at = r.output.find(what + " " + engine + " ");
      Numbers n;
      if (at != std::string::npos)
        std::sscanf(r.output.c_str() + at + what.size() + std::strlen(engine) + 2, "%*s %lf %*s %lf", &n.a, &n.b);
      EXPECT_GE(n.b, 0) << what << " " << where << ": no " << engine << " result\n" << r.output;
      by_engine[engine] = n;
    }
    return by_engine;
  }
  // A synthetic model with several contact triangles (16 modes, 30 points, 12 triangles).
  fs::path model_with_triangles() {
    const fs::path file = dir / "testtri.modal.json";
    const auto r = run("python3 '" + (kSource / "tests/emit/benchmark/synthetic_model.py").string() + "' 16 '" +
                       file.string() + "' 30 12");
    EXPECT_EQ(r.status, 0) << r.output;
    return file;
  }
};

TEST_F(ContactPlaceTest, ARingingStrikeIsNotReweightedWhenTheGlideOrTheContactMoves) {
  // A strike at point 0 rings; 0.2 s later the glide (or the moving contact's u) moves the place
  // to point B. The modes already ringing keep their gains: the output is the unmoved strike's.
  // (When the shape weighted each mode's output, the move re-weighted them: the output after it
  // was the strike heard at B.)
  const std::pair<std::string, std::vector<std::string>> models[] = {{"testbar", {"glide", "contact"}},
                                                                     {"testbar_stereo", {"glide"}}};
  for (const auto& [model, wheres] : models) {
    const auto exe = build(kData / (model + ".modal.json"), model);
    for (const auto& where : wheres)
      for (const auto& [engine, n] : measure(exe, "latch", where)) {
        EXPECT_GT(n.b, 1e-3) << model << " " << where << " " << engine << ": silent";
        EXPECT_LE(n.a, 1e-6 * n.b) << model << " " << where << " " << engine << ": the ringing strike was re-weighted";
        std::printf("%s %s %s: after the move %.3g of the peak from the unmoved strike\n", model.c_str(), where.c_str(),
                    engine.c_str(), n.a / n.b);
      }
  }
}

TEST_F(ContactPlaceTest, AContinuousForceEntersWithTheShapeWhereTheContactIsNow) {
  // The live input's impulses at three places the position moves through (glide 0.25, 0.75, 1;
  // or the contact's (u, v)), each 0.4 s after the place was set: the output is the sum of the
  // modes' responses to each impulse scaled by the mode shape at its place, computed in the
  // harness from the model's shapes (in double). Within 2e-4 of the peak: float rounding, and
  // the 10 ms smoother of the output gain settles within ulp / (1 - pole), 3e-5, of its target.
  const std::pair<std::string, std::vector<std::string>> models[] = {{"testbar", {"glide", "contact"}},
                                                                     {"testbar_stereo", {"glide"}}};
  for (const auto& [model, wheres] : models) {
    const auto exe = build(kData / (model + ".modal.json"), model);
    for (const auto& where : wheres)
      for (const auto& [engine, n] : measure(exe, "reference", where)) {
        EXPECT_GT(n.b, 1e-4) << model << " " << where << " " << engine << ": silent";
        EXPECT_LE(n.a, 2e-4 * n.b) << model << " " << where << " " << engine;
        std::printf("%s %s %s: %.3g of the peak from the reference\n", model.c_str(), where.c_str(), engine.c_str(),
                    n.a / n.b);
      }
  }
}

TEST_F(ContactPlaceTest, SwitchingTheMovingContactOrItsTriangleWhileAStrikeRingsDoesNotClick) {
  // While a strike rings, the moving contact goes on, to the last triangle, off, on at another
  // triangle and off, 0.1 s apart. The largest sample-to-sample step of the output may not exceed
  // the untouched strike's (1 % for rounding): a step in the gains of ringing modes would (it was
  // up to 17 times the ringing's own steps).
  const std::pair<fs::path, std::string> models[] = {{kData / "testbar.modal.json", "testbar"},
                                                     {model_with_triangles(), "testtri"}};
  for (const auto& [file, model] : models) {
    const auto exe = build(file, model);
    for (const auto& [engine, n] : measure(exe, "click", "contact")) {
      EXPECT_GT(n.b, 1e-4) << model << " " << engine << ": silent";
      EXPECT_LE(n.a, 1.01 * n.b) << model << " " << engine << ": a click at the switch";
      std::printf("%s %s: largest step %.4g, untouched %.4g\n", model.c_str(), engine.c_str(), n.a, n.b);
    }
  }
}

TEST_F(ContactPlaceTest, AContinuousContactFadesOutAndInAcrossAJumpOfItsPlace) {
  // The live input drives the modes while the moving contact goes on, changes triangle and goes
  // off, sample by sample: the level the continuous force is scaled by moves by at most one step
  // (1 / 5 ms) per sample, and the place it is heard at changes only while that level is 0, so
  // the force's gains never step. It is back at 1 at the new place 12.5 ms after the switch.
  const auto file = model_with_triangles();
  const auto g = generate(file, "--name testtri --excitation all --no-model-json --c testtri.h");
  ASSERT_EQ(g.status, 0) << g.output;
  write_text(dir / "fade.c",
             "#include <math.h>\n#include <stdio.h>\n#include \"testtri.h\"\nstatic testtri_state s;\n"
             "int main(void) {\n"
             "  float in = 0.5f, out; float* outs[1] = {&out};\n"
             "  const int on[4] = {1, 1, 0, 1}, tri[4] = {0, 7, 7, 3};\n"
             "  long bad_step = 0, bad_jump = 0, jumps = 0, late = 0; int k, m;\n"
             "  testtri_prepare(&s, 48000.0f);\n  testtri_set_excitation(&s, TESTTRI_EXCITE_INPUT);\n"
             "  for (m = 0; m < 4800; ++m) testtri_process(&s, &in, outs, 1);\n"
             "  for (k = 0; k < 4; ++k) {\n"
             "    testtri_set_contact(&s, on[k], tri[k], 0.3f, 0.2f);\n"
             "    for (m = 0; m < 4800; ++m) {\n"
             "      const float level = s.place_level; const int heard_on = s.heard_on, heard_tri = s.heard_triangle;\n"
             "      in = sinf(0.01f * (float)m);\n"
             "      testtri_process(&s, &in, outs, 1);\n"
             "      if (fabsf(s.place_level - level) > s.place_step * 1.0001f) ++bad_step;\n"
             "      if (s.heard_on != heard_on || s.heard_triangle != heard_tri) { ++jumps; if (s.place_level != 0.0f) ++bad_jump; }\n"
             "      if (m == 600 && (s.place_level != 1.0f || s.heard_on != on[k] || (on[k] && s.heard_triangle != tri[k]))) ++late;\n"
             "    }\n  }\n"
             "  printf(\"bad_step %ld bad_jump %ld jumps %ld late %ld\\n\", bad_step, bad_jump, jumps, late);\n"
             "  return 0;\n}\n");
  const auto c = run("cd '" + dir.string() + "' && " + MESH2DSP_CC + " -std=c11 -O2 fade.c -o fade -lm && ./fade");
  ASSERT_EQ(c.status, 0) << c.output;
  long bad_step = -1, bad_jump = -1, jumps = -1, late = -1;
  ASSERT_EQ(std::sscanf(c.output.c_str(), "bad_step %ld bad_jump %ld jumps %ld late %ld", &bad_step, &bad_jump, &jumps,
                        &late),
            4)
      << c.output;
  EXPECT_EQ(bad_step, 0) << "the level stepped";
  EXPECT_EQ(bad_jump, 0) << "the place jumped while the force was not faded out";
  EXPECT_EQ(jumps, 4) << "every switch moves the place once";
  EXPECT_EQ(late, 0) << "not back at full level at the new place 12.5 ms after the switch";
}

TEST_F(ContactPlaceTest, TheGainAlongAContactTriangleEdgeFollowsTheModeShapeOnTheSurface) {
  // The bundled bar's first modes at 48 automatic points, with the shapes at every surface
  // vertex (--surface-data). Along each edge of each contact triangle whose two ends lie on one
  // face (their strike directions parallel, so the straight edge runs on the surface), the
  // header's gain g(u, v) at 1/4, 1/2, 3/4 of the way (a strike with the moving contact set there;
  // the bar has no listeners, so the contact microphone's gain is g squared) is the model's gains
  // at the ends interpolated, and follows the mode shape interpolated over the surface triangle
  // under that point: RMS within 10 % of the mode's largest surface gain, and at most half the
  // difference the same weights taken the wrong way round give.
  const fs::path json = dir / "bar.modal.json";
  const auto r = run("'" + kBin + "' -q modes '" + (kSource / "meshes/bar.obj").string() +
                     "' --material steel --modes 4 --element-order 1 --excite auto:48 --surface-data -o '" + json.string() + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto m = mesh2dsp::read_modal_model(json);
  ASSERT_TRUE(m.surface) << "no surface shapes";
  const auto& surface = *m.surface;
  const int modes = static_cast<int>(m.modes.size()), triangles = static_cast<int>(m.excitation_triangles.size());
  ASSERT_GE(triangles, 8);
  const auto g = generate(json, "--name bar --no-model-json --c bar.h");
  ASSERT_EQ(g.status, 0) << g.output;
  // The header's strike gains with the moving contact at (u, v) of triangle t, for every triangle
  // and the three edges' quarter points: "t edge k n gain".
  write_text(dir / "edges.c",
             "#include <stdio.h>\n#include \"bar.h\"\nstatic bar_state s;\n"
             "int main(void) {\n  float out; float* outs[1] = {&out}; int t, e, k, n;\n"
             "  bar_prepare(&s, 48000.0f);\n"
             "  for (t = 0; t < BAR_TRIANGLES; ++t) for (e = 0; e < 3; ++e) for (k = 1; k < 4; ++k) {\n"
             "    const float f = 0.25f * (float)k;\n"
             "    const float u = e == 0 ? f : (e == 1 ? 0.0f : 1.0f - f), v = e == 0 ? 0.0f : f;\n"
             "    bar_set_contact(&s, 1, t, u, v);\n"
             "    bar_strike(&s, 1.0f);\n    bar_process(&s, NULL, outs, 1);\n"
             "    for (n = 0; n < BAR_MODES; ++n) printf(\"%d %d %d %d %.9g\\n\", t, e, k, n, s.strike_gain[n]);\n"
             "  }\n  printf(\"at points\\n\");\n"
             "  for (n = 0; n < BAR_POINTS * BAR_MODES; ++n) printf(\"%.9g\\n\", bar_excite[n]);\n  return 0;\n}\n");
  const auto c = run("cd '" + dir.string() + "' && " + MESH2DSP_CC + " -std=c11 -O2 edges.c -o edges -lm && ./edges");
  ASSERT_EQ(c.status, 0) << c.output.substr(0, 2000);
  std::map<std::array<int, 4>, double> gain;
  std::istringstream lines(c.output);
  std::string line;
  while (std::getline(lines, line) && line != "at points") {
    int t, e, k, n;
    double value;
    ASSERT_EQ(std::sscanf(line.c_str(), "%d %d %d %d %lf", &t, &e, &k, &n, &value), 5) << line;
    gain[{t, e, k, n}] = value;
  }
  // The header's table is the model's gains times one normalisation.
  double table = 0, model = 0;
  for (int k = 0; k < static_cast<int>(m.excitations.size()); ++k)
    for (int n = 0; n < modes; ++n) {
      double value;
      ASSERT_TRUE(std::getline(lines, line));
      value = std::stod(line);
      if (std::abs(m.excitations[k].gains[n]) > std::abs(model)) model = m.excitations[k].gains[n], table = value;
    }
  const double normalization = table / model;
  // The mode shapes at p, interpolated over the surface triangle p lies on (none: empty).
  auto surface_gains = [&](const Eigen::Vector3d& p) -> std::vector<double> {
    for (int f = 0; f < surface.triangles.rows(); ++f) {
      const Eigen::Vector3d a = surface.positions.row(surface.triangles(f, 0)), b = surface.positions.row(surface.triangles(f, 1)),
                            cc = surface.positions.row(surface.triangles(f, 2));
      const Eigen::Vector3d n = (b - a).cross(cc - a);
      if (std::abs(n.normalized().dot(p - a)) > 1e-7) continue;
      const double area = n.squaredNorm();
      const double wb = n.dot((p - a).cross(cc - a)) / area, wc = n.dot((b - a).cross(p - a)) / area;
      if (wb < -1e-9 || wc < -1e-9 || wb + wc > 1 + 1e-9) continue;
      std::vector<double> out(modes);
      for (int j = 0; j < modes; ++j)
        out[j] = (1 - wb - wc) * surface.gains(surface.triangles(f, 0), j) + wb * surface.gains(surface.triangles(f, 1), j) +
                 wc * surface.gains(surface.triangles(f, 2), j);
      return out;
    }
    return {};
  };
  std::vector<double> largest(modes, 0);
  for (int n = 0; n < modes; ++n) largest[n] = surface.gains.col(n).cwiseAbs().maxCoeff();
  // Per mode: the squared differences, relative to the mode's largest surface gain, of |g| from
  // the header and from the same weights taken the wrong way round (second end first), against
  // the surface's |shape|.
  std::vector<double> error(modes, 0), reversed(modes, 0);
  int compared = 0;
  for (int t = 0; t < triangles; ++t)
    for (int e = 0; e < 3; ++e) {
      const auto& tri = m.excitation_triangles[t];
      const int from = e == 2 ? tri[1] : tri[0], to = e == 0 ? tri[1] : tri[2];
      const auto& a = m.excitations[from];
      const auto& b = m.excitations[to];
      if (a.direction.dot(b.direction) < 0.999) continue;  // over a corner of the bar
      for (int k = 1; k < 4; ++k) {
        const double f = 0.25 * k;
        const auto expected = surface_gains(a.position + f * (b.position - a.position));
        ASSERT_EQ(static_cast<int>(expected.size()), modes) << "triangle " << t << " edge " << e << ": off the surface";
        for (int n = 0; n < modes; ++n) {
          const double header = std::sqrt(std::max(0.0, gain[{t, e, k, n}])) / normalization;  // |g|
          // The header interpolates the model's gains at the edge's ends, at (u, v) as set (a
          // strike latches them unsmoothed), to float precision.
          EXPECT_NEAR(header, std::abs((1 - f) * a.gains[n] + f * b.gains[n]), 1e-5 * largest[n])
              << "triangle " << t << " edge " << e << " at " << f << " mode " << n;
          const double wrong = std::abs(f * a.gains[n] + (1 - f) * b.gains[n]);
          error[n] += std::pow((header - std::abs(expected[n])) / largest[n], 2);
          reversed[n] += std::pow((wrong - std::abs(expected[n])) / largest[n], 2);
        }
        ++compared;
      }
    }
  ASSERT_GE(compared, 30) << "too few edges on one face";
  for (int n = 0; n < modes; ++n) {
    const double rms = std::sqrt(error[n] / compared), rms_reversed = std::sqrt(reversed[n] / compared);
    std::printf("mode %d (%.0f Hz): RMS difference from the surface %.3f of its largest gain (reversed weights %.3f)\n",
                n, m.modes[n].frequency_hz, rms, rms_reversed);
    EXPECT_LT(rms, 0.1) << "mode " << n << ": the gain along the edges does not follow the surface's shape";
    EXPECT_LT(2 * rms, rms_reversed) << "mode " << n << ": no better than the weights taken the wrong way round";
  }
}

}  // namespace
}  // namespace emit_test
