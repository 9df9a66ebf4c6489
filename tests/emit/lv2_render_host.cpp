// A minimal LV2 host for the tests: loads bundles into one lilv world, provides urid:map (which
// Faust's LV2 plugins require and lv2apply lacks), instantiates the plugin of every bundle at
// once, feeds a unit impulse into each one's first audio input, and writes each one's audio
// outputs to a WAV file (libsndfile).
// Usage: lv2_render_host BUNDLE_DIR[,BUNDLE_DIR...] RATE SECONDS OUT.wav[,OUT.wav...] [SYMBOL=VALUE ...]
// Prints "plugin URI revision REV inputs N outputs M" per plugin.
#include <lilv/lilv.h>
#include <lv2/atom/atom.h>
#include <lv2/urid/urid.h>
#include <sndfile.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::map<std::string, LV2_URID> uris;

LV2_URID map_uri(LV2_URID_Map_Handle, const char* uri) {
  auto it = uris.find(uri);
  if (it != uris.end()) return it->second;
  const LV2_URID id = static_cast<LV2_URID>(uris.size() + 1);
  uris.emplace(uri, id);
  return id;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "lv2_render_host: %s\n", message.c_str());
  return 1;
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> items;
  std::istringstream in(list);
  for (std::string item; std::getline(in, item, ',');) items.push_back(item);
  return items;
}

constexpr uint32_t kBlock = 256;

// One instantiated plugin with its port buffers.
struct Running {
  LilvInstance* instance = nullptr;
  std::vector<std::vector<float>> buffers;
  std::vector<float> controls;
  std::vector<uint32_t> audio_in, audio_out;
  alignas(16) uint8_t atom_buffers[8][4096];
  SNDFILE* wav = nullptr;
};

