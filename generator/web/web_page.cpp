#include "web/web_page.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "emit/emit_model.hpp"
#include "modal/surface_shapes.hpp"
#include "util/atomic_file.hpp"
#include "util/base64.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp {
namespace fs = std::filesystem;

namespace {

// The built page (web/build.mjs), found where the build put it.
constexpr const char* kAssets[] = {"app.js", "faust.js", "index.html"};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read {}", path.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::uintmax_t folder_bytes(const fs::path& dir) {
  std::uintmax_t total = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) total += entry.file_size();
  return total;
}

}  // namespace

fs::path web_assets_dir() {
  // An installed binary finds the page beside itself (<prefix>/bin -> <prefix>/share/mesh2dsp/web,
  // wherever the tree was installed or moved); a binary in the build folder, or a program linking
  // this library, where the build put it.
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = (exe.parent_path() / MESH2DSP_WEB_ASSETS_FROM_BINARY).lexically_normal();
    if (std::all_of(std::begin(kAssets), std::end(kAssets),
                    [&](const char* name) { return fs::exists(installed / name, ec); }))
      return installed;
  }
  const fs::path dir = MESH2DSP_WEB_ASSETS;
  for (const char* name : kAssets)
    if (!fs::exists(dir / name))
      throw Error(fmt::format(
          "the browser page is not built ({} is missing): install its JavaScript with "
          "scripts/setup.sh (npm ci in web/) and build again",
          (dir / name).string()));
  return dir;
}

WebPage write_web_page(const ModalModel& model, const fs::path& dir, const EmitSettings& settings) {
  if (!model.surface)
    throw Error(
        "the model carries no surface data, which the page needs: analyse the mesh with `mesh2dsp "
        "modes MESH --surface-data -o M.modal.json`, or give `view` the mesh itself");
  const fs::path assets = web_assets_dir();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir, ec))
    throw Error(fmt::format("cannot write the page: {} is not a directory", dir.string()));

  // The page reads back exactly the sidecar bytes written beside the model, and the program it
  // plays is emitted from those same (float32) gains: what it computes for a click and what the
  // program does at that contact cannot drift apart.
  const EmitModel emit = make_emit_model(model);
  const std::string surface_bytes = encode_surface_shapes(*model.surface);
  const fs::path bin_path = dir / (emit.name + ".surface.bin");
  const SurfaceShapes surface = [&] {
    write_file_atomically(bin_path, [&](std::ostream& out) {
      out.write(surface_bytes.data(), static_cast<std::streamsize>(surface_bytes.size()));
    });
    return read_surface_shapes(bin_path, static_cast<int>(model.modes.size()));
  }();
  const ModalModel strike_anywhere = surface_excitation_model(model, surface);
  // The program carries one gain per surface vertex and mode, compiled in the browser: fine for
  // the bundled meshes (the bowl's 1570 × 29 take faustwasm about 12 s), slow beyond.
  const double table_entries = double(surface.vertex_count()) * surface.mode_count();
  if (table_entries > 2e5)
    notice(fmt::format(
        "the page's program holds {} surface vertices x {} modes of gains: faustwasm may take a "
        "minute or more to compile it (fewer --modes or a coarser --surface-edge make it quicker)",
        surface.vertex_count(), surface.mode_count()));
  const EmitModel emit_surface = make_emit_model(strike_anywhere, emit.name + "_surface");

  EmitSettings s = settings;
  s.file_name = emit.name + ".dsp";
  const std::string shipped_dsp = emit_faust(emit, FaustVariant::instrument, s);
  // Every contact model but the live input (the page has no audio input to give it).
  s.excitations = {"impact", "hammer", "micro", "scrape", "roll"};
  s.file_name = emit.name + "_surface.dsp";
  const std::string surface_dsp = emit_faust(emit_surface, FaustVariant::instrument, s);

  ModalModel with_file = model;
  with_file.surface_file = bin_path.filename().string();
  const std::string model_json = modal_model_to_json(with_file);

  nlohmann::ordered_json data;
  data["name"] = emit.name;
  data["model"] = nlohmann::json::parse(model_json);
  data["surface"] = base64(surface_bytes);
  data["dspFile"] = s.file_name;
  data["dsp"] = surface_dsp;
  data["shippedDspFile"] = emit.name + ".dsp";
  data["shippedDsp"] = shipped_dsp;
  data["level"] = emit_surface.normalization;
  // A classic script, not JSON fetched at run time: a page opened from file:// may not fetch.
  const std::string data_js = "window.M2D_DATA = " + data.dump() + ";\n";

  write_text_atomically(dir / (emit.name + ".modal.json"), model_json);
  write_text_atomically(dir / (emit.name + ".dsp"), shipped_dsp);
  write_text_atomically(dir / s.file_name, surface_dsp);
  write_text_atomically(dir / "data.js", data_js);
  for (const char* name : kAssets)  // index.html last: a folder without it was not finished
    write_text_atomically(dir / name, read_file(assets / name));
  WebPage page;
  page.index = dir / "index.html";
  page.surface_dsp = s.file_name;
  page.bytes = folder_bytes(dir);
  return page;
}

