#pragma once
// Helpers for the runtime tests: child processes, temporary directories, sound files, spectra,
// a private `jackd -d dummy` server, a JACK recorder and a headless Chromium over its DevTools pipe.
#include <jack/jack.h>
#include <nlohmann/json.hpp>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace rt_test {

namespace fs = std::filesystem;

// A fresh directory under the system temp dir, removed on destruction.
struct TempDir {
  TempDir();
  ~TempDir();
  fs::path path;
  fs::path operator/(const std::string& name) const { return path / name; }
};

void write_text(const fs::path& path, const std::string& text);
std::string read_text(const fs::path& path);

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};
// Runs argv to completion (killed after timeout_s), capturing stdout and stderr.
RunResult run(const std::vector<std::string>& argv, double timeout_s = 120);

// A child running in the background with stdout/stderr in files.
class Child {
 public:
  Child(const std::vector<std::string>& argv, const fs::path& log_dir, const std::string& tag,
        bool pipe_fds_3_4 = false, bool pipe_stdin = false);
  ~Child();  // SIGKILL if still running
  pid_t pid() const { return pid_; }
  bool running();
  int stop(int signal = 15, double timeout_s = 10);  // exit code (128+sig if killed)
  std::string out() const;
  std::string err() const;
  // Waits until stderr contains `text` (after `from` characters); false on timeout or exit.
  bool wait_for_err(const std::string& text, double timeout_s, std::size_t from = 0);
  int to_child_fd = -1, from_child_fd = -1;  // fds 3/4 of the child when pipe_fds_3_4
  int stdin_fd = -1;                         // the child's stdin when pipe_stdin

 private:
  pid_t pid_ = -1;
  int status_ = 0;
  bool reaped_ = false;
  fs::path out_path_, err_path_;
};

// Sound files.
struct Sound {
  int sample_rate_hz = 0;
  int channels = 0;
  std::vector<float> samples;  // interleaved
  std::vector<float> channel(int c) const;
};
Sound read_sound(const fs::path& path);

// Spectrum magnitude (Hann window, zero-padded FFT) of x; bin width = rate / size.
struct Spectrum {
  double bin_hz = 0;
  std::vector<double> magnitude;
  double peak_near(double f_hz, double tolerance_hz) const;  // max magnitude in the band
  double max() const;
  double strongest_hz(double fmin_hz, double fmax_hz) const;
};
Spectrum spectrum(const std::vector<float>& x, int sample_rate_hz);
// True if the band around f_hz holds a clear peak: ≥ fraction × the strongest bin.
bool has_peak(const Spectrum& s, double f_hz, double fraction = 0.1, double tolerance_hz = 4);

// `jackd -n <name> -d dummy`, with JACK_DEFAULT_SERVER set for this process and its children.
class JackServer {
 public:
  JackServer(const fs::path& log_dir, int rate_hz = 48000, int period_frames = 256);
  ~JackServer();
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::unique_ptr<Child> jackd_;
};

// A JACK client that records one input port into a preallocated buffer (no allocation in the
// process callback).
class JackRecorder {
 public:
  explicit JackRecorder(double capacity_s = 60);
  ~JackRecorder();
  // Connects our input to `source_port` ("client:out_0"), waiting for it to appear.
  bool connect(const std::string& source_port, double timeout_s);
  std::size_t frames() const { return written_.load(); }
  int sample_rate_hz() const { return rate_; }
  std::vector<float> slice(std::size_t from, std::size_t to) const;

 private:
  static int process(jack_nframes_t n, void* self);
  jack_client_t* client_ = nullptr;
  jack_port_t* port_ = nullptr;
  int rate_ = 0;
  std::vector<float> buffer_;
  std::atomic<std::size_t> written_{0};
};

// A JACK client with one MIDI output: send() queues a 3-byte message for the next cycle.
class JackMidiSender {
 public:
  JackMidiSender();
  ~JackMidiSender();
  bool connect(const std::string& destination_port, double timeout_s);
  void send(unsigned char status, unsigned char data1, unsigned char data2);  // waits until sent

 private:
  static int process(jack_nframes_t n, void* self);
  jack_client_t* client_ = nullptr;
  jack_port_t* port_ = nullptr;
  std::atomic<std::uint32_t> pending_{0};  // 0x01SSDDEE: flag, status, data1, data2
};

// Headless Chromium driven through --remote-debugging-pipe (CDP messages on fds 3 and 4).
class Browser {
 public:
  explicit Browser(const fs::path& work_dir);
  ~Browser();
  void open(const std::string& url);                    // new tab, attached
  nlohmann::json evaluate(const std::string& expression);  // the value, or throws
  std::string log() const;

 private:
  nlohmann::json call(const std::string& method, nlohmann::json params, bool in_session);
  std::unique_ptr<Child> chromium_;
  std::string session_, pending_;
  int next_id_ = 1;
};

std::string mesh2dsp_bin();
fs::path data_dir();
int unique_port(int offset);  // per test process: base from the pid

}  // namespace rt_test
