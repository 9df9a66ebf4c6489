#include "support.hpp"

#include "support/jack_registry.hpp"

#include <fcntl.h>
#include <fftw3.h>
#include <jack/midiport.h>
#include <poll.h>
#include <signal.h>
#include <sndfile.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace rt_test {
namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

pid_t spawn(const std::vector<std::string>& argv, const fs::path& out, const fs::path& err,
            int* to_child = nullptr, int* from_child = nullptr, int* to_stdin = nullptr) {
  int down[2] = {-1, -1}, up[2] = {-1, -1}, keys[2] = {-1, -1};
  if (to_child && (pipe(down) != 0 || pipe(up) != 0)) throw std::runtime_error("pipe failed");
  if (to_stdin && pipe(keys) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    setpgid(0, 0);
    const int in = to_stdin ? keys[0] : open("/dev/null", O_RDONLY);
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(in, 0);
    dup2(o, 1);
    dup2(e, 2);
    if (to_child) {
      // Move out of the way first: the pipe ends may themselves be 3 or 4.
      const int r = fcntl(down[0], F_DUPFD, 10), w = fcntl(up[1], F_DUPFD, 10);
      dup2(r, 3);
      dup2(w, 4);
    }
    for (int fd = to_child ? 5 : 3; fd < 1024; ++fd) close(fd);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  if (to_child) {
    close(down[0]);
    close(up[1]);
    *to_child = down[1];
    *from_child = up[0];
  }
  if (to_stdin) {
    close(keys[0]);
    *to_stdin = keys[1];
  }
  return pid;
}

}  // namespace

