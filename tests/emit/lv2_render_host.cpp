// A minimal LV2 host for the tests: loads one bundle with lilv, provides urid:map (which
// Faust's LV2 plugins require and lv2apply lacks), feeds a unit impulse into the first audio
// input, and writes every audio output to a WAV file (libsndfile).
// Usage: lv2_render_host BUNDLE_DIR RATE SECONDS OUT.wav [SYMBOL=VALUE ...]
#include <lilv/lilv.h>
#include <lv2/atom/atom.h>
#include <lv2/urid/urid.h>
#include <sndfile.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) return fail("usage: BUNDLE_DIR RATE SECONDS OUT.wav [SYMBOL=VALUE ...]");
  std::string bundle = argv[1];
  if (bundle.back() != '/') bundle += '/';
  const double rate = std::atof(argv[2]);
  const long total = static_cast<long>(std::atof(argv[3]) * rate);
  std::map<std::string, float> settings;
  for (int i = 5; i < argc; ++i) {
    const char* eq = std::strchr(argv[i], '=');
    if (!eq) return fail(std::string("bad control setting ") + argv[i]);
    settings[std::string(argv[i], static_cast<size_t>(eq - argv[i]))] = static_cast<float>(std::atof(eq + 1));
  }

  LilvWorld* world = lilv_world_new();
  LilvNode* bundle_uri = lilv_new_file_uri(world, nullptr, bundle.c_str());
  lilv_world_load_bundle(world, bundle_uri);
  const LilvPlugins* plugins = lilv_world_get_all_plugins(world);
  const LilvPlugin* plugin = nullptr;
  LILV_FOREACH(plugins, it, plugins) {
    const LilvPlugin* p = lilv_plugins_get(plugins, it);
    if (lilv_node_equals(lilv_plugin_get_bundle_uri(p), bundle_uri)) plugin = p;
  }
  if (!plugin) return fail("no plugin in " + bundle);

  LV2_URID_Map map{nullptr, map_uri};
  LV2_Feature map_feature{LV2_URID__map, &map};
  const LV2_Feature* features[] = {&map_feature, nullptr};
  LilvInstance* instance = lilv_plugin_instantiate(plugin, rate, features);
  if (!instance) return fail("cannot instantiate the plugin");

  LilvNode* audio = lilv_new_uri(world, LILV_URI_AUDIO_PORT);
  LilvNode* control = lilv_new_uri(world, LILV_URI_CONTROL_PORT);
  LilvNode* input = lilv_new_uri(world, LILV_URI_INPUT_PORT);
  LilvNode* atom = lilv_new_uri(world, LV2_ATOM__AtomPort);
  const uint32_t n_ports = lilv_plugin_get_num_ports(plugin);
  std::vector<float> defaults(n_ports, 0), controls(n_ports, 0);
  lilv_plugin_get_port_ranges_float(plugin, nullptr, nullptr, defaults.data());
  const uint32_t block = 256;
  std::vector<std::vector<float>> buffers(n_ports, std::vector<float>(block, 0.0f));
  std::vector<uint32_t> audio_in, audio_out;
  alignas(16) static uint8_t atom_buffers[8][4096];
  int atoms = 0;
  for (uint32_t i = 0; i < n_ports; ++i) {
    const LilvPort* port = lilv_plugin_get_port_by_index(plugin, i);
    const bool is_input = lilv_port_is_a(plugin, port, input);
    if (lilv_port_is_a(plugin, port, audio)) {
      (is_input ? audio_in : audio_out).push_back(i);
      lilv_instance_connect_port(instance, i, buffers[i].data());
    } else if (lilv_port_is_a(plugin, port, control)) {
      const std::string symbol = lilv_node_as_string(lilv_port_get_symbol(plugin, port));
      controls[i] = std::isnan(defaults[i]) ? 0.0f : defaults[i];
      // "gain" matches the symbol "gain" or faust2lv2's "gain_<index>".
      for (auto s = settings.begin(); s != settings.end(); ++s) {
        const std::string& key = s->first;
        const bool indexed = symbol.size() > key.size() + 1 && symbol.compare(0, key.size() + 1, key + "_") == 0 &&
                             symbol.find_first_not_of("0123456789", key.size() + 1) == std::string::npos;
        if (symbol == key || indexed) {
          controls[i] = s->second;
          settings.erase(s);
          break;
        }
      }
      lilv_instance_connect_port(instance, i, &controls[i]);
    } else if (lilv_port_is_a(plugin, port, atom) && atoms < 8) {
      // An empty sequence on inputs; room for the plugin to write on outputs.
      auto* seq = reinterpret_cast<LV2_Atom_Sequence*>(atom_buffers[atoms++]);
      seq->atom.size = is_input ? sizeof(LV2_Atom_Sequence_Body) : 4096 - sizeof(LV2_Atom);
      seq->atom.type = map_uri(nullptr, is_input ? LV2_ATOM__Sequence : LV2_ATOM__Chunk);
      seq->body.unit = 0;
      seq->body.pad = 0;
      lilv_instance_connect_port(instance, i, seq);
    } else {
      lilv_instance_connect_port(instance, i, nullptr);
    }
  }
  if (!settings.empty()) return fail("no control port named " + settings.begin()->first);
  if (audio_out.empty()) return fail("the plugin has no audio output");

  SF_INFO info{};
  info.samplerate = static_cast<int>(rate);
  info.channels = static_cast<int>(audio_out.size());
  info.format = SF_FORMAT_WAV | SF_FORMAT_FLOAT;
  SNDFILE* wav = sf_open(argv[4], SFM_WRITE, &info);
  if (!wav) return fail(std::string("cannot write ") + argv[4]);

  lilv_instance_activate(instance);
  std::vector<float> frame(block * audio_out.size());
  for (long done = 0; done < total; done += block) {
    for (uint32_t i : audio_in) std::fill(buffers[i].begin(), buffers[i].end(), 0.0f);
    if (done == 0 && !audio_in.empty()) buffers[audio_in[0]][0] = 1.0f;
    lilv_instance_run(instance, block);
    for (uint32_t m = 0; m < block; ++m)
      for (size_t c = 0; c < audio_out.size(); ++c) frame[m * audio_out.size() + c] = buffers[audio_out[c]][m];
    sf_writef_float(wav, frame.data(), block);
  }
  lilv_instance_deactivate(instance);
  sf_close(wav);
  lilv_instance_free(instance);
  lilv_world_free(world);
  std::printf("inputs %zu outputs %zu\n", audio_in.size(), audio_out.size());
  return 0;
}
