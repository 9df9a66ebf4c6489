// Where the forces enter the modes, for the emitted header (its C functions) and Faust's C++ of the
// same instrument (faust -lang cpp, class FaustModel), driven alike. Built by contact_place_test.cpp:
//   -DMODEL=testbar -DMODEL_UPPER=TESTBAR -DMODEL_HEADER="testbar.hpp" -DFAUST_CLASS_FILE="x.cpp"
//   -DDELAYED=0|1 (the header has the listeners' interaural delay: output l is late by k + 1 samples)
// Usage: place_harness latch|click|reference <glide|contact>
//   latch      a strike at point 0 rings 0.2 s; then the place moves to point B (the glide to 1, or
//              the contact's u to 1) and it rings 1 s more; the same strike without the move.
//              Prints "latch <engine> max_diff <d> peak <p>" over the samples after the move.
//   click      a strike at point 0; while it rings, the moving contact is switched on, its
//              triangle changed (when there are several) and switched off again; the same strike
//              untouched. Prints "click <engine> step <largest step toggled> untoggled <largest step>".
//   reference  the live input's impulses at three places the position moves through (glide, or
//              the contact's (u, v)), against the sum of the modes' responses computed here from
//              the model's mode shapes at those places. Prints "reference <engine> max_diff <d> peak <p>".
// Only the header's C API and tables common to its versions are used.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include MODEL_HEADER
#include FAUST_CLASS_FILE

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define FN(x) CAT(MODEL, CAT(_, x))
#define K(x) CAT(MODEL_UPPER, CAT(_, x))