TempDir::TempDir() {
  std::random_device rd;
  path = fs::temp_directory_path() /
         ("mesh2dsp-rt-" + std::to_string(getpid()) + "-" + std::to_string(rd() % 1000000));
  fs::create_directories(path);
}
TempDir::~TempDir() {
  std::error_code ec;
  if (!std::getenv("MESH2DSP_KEEP_TEST_FILES")) fs::remove_all(path, ec);
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

RunResult run(const std::vector<std::string>& argv, double timeout_s) {
  TempDir logs;
  Child child(argv, logs.path, "run");
  const auto t0 = std::chrono::steady_clock::now();
  while (child.running() && since(t0) < timeout_s)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  RunResult r;
  r.exit_code = child.stop(SIGKILL, 5);
  r.out = child.out();
  r.err = child.err();
  return r;
}

Child::Child(const std::vector<std::string>& argv, const fs::path& log_dir, const std::string& tag,
             bool pipe_fds_3_4, bool pipe_stdin)
    : out_path_(log_dir / (tag + ".out")), err_path_(log_dir / (tag + ".err")) {
  pid_ = spawn(argv, out_path_, err_path_, pipe_fds_3_4 ? &to_child_fd : nullptr,
               pipe_fds_3_4 ? &from_child_fd : nullptr, pipe_stdin ? &stdin_fd : nullptr);
}

Child::~Child() {
  if (!reaped_) stop(SIGKILL, 5);
  if (to_child_fd >= 0) close(to_child_fd);
  if (from_child_fd >= 0) close(from_child_fd);
  if (stdin_fd >= 0) close(stdin_fd);
}

bool Child::running() {
  if (reaped_) return false;
  if (waitpid(pid_, &status_, WNOHANG) == pid_) reaped_ = true;
  return !reaped_;
}

int Child::stop(int signal, double timeout_s) {
  if (running()) {
    kill(pid_, signal);
    const auto t0 = std::chrono::steady_clock::now();
    while (running() && since(t0) < timeout_s) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (running()) {
      kill(-pid_, SIGKILL);  // its own process group (setpgid in the child)
      kill(pid_, SIGKILL);
      waitpid(pid_, &status_, 0);
      reaped_ = true;
    }
  }
  if (WIFEXITED(status_)) return WEXITSTATUS(status_);
  if (WIFSIGNALED(status_)) return 128 + WTERMSIG(status_);
  return -1;
}

std::string Child::out() const { return read_text(out_path_); }
std::string Child::err() const { return read_text(err_path_); }

bool Child::wait_for_err(const std::string& text, double timeout_s, std::size_t from) {
  const auto t0 = std::chrono::steady_clock::now();
  while (since(t0) < timeout_s) {
    const std::string e = err();
    if (e.size() > from && e.find(text, from) != std::string::npos) return true;
    if (!running()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

std::vector<float> Sound::channel(int c) const {
  std::vector<float> out;
  for (std::size_t i = c; i < samples.size(); i += channels) out.push_back(samples[i]);
  return out;
}

Sound read_sound(const fs::path& path) {
  SF_INFO info{};
  SNDFILE* f = sf_open(path.c_str(), SFM_READ, &info);
  if (!f) throw std::runtime_error("cannot read " + path.string());
  Sound s;
  s.sample_rate_hz = info.samplerate;
  s.channels = info.channels;
  s.samples.resize(static_cast<std::size_t>(info.frames) * info.channels);
  sf_readf_float(f, s.samples.data(), info.frames);
  sf_close(f);
  return s;
}

Spectrum spectrum(const std::vector<float>& x, int sample_rate_hz) {
  std::size_t n = 1;
  while (n < x.size() || n < 65536) n <<= 1;  // ≤ 0.73 Hz bins at 48 kHz
  std::vector<double> in(n, 0.0);
  for (std::size_t i = 0; i < x.size(); ++i)
    in[i] = x[i] * (0.5 - 0.5 * std::cos(2 * M_PI * static_cast<double>(i) / static_cast<double>(x.size())));
  std::vector<fftw_complex> out(n / 2 + 1);
  fftw_plan plan = fftw_plan_dft_r2c_1d(static_cast<int>(n), in.data(), out.data(), FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  Spectrum s;
  s.bin_hz = static_cast<double>(sample_rate_hz) / static_cast<double>(n);
  for (auto& c : out) s.magnitude.push_back(std::hypot(c[0], c[1]));
  return s;
}

double Spectrum::peak_near(double f_hz, double tolerance_hz) const {
  const auto lo = static_cast<std::size_t>(std::max(0.0, (f_hz - tolerance_hz) / bin_hz));
  const auto hi = std::min(magnitude.size() - 1, static_cast<std::size_t>((f_hz + tolerance_hz) / bin_hz));
  double m = 0;
  for (std::size_t i = lo; i <= hi; ++i) m = std::max(m, magnitude[i]);
  return m;
}

double Spectrum::max() const {
  double m = 0;
  for (double v : magnitude) m = std::max(m, v);
  return m;
}

double Spectrum::strongest_hz(double fmin_hz, double fmax_hz) const {
  std::size_t best = 0;
  for (std::size_t i = static_cast<std::size_t>(fmin_hz / bin_hz);
       i < magnitude.size() && i * bin_hz <= fmax_hz; ++i)
    if (magnitude[i] > magnitude[best]) best = i;
  return static_cast<double>(best) * bin_hz;
}

bool has_peak(const Spectrum& s, double f_hz, double fraction, double tolerance_hz) {
  return s.max() > 0 && s.peak_near(f_hz, tolerance_hz) >= fraction * s.max();
}

JackServer::JackServer(const fs::path& log_dir, int rate_hz, int period_frames)
    : name_("mesh2dsp-rt-test-" + std::to_string(getpid())) {
  mesh2dsp::test::reclaim_dead_jack_servers();
  setenv("JACK_DEFAULT_SERVER", name_.c_str(), 1);
  setenv("JACK_NO_START_SERVER", "1", 1);
  jackd_ = std::make_unique<Child>(
      std::vector<std::string>{"jackd", "-n", name_, "-d", "dummy", "-r", std::to_string(rate_hz),
                               "-p", std::to_string(period_frames)},
      log_dir, "jackd");
  const auto t0 = std::chrono::steady_clock::now();
  while (since(t0) < 15) {
    jack_status_t status;
    if (jack_client_t* probe = jack_client_open("probe", JackNoStartServer, &status)) {
      jack_client_close(probe);
      return;
    }
    if (!jackd_->running()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  throw std::runtime_error("jackd -d dummy did not start: " + jackd_->err() + jackd_->out());
}

// A generous grace: jackd killed hard leaves its slot in JACK's server registry.
JackServer::~JackServer() { jackd_->stop(SIGTERM, 20); }

JackRecorder::JackRecorder(double capacity_s) {
  jack_status_t status;
  client_ = jack_client_open("rt-test-recorder", JackNoStartServer, &status);
  if (!client_) throw std::runtime_error("recorder: no JACK server");
  rate_ = static_cast<int>(jack_get_sample_rate(client_));
  buffer_.assign(static_cast<std::size_t>(capacity_s * rate_), 0.0f);
  port_ = jack_port_register(client_, "in", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
  jack_set_process_callback(client_, &JackRecorder::process, this);
  if (jack_activate(client_) != 0) throw std::runtime_error("recorder: cannot activate");
}

JackRecorder::~JackRecorder() {
  jack_deactivate(client_);
  jack_client_close(client_);
}

int JackRecorder::process(jack_nframes_t n, void* arg) {
  auto* self = static_cast<JackRecorder*>(arg);
  const auto* in = static_cast<const float*>(jack_port_get_buffer(self->port_, n));
  std::size_t w = self->written_.load(std::memory_order_relaxed);
  const std::size_t room = self->buffer_.size() - w;
  const std::size_t count = std::min<std::size_t>(n, room);
  std::copy_n(in, count, self->buffer_.data() + w);
  self->written_.store(w + count, std::memory_order_release);
  return 0;
}

bool JackRecorder::connect(const std::string& source_port, double timeout_s) {
  const auto t0 = std::chrono::steady_clock::now();
  while (since(t0) < timeout_s) {
    if (jack_port_by_name(client_, source_port.c_str()) &&
        jack_connect(client_, source_port.c_str(), jack_port_name(port_)) == 0)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

std::vector<float> JackRecorder::slice(std::size_t from, std::size_t to) const {
  to = std::min(to, written_.load(std::memory_order_acquire));
  if (from >= to) return {};
  return {buffer_.begin() + static_cast<std::ptrdiff_t>(from), buffer_.begin() + static_cast<std::ptrdiff_t>(to)};
}

JackMidiSender::JackMidiSender() {
  jack_status_t status;
  client_ = jack_client_open("rt-test-midi", JackNoStartServer, &status);
  if (!client_) throw std::runtime_error("midi sender: no JACK server");
  port_ = jack_port_register(client_, "out", JACK_DEFAULT_MIDI_TYPE, JackPortIsOutput, 0);
  jack_set_process_callback(client_, &JackMidiSender::process, this);
  if (jack_activate(client_) != 0) throw std::runtime_error("midi sender: cannot activate");
}

JackMidiSender::~JackMidiSender() {
  jack_deactivate(client_);
  jack_client_close(client_);
}

bool JackMidiSender::connect(const std::string& destination_port, double timeout_s) {
  const auto t0 = std::chrono::steady_clock::now();
  while (since(t0) < timeout_s) {
    if (jack_port_by_name(client_, destination_port.c_str()) &&
        jack_connect(client_, jack_port_name(port_), destination_port.c_str()) == 0)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

void JackMidiSender::send(unsigned char status, unsigned char data1, unsigned char data2) {
  pending_.store(0x01000000u | (status << 16) | (data1 << 8) | data2);
  for (int i = 0; i < 500 && pending_.load() != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

int JackMidiSender::process(jack_nframes_t n, void* arg) {
  auto* self = static_cast<JackMidiSender*>(arg);
  void* buffer = jack_port_get_buffer(self->port_, n);
  jack_midi_clear_buffer(buffer);
  if (const std::uint32_t m = self->pending_.load(); m != 0) {
    const unsigned char bytes[3] = {static_cast<unsigned char>(m >> 16), static_cast<unsigned char>(m >> 8),
                                    static_cast<unsigned char>(m)};
    jack_midi_event_write(buffer, 0, bytes, 3);
    self->pending_.store(0);
  }
  return 0;
}

Browser::Browser(const fs::path& work_dir) {
  fs::create_directories(work_dir / "profile");
  chromium_ = std::make_unique<Child>(
      std::vector<std::string>{"chromium", "--headless", "--no-sandbox", "--disable-gpu",
                               "--disable-quic", "--no-first-run", "--disable-background-networking",
                               "--disable-component-update", "--disable-sync",
                               "--user-data-dir=" + (work_dir / "profile").string(),
                               "--remote-debugging-pipe", "about:blank"},
      work_dir, "chromium", true);
}

Browser::~Browser() { chromium_->stop(SIGTERM, 5); }

std::string Browser::log() const { return chromium_->err(); }

nlohmann::json Browser::call(const std::string& method, nlohmann::json params, bool in_session) {
  const int id = next_id_++;
  nlohmann::json message{{"id", id}, {"method", method}, {"params", std::move(params)}};
  if (in_session) message["sessionId"] = session_;
  const std::string text = message.dump() + '\0';
  if (write(chromium_->to_child_fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    throw std::runtime_error("chromium: cannot write to the DevTools pipe");
  const auto t0 = std::chrono::steady_clock::now();
  while (since(t0) < 30) {
    std::size_t end;
    while ((end = pending_.find('\0')) != std::string::npos) {
      const auto reply = nlohmann::json::parse(pending_.substr(0, end));
      pending_.erase(0, end + 1);
      if (reply.contains("id") && reply["id"] == id) {
        if (reply.contains("error")) throw std::runtime_error("chromium: " + reply["error"].dump());
        return reply["result"];
      }
    }
    pollfd p{chromium_->from_child_fd, POLLIN, 0};
    if (poll(&p, 1, 200) > 0) {
      char buffer[65536];
      const ssize_t got = read(chromium_->from_child_fd, buffer, sizeof buffer);
      if (got <= 0) throw std::runtime_error("chromium closed the DevTools pipe: " + log());
      pending_.append(buffer, static_cast<std::size_t>(got));
    }
  }
  throw std::runtime_error("chromium: no reply to " + method);
}

void Browser::open(const std::string& url) {
  const auto target = call("Target.createTarget", {{"url", url}}, false);
  const auto attached =
      call("Target.attachToTarget", {{"targetId", target["targetId"]}, {"flatten", true}}, false);
  session_ = attached["sessionId"];
}

nlohmann::json Browser::evaluate(const std::string& expression) {
  const auto r = call("Runtime.evaluate",
                      {{"expression", expression}, {"returnByValue", true}, {"awaitPromise", true}}, true);
  if (r.contains("exceptionDetails")) throw std::runtime_error("page script: " + r["exceptionDetails"].dump());
  return r["result"].contains("value") ? r["result"]["value"] : nlohmann::json();
}

std::string mesh2dsp_bin() { return MESH2DSP_BIN; }
fs::path data_dir() { return fs::path(MESH2DSP_SOURCE_DIR) / "tests" / "runtime" / "data"; }
int unique_port(int offset) { return 20000 + (getpid() % 2000) * 8 + offset; }

}  // namespace rt_test