namespace {

volatile std::sig_atomic_t g_stop = 0;
void stop_serving(int) { g_stop = 1; }

std::string content_type(const fs::path& path) {
  const std::string ext = path.extension().string();
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".js") return "text/javascript; charset=utf-8";
  if (ext == ".json") return "application/json";
  if (ext == ".png") return "image/png";
  if (ext == ".dsp" || ext == ".txt") return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

void send_all(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;  // the browser went away: nothing to do
    sent += static_cast<size_t>(n);
  }
}

void answer(int fd, const fs::path& root) {
  std::string request;
  char buffer[4096];
  while (request.find("\r\n\r\n") == std::string::npos && request.size() < 65536) {
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return;
    request.append(buffer, static_cast<size_t>(n));
  }
  std::istringstream line(request.substr(0, request.find("\r\n")));
  std::string method, target;
  line >> method >> target;
  target = target.substr(0, target.find_first_of("?#"));
  if (target == "/" || target.empty()) target = "/index.html";
  const fs::path relative = fs::path(target.substr(1)).lexically_normal();
  const bool inside = !relative.empty() && *relative.begin() != ".." && relative.is_relative();
  const fs::path file = root / relative;
  std::error_code ec;
  if (method != "GET" && method != "HEAD") {
    send_all(fd, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    return;
  }
  if (!inside || !fs::is_regular_file(file, ec)) {
    send_all(fd, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    return;
  }
  const std::string body = read_file(file);
  send_all(fd, fmt::format("HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\n"
                           "Cache-Control: no-cache\r\nConnection: close\r\n\r\n",
                           content_type(file), body.size()));
  if (method == "GET") send_all(fd, body);
}

}  // namespace

void serve_directory(const fs::path& dir, int port,
                     const std::function<void(const std::string&)>& on_listening) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw Error("--serve: cannot open a socket");
  const int yes = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // this machine only
  address.sin_port = htons(static_cast<uint16_t>(port));
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || listen(fd, 16) != 0) {
    close(fd);
    throw Error(fmt::format("--serve: cannot listen on 127.0.0.1:{} (in use? try --port)", port));
  }
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  on_listening(fmt::format("http://127.0.0.1:{}/", ntohs(address.sin_port)));
  // Without SA_RESTART, so a signal ends the blocking accept() and the loop.
  struct sigaction action {};
  action.sa_handler = stop_serving;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  const fs::path root = fs::canonical(dir);
  while (!g_stop) {
    const int client = accept(fd, nullptr, nullptr);
    if (client < 0) continue;  // interrupted by a signal: the loop condition decides
    try {
      answer(client, root);
    } catch (const Error&) {
      // A file that vanished between the check and the read: the browser sees the cut.
    }
    close(client);
  }
  close(fd);
}

}  // namespace mesh2dsp