namespace {

constexpr int kRate = 48000;
constexpr int kOut = K(OUTPUTS);

// One instrument: the header or Faust, with the controls the scenarios use.
struct Engine {
  virtual ~Engine() = default;
  virtual void strike(int point, float glide) = 0;  // momentum 1 N s
  virtual void glide(float g) = 0;
  virtual void contact(bool on, int triangle, float u, float v) = 0;
  virtual void excitation(int kind) = 0;
  // n samples of output 0.. into out[l] (appended); in: the live input or nullptr.
  virtual void process(const float* in, int n, std::vector<float>* out) = 0;
};

struct Header : Engine {
  static FN(state) s;  // large: static
  Header() { FN(prepare)(&s, (float)kRate); }
  void strike(int point, float glide) override { FN(strike_at)(&s, (float)point + glide, 1.0f); }
  void glide(float g) override { FN(set_glide)(&s, g); }
  void contact(bool on, int triangle, float u, float v) override { FN(set_contact)(&s, on ? 1 : 0, triangle, u, v); }
  void excitation(int kind) override { FN(set_excitation)(&s, kind); }
  void process(const float* in, int n, std::vector<float>* out) override {
    std::vector<float> buffers[kOut];
    float* outs[kOut];
    for (int l = 0; l < kOut; ++l) buffers[l].resize(n), outs[l] = buffers[l].data();
    FN(process)(&s, in, outs, n);
    for (int l = 0; l < kOut; ++l) out[l].insert(out[l].end(), buffers[l].begin(), buffers[l].end());
  }
};
FN(state) Header::s;

struct Faust : Engine {
  FaustModel dsp;
  MapUI ui;
  Faust() {
    dsp.init(kRate);
    dsp.buildUserInterface(&ui);
  }
  void strike(int point, float glide) override {
    ui.setParamValue("excitation point", (float)point);
    ui.setParamValue("position glide", glide);
    ui.setParamValue("gate", 1.0f);
  }
  void glide(float g) override { ui.setParamValue("position glide", g); }
  void contact(bool on, int triangle, float u, float v) override {
    ui.setParamValue("moving contact", on ? 1.0f : 0.0f);
    ui.setParamValue("contact triangle", (float)triangle);
    ui.setParamValue("contact u", u);
    ui.setParamValue("contact v", v);
  }
  void excitation(int kind) override { ui.setParamValue("excitation", (float)kind); }
  void process(const float* in, int n, std::vector<float>* out) override {
    std::vector<float> buffers[kOut], zeros(n, 0.0f);
    float* outs[kOut];
    for (int l = 0; l < kOut; ++l) buffers[l].resize(n), outs[l] = buffers[l].data();
    float* ins[1] = {const_cast<float*>(in ? in : zeros.data())};
    dsp.compute(n, ins, outs);
    for (int l = 0; l < kOut; ++l) out[l].insert(out[l].end(), buffers[l].begin(), buffers[l].end());
  }
};

double peak_of(const std::vector<float>* y, size_t from) {
  double p = 0;
  for (int l = 0; l < kOut; ++l)
    for (size_t i = from; i < y[l].size(); ++i) p = std::fmax(p, std::fabs(y[l][i]));
  return p;
}

double diff_of(const std::vector<float>* a, const std::vector<float>* b, size_t from) {
  double d = 0;
  for (int l = 0; l < kOut; ++l)
    for (size_t i = from; i < a[l].size() && i < b[l].size(); ++i) d = std::fmax(d, std::fabs(a[l][i] - b[l][i]));
  return d;
}

double largest_step(const std::vector<float>* y, size_t from) {
  double s = 0;
  for (int l = 0; l < kOut; ++l)
    for (size_t i = from + 1; i < y[l].size(); ++i) s = std::fmax(s, std::fabs(y[l][i] - y[l][i - 1]));
  return s;
}

// A strike at point 0 that rings 0.2 s, then (moved) the place goes to point B, then 1 s more.
void latch(Engine& e, bool contact, bool moved, std::vector<float>* y) {
  if (contact) e.contact(true, 0, 0.0f, 0.0f);
  e.strike(0, 0.0f);
  e.process(nullptr, kRate / 5, y);
  if (moved) {
    if (contact) e.contact(true, 0, 1.0f, 0.0f);
    else e.glide(1.0f);
  }
  e.process(nullptr, kRate, y);
}

// A strike at point 0; while it rings the moving contact goes on, changes triangle and goes off.
void click(Engine& e, bool toggled, std::vector<float>* y) {
  e.strike(0, 0.0f);
  e.process(nullptr, kRate / 10, y);
  const int last = K(TRIANGLES) - 1;
  const int steps[][2] = {{1, 0}, {1, last}, {0, last}, {1, last / 2}, {0, 0}};  // {on, triangle}
  for (const auto& step : steps) {
    if (toggled) e.contact(step[0] != 0, step[1], 0.3f, 0.3f);
    e.process(nullptr, kRate / 10, y);
  }
}

// The places the reference scenario moves through: a point and glide, or a triangle's (u, v).
struct Place {
  float glide, u, v;
};

// Input gain of mode n at a place (the header's tables: the model's normalised shapes).
double shape_at(int n, bool contact, const Place& p) {
  auto phi = [&](int k) { return (double)FN(excite)[(long)k * K(MODES) + n]; };
  if (!contact) return phi(0) + p.glide * (phi(1) - phi(0));
  const int* t = FN(triangle)[0];
  return phi(t[0]) + p.u * (phi(t[1]) - phi(t[0])) + p.v * (phi(t[2]) - phi(t[0]));
}

void reference_scenario(Engine& e, bool contact, const Place* places, const int* at, int impulses, int total,
                        std::vector<float>* y) {
  std::vector<float> in(total, 0.0f);
  for (int i = 0; i < impulses; ++i) in[at[i]] = 1.0f;
  e.excitation(K(EXCITE_INPUT));
  if (contact) e.contact(true, 0, places[0].u, places[0].v);
  else e.glide(places[0].glide);
  int done = 0;
  for (int i = 0; i < impulses; ++i) {
    // Each place is set 0.4 s before its impulse (its 10 ms smoother has long settled) and held
    // until 0.1 s after it.
    const int set_at = i == 0 ? 0 : at[i - 1] + kRate / 10;
    if (set_at > done) e.process(in.data() + done, set_at - done, y), done = set_at;
    if (contact) e.contact(true, 0, places[i].u, places[i].v);
    else e.glide(places[i].glide);
  }
  e.process(in.data() + done, total - done, y);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const std::string what = argv[1];
  const bool contact = std::strcmp(argv[2], "contact") == 0;
  if (contact && K(TRIANGLES) == 0) {
    std::printf("no contact triangles\n");
    return 2;
  }
  for (int engine = 0; engine < 2; ++engine) {
    const char* name = engine == 0 ? "header" : "faust";
    auto make = [&]() -> Engine* { return engine == 0 ? (Engine*)new Header : (Engine*)new Faust; };
    std::vector<float> a[kOut], b[kOut];
    if (what == "latch") {
      Engine* x = make();
      latch(*x, contact, true, a);
      delete x;
      x = make();
      latch(*x, contact, false, b);
      delete x;
      std::printf("latch %s max_diff %.9g peak %.9g\n", name, diff_of(a, b, kRate / 5), peak_of(b, kRate / 5));
    } else if (what == "click") {
      Engine* x = make();
      click(*x, true, a);
      delete x;
      x = make();
      click(*x, false, b);
      delete x;
      std::printf("click %s step %.9g untoggled %.9g\n", name, largest_step(a, kRate / 20), largest_step(b, kRate / 20));
    } else if (what == "reference") {
      const Place places[3] = {{0.25f, 0.2f, 0.1f}, {0.75f, 0.6f, 0.3f}, {1.0f, 0.1f, 0.7f}};
      const int at[3] = {kRate / 2, kRate / 2 + kRate / 2, 3 * kRate / 2}, total = 2 * kRate;
      Engine* x = make();
      reference_scenario(*x, contact, places, at, 3, total, a);
      delete x;
      // The reference: each mode's coupled-form recursion as the header prepared it (pole, and
      // velocity = re - kv im), in double, fed the impulses' momentum (input gain x 1 / rate) times
      // the mode's shape at the impulse's place (squared for the contact microphone, which picks a
      // force up where it entered); the output is every mode's velocity times its pickup, times
      // the gain and level.
      const FN(state)& s = Header::s;
      const double momentum = (double)s.input_gain_target / kRate, out_gain = (double)s.gain_target * s.level;
      for (int l = 0; l < kOut; ++l) b[l].assign(total, 0.0f);
      for (int n = 0; n < K(MODES); ++n) {
        double re = 0, im = 0;
        std::vector<double> v(total);
        for (int m = 0, i = 0; m < total; ++m) {
          double x_in = 0;
          if (i < 3 && m == at[i]) {
            const double g = shape_at(n, contact, places[i]);
            x_in = momentum * (K(CONTACT_MIC) ? g * g : g);
            ++i;
          }
          const double next_re = s.ca[n] * re - s.sb[n] * im + x_in, next_im = s.sb[n] * re + s.ca[n] * im;
          re = next_re, im = next_im;
          v[m] = re - s.kv[n] * im;
        }
        for (int l = 0; l < kOut; ++l) {
          const double pickup = K(CONTACT_MIC) ? 1.0 : (double)FN(pickup)[(long)l * K(MODES) + n];
          const int late = DELAYED ? s.delay_k[l] + 1 : 0;  // only outputs with a whole-sample delay are compared
          for (int m = late; m < total; ++m) b[l][m] += (float)(out_gain * pickup * v[m - late]);
        }
      }
      if (DELAYED)
        for (int l = 0; l < kOut; ++l)
          if (s.delay_a[l] != 0.0f) a[l].clear(), b[l].clear();  // a fractional delay: not compared
      std::printf("reference %s max_diff %.9g peak %.9g\n", name, diff_of(a, b, 0), peak_of(b, 0));
    } else {
      return 2;
    }
  }
  return 0;
}