// Connects every port; control ports take their defaults or `settings` (which keeps what was
// not found). Returns an error message or "".
std::string connect(LilvWorld* world, const LilvPlugin* plugin, Running& r, std::map<std::string, float>& settings,
                    std::map<std::string, float>& used) {
  LilvNode* audio = lilv_new_uri(world, LILV_URI_AUDIO_PORT);
  LilvNode* control = lilv_new_uri(world, LILV_URI_CONTROL_PORT);
  LilvNode* input = lilv_new_uri(world, LILV_URI_INPUT_PORT);
  LilvNode* atom = lilv_new_uri(world, LV2_ATOM__AtomPort);
  const uint32_t n_ports = lilv_plugin_get_num_ports(plugin);
  std::vector<float> defaults(n_ports, 0);
  r.controls.assign(n_ports, 0);
  lilv_plugin_get_port_ranges_float(plugin, nullptr, nullptr, defaults.data());
  r.buffers.assign(n_ports, std::vector<float>(kBlock, 0.0f));
  int atoms = 0;
  for (uint32_t i = 0; i < n_ports; ++i) {
    const LilvPort* port = lilv_plugin_get_port_by_index(plugin, i);
    const bool is_input = lilv_port_is_a(plugin, port, input);
    if (lilv_port_is_a(plugin, port, audio)) {
      (is_input ? r.audio_in : r.audio_out).push_back(i);
      lilv_instance_connect_port(r.instance, i, r.buffers[i].data());
    } else if (lilv_port_is_a(plugin, port, control)) {
      const std::string symbol = lilv_node_as_string(lilv_port_get_symbol(plugin, port));
      r.controls[i] = std::isnan(defaults[i]) ? 0.0f : defaults[i];
      // "gain" matches the symbol "gain" or faust2lv2's "gain_<index>".
      for (const auto& [key, value] : settings) {
        const bool indexed = symbol.size() > key.size() + 1 && symbol.compare(0, key.size() + 1, key + "_") == 0 &&
                             symbol.find_first_not_of("0123456789", key.size() + 1) == std::string::npos;
        if (symbol == key || indexed) {
          r.controls[i] = value;
          used[key] = value;
          break;
        }
      }
      lilv_instance_connect_port(r.instance, i, &r.controls[i]);
    } else if (lilv_port_is_a(plugin, port, atom) && atoms < 8) {
      // An empty sequence on inputs; room for the plugin to write on outputs.
      auto* seq = reinterpret_cast<LV2_Atom_Sequence*>(r.atom_buffers[atoms++]);
      seq->atom.size = is_input ? sizeof(LV2_Atom_Sequence_Body) : 4096 - sizeof(LV2_Atom);
      seq->atom.type = map_uri(nullptr, is_input ? LV2_ATOM__Sequence : LV2_ATOM__Chunk);
      seq->body.unit = 0;
      seq->body.pad = 0;
      lilv_instance_connect_port(r.instance, i, seq);
    } else {
      lilv_instance_connect_port(r.instance, i, nullptr);
    }
  }
  for (LilvNode* n : {audio, control, input, atom}) lilv_node_free(n);
  return r.audio_out.empty() ? "the plugin has no audio output" : "";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) return fail("usage: BUNDLE_DIR[,...] RATE SECONDS OUT.wav[,...] [SYMBOL=VALUE ...]");
  const std::vector<std::string> bundles = split(argv[1]), outputs = split(argv[4]);
  if (bundles.empty() || bundles.size() != outputs.size()) return fail("one OUT.wav per bundle");
  const double rate = std::atof(argv[2]);
  const long total = static_cast<long>(std::atof(argv[3]) * rate);
  std::map<std::string, float> settings, used;
  for (int i = 5; i < argc; ++i) {
    const char* eq = std::strchr(argv[i], '=');
    if (!eq) return fail(std::string("bad control setting ") + argv[i]);
    settings[std::string(argv[i], static_cast<size_t>(eq - argv[i]))] = static_cast<float>(std::atof(eq + 1));
  }

  // Every bundle into the one world first: the plugins must not shadow each other.
  LilvWorld* world = lilv_world_new();
  std::vector<LilvNode*> bundle_uris;
  for (std::string bundle : bundles) {
    if (bundle.back() != '/') bundle += '/';
    bundle_uris.push_back(lilv_new_file_uri(world, nullptr, bundle.c_str()));
    lilv_world_load_bundle(world, bundle_uris.back());
  }
  const LilvPlugins* plugins = lilv_world_get_all_plugins(world);
  LilvNode* revision = lilv_new_uri(world, "http://usefulinc.com/ns/doap#revision");
  LV2_URID_Map map{nullptr, map_uri};
  LV2_Feature map_feature{LV2_URID__map, &map};
  const LV2_Feature* features[] = {&map_feature, nullptr};
  std::vector<std::unique_ptr<Running>> running;
  for (size_t b = 0; b < bundles.size(); ++b) {
    const LilvPlugin* plugin = nullptr;
    LILV_FOREACH(plugins, it, plugins) {
      const LilvPlugin* p = lilv_plugins_get(plugins, it);
      if (lilv_node_equals(lilv_plugin_get_bundle_uri(p), bundle_uris[b])) plugin = p;
    }
    if (!plugin) return fail("no plugin of its own in " + bundles[b]);
    auto r = std::make_unique<Running>();
    r->instance = lilv_plugin_instantiate(plugin, rate, features);
    if (!r->instance) return fail("cannot instantiate the plugin of " + bundles[b]);
    const std::string error = connect(world, plugin, *r, settings, used);
    if (!error.empty()) return fail(error + " (" + bundles[b] + ")");
    SF_INFO info{};
    info.samplerate = static_cast<int>(rate);
    info.channels = static_cast<int>(r->audio_out.size());
    info.format = SF_FORMAT_WAV | SF_FORMAT_FLOAT;
    r->wav = sf_open(outputs[b].c_str(), SFM_WRITE, &info);
    if (!r->wav) return fail("cannot write " + outputs[b]);
    LilvNodes* revisions = lilv_plugin_get_value(plugin, revision);
    const LilvNode* first = revisions ? lilv_nodes_get_first(revisions) : nullptr;
    std::printf("plugin %s revision %s inputs %zu outputs %zu\n", lilv_node_as_uri(lilv_plugin_get_uri(plugin)),
                first ? lilv_node_as_string(first) : "-", r->audio_in.size(), r->audio_out.size());
    lilv_nodes_free(revisions);
    running.push_back(std::move(r));
  }
  for (const auto& [key, value] : settings)
    if (!used.count(key)) return fail("no control port named " + key);

  for (auto& r : running) lilv_instance_activate(r->instance);
  for (long done = 0; done < total; done += kBlock)
    for (auto& r : running) {
      for (uint32_t i : r->audio_in) std::fill(r->buffers[i].begin(), r->buffers[i].end(), 0.0f);
      if (done == 0 && !r->audio_in.empty()) r->buffers[r->audio_in[0]][0] = 1.0f;
      lilv_instance_run(r->instance, kBlock);
      const size_t channels = r->audio_out.size();
      std::vector<float> frame(kBlock * channels);
      for (uint32_t m = 0; m < kBlock; ++m)
        for (size_t c = 0; c < channels; ++c) frame[m * channels + c] = r->buffers[r->audio_out[c]][m];
      sf_writef_float(r->wav, frame.data(), kBlock);
    }
  for (auto& r : running) {
    lilv_instance_deactivate(r->instance);
    sf_close(r->wav);
    lilv_instance_free(r->instance);
  }
  for (LilvNode* n : bundle_uris) lilv_node_free(n);
  lilv_node_free(revision);
  lilv_world_free(world);
  return 0;
}
