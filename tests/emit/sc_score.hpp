#pragma once
// Just enough SuperCollider for the tests, without sclang: a SynthDef file (SCgf version 2, the
// "Synth Definition File Format" of the SuperCollider reference) that plays one UGen with constant
// inputs into Out.ar(0), and a non-real-time score (OSC bundles, each preceded by its size) that
// loads it, starts a synth and ends at a given time.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace emit_test {

class Bytes {
 public:
  Bytes& i8(int v) { return put(static_cast<uint8_t>(v)); }
  Bytes& i16(int v) { return put(static_cast<uint8_t>(v >> 8)).put(static_cast<uint8_t>(v)); }
  Bytes& i32(int64_t v) { return i16(static_cast<int>(v >> 16) & 0xffff).i16(static_cast<int>(v) & 0xffff); }
  Bytes& u64(uint64_t v) { return i32(static_cast<int64_t>(v >> 32)).i32(static_cast<int64_t>(v & 0xffffffffu)); }
  Bytes& f32(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return i32(bits);
  }
  Bytes& pstring(const std::string& s) {  // length byte, then the characters
    i8(static_cast<int>(s.size()));
    text += s;
    return *this;
  }
  Bytes& osc_string(const std::string& s) {  // NUL-terminated, padded to 4 bytes
    text += s;
    do text += '\0';
    while (text.size() % 4);
    return *this;
  }
  Bytes& blob(const std::string& b) {
    i32(static_cast<int64_t>(b.size()));
    text += b;
    while (text.size() % 4) text += '\0';
    return *this;
  }
  Bytes& raw(const std::string& b) {
    text += b;
    return *this;
  }
  std::string text;

 private:
  Bytes& put(uint8_t c) {
    text += static_cast<char>(c);
    return *this;
  }
};

// SynthDef `name`: ugen.ar(inputs...) with `outputs` audio outputs, into Out.ar(0, ...).
inline std::string synthdef(const std::string& name, const std::string& ugen, const std::vector<float>& inputs,
                            int outputs) {
  Bytes d;
  d.raw("SCgf").i32(2).i16(1).pstring(name);
  d.i32(static_cast<int64_t>(inputs.size()) + 1);  // constants: the inputs, then bus 0
  for (float v : inputs) d.f32(v);
  d.f32(0.0f);
  d.i32(0).i32(0);  // no parameters, no parameter names
  d.i32(2);         // two UGens
  const int audio = 2;
  d.pstring(ugen).i8(audio).i32(static_cast<int64_t>(inputs.size())).i32(outputs).i16(0);
  for (size_t k = 0; k < inputs.size(); ++k) d.i32(-1).i32(static_cast<int64_t>(k));
  for (int o = 0; o < outputs; ++o) d.i8(audio);
  d.pstring("Out").i8(audio).i32(1 + outputs).i32(0).i16(0);
  d.i32(-1).i32(static_cast<int64_t>(inputs.size()));
  for (int o = 0; o < outputs; ++o) d.i32(0).i32(o);
  d.i16(0);  // no variants
  return d.text;
}

// An OSC message: address, type tags, arguments already encoded.
inline std::string osc_message(const std::string& address, const std::string& tags, const Bytes& args) {
  return Bytes().osc_string(address).osc_string("," + tags).raw(args.text).text;
}

// One NRT score entry: a bundle at `time_s` (NTP fixed point) with the messages, size first.
inline std::string score_bundle(double time_s, const std::vector<std::string>& messages) {
  Bytes bundle;
  bundle.osc_string("#bundle").u64(static_cast<uint64_t>(time_s * 4294967296.0));
  for (const auto& m : messages) bundle.i32(static_cast<int64_t>(m.size())).raw(m);
  return Bytes().i32(static_cast<int64_t>(bundle.text.size())).raw(bundle.text).text;
}

// Loads the SynthDef and starts one synth of it at time 0; the score ends at `seconds`.
inline std::string one_synth_score(const std::string& def_name, const std::string& def_bytes, double seconds) {
  const std::string load = osc_message("/d_recv", "b", Bytes().blob(def_bytes));
  const std::string start = osc_message("/s_new", "siii", Bytes().osc_string(def_name).i32(1000).i32(0).i32(0));
  const std::string end = osc_message("/c_set", "if", Bytes().i32(0).f32(0.0f));
  return score_bundle(0, {load, start}) + score_bundle(seconds, {end});
}

}  // namespace emit_test
