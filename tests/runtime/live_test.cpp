// Live play end to end: a private `jackd -d dummy`, `mesh2dsp play`, strikes over OSC and from the
// HTTP page in headless Chromium, a JACK recorder, and the spectral peaks of what it heard;
// then hot reloads (a new fundamental; a broken edit that must not stop the sound).
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include <unistd.h>

#include "support.hpp"

namespace {

using namespace rt_test;
using namespace std::chrono_literals;

// A two-mode struck object; f0 is what the edits change.
std::string model(double f0_hz, const std::string& extra = "") {
  return "import(\"stdfaust.lib\");\n"
         "f0 = " + std::to_string(f0_hz) + ";\n"
         "gate = button(\"gate\");\n"
         "pitch = hslider(\"pitch\", 1, 0.5, 2, 0.001);\n" + extra +
         "process = gate : ba.impulsify <: pm.modeFilter(f0*pitch, 1.2, 0.5)"
         " + pm.modeFilter(f0*pitch*2.31, 1.0, 0.3);\n";
}

void osc(int port, const std::string& address, float value) {
  const auto r = run({"oscsend", "localhost", std::to_string(port), address, "f", std::to_string(value)}, 10);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

class LivePlay : public ::testing::Test {
 protected:
  void SetUp() override {
    jack_ = std::make_unique<JackServer>(dir_.path);
    setenv("MESH2DSP_CACHE_DIR", (dir_ / "cache").c_str(), 1);
    recorder_ = std::make_unique<JackRecorder>(120);
  }
  void TearDown() override {
    if (play_) play_->stop(SIGTERM, 10);
    recorder_.reset();
    jack_.reset();
  }

  // on_terminal: run under `script`, which gives play a pseudo-terminal fed from our pipe.
  void start_play(const std::vector<std::string>& extra, bool on_terminal = false) {
    std::vector<std::string> argv{mesh2dsp_bin(), "play", (dir_ / "live.dsp").string(),
                                  "--name", "rt-live", "--no-connect"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    if (on_terminal) {
      std::string command;
      for (const auto& a : argv) command += "'" + a + "' ";
      argv = {"script", "-q", "-e", "-c", command + "2>" + (dir_ / "play-tty.err").string(), "/dev/null"};
    }
    play_ = std::make_unique<Child>(argv, dir_.path, on_terminal ? "script" : "play", false, on_terminal);
    if (on_terminal) return;
    ASSERT_TRUE(play_->wait_for_err("mesh2dsp: playing", 60)) << play_->err();
    ASSERT_TRUE(recorder_->connect("rt-live:out_0", 10)) << play_->err();
  }

  // What the recorder hears for `seconds` after `strike()` runs.
  template <class Strike>
  std::vector<float> record_after(Strike strike, double seconds = 1.0) {
    std::this_thread::sleep_for(300ms);  // let any previous ringing and fades pass the mark
    const std::size_t from = recorder_->frames();
    strike();
    const auto until = from + static_cast<std::size_t>(seconds * recorder_->sample_rate_hz());
    for (int i = 0; i < 200 && recorder_->frames() < until; ++i) std::this_thread::sleep_for(20ms);
    return recorder_->slice(from, until);
  }

  TempDir dir_;
  std::unique_ptr<JackServer> jack_;
  std::unique_ptr<JackRecorder> recorder_;
  std::unique_ptr<Child> play_;
};

TEST_F(LivePlay, OscStrikeHotReloadAndABrokenEditThatKeepsTheOldSound) {
  const int port = unique_port(0);
  write_text(dir_ / "live.dsp", model(500));
  start_play({"--osc", std::to_string(port)});
  auto strike = [&] {
    osc(port, "/live/gate", 1);
    std::this_thread::sleep_for(60ms);
    osc(port, "/live/gate", 0);
  };

  // 1. The model's modes.
  auto heard = record_after(strike);
  auto s = spectrum(heard, recorder_->sample_rate_hz());
  ASSERT_GT(s.max(), 0) << "silence: the strike did not arrive\n" << play_->err();
  EXPECT_TRUE(has_peak(s, 500)) << "strongest at " << s.strongest_hz(50, 5000);
  EXPECT_TRUE(has_peak(s, 500 * 2.31, 0.05));

  // 2. Edit the fundamental: it reloads, and the next strike rings at the new modes.
  std::size_t log_mark = play_->err().size();
  write_text(dir_ / "live.dsp", model(700));
  ASSERT_TRUE(play_->wait_for_err("reloaded", 60, log_mark)) << play_->err();
  heard = record_after(strike);
  s = spectrum(heard, recorder_->sample_rate_hz());
  EXPECT_TRUE(has_peak(s, 700)) << "strongest at " << s.strongest_hz(50, 5000);
  EXPECT_TRUE(has_peak(s, 700 * 2.31, 0.05));
  EXPECT_FALSE(has_peak(s, 500, 0.05)) << "the old model still sounds";

  // 3. A broken edit: Faust's error is printed, and the last good model keeps playing.
  log_mark = play_->err().size();
  write_text(dir_ / "live.dsp", "import(\"stdfaust.lib\");\nprocess = pm.modeFilter(900, 1, 0.1 : ;\n");
  ASSERT_TRUE(play_->wait_for_err("still playing the previous version", 60, log_mark)) << play_->err();
  EXPECT_NE(play_->err().find("live.dsp:2: error:", log_mark), std::string::npos) << play_->err();
  heard = record_after(strike);
  s = spectrum(heard, recorder_->sample_rate_hz());
  EXPECT_TRUE(has_peak(s, 700)) << "strongest at " << s.strongest_hz(50, 5000);

  // 4. Fixing it again reloads (the watcher re-armed after the failure).
  log_mark = play_->err().size();
  write_text(dir_ / "live.dsp", model(400));
  ASSERT_TRUE(play_->wait_for_err("reloaded", 60, log_mark)) << play_->err();
  s = spectrum(record_after(strike), recorder_->sample_rate_hz());
  EXPECT_TRUE(has_peak(s, 400)) << "strongest at " << s.strongest_hz(50, 5000);

  EXPECT_EQ(play_->stop(SIGTERM, 10), 0) << play_->err();
  EXPECT_NE(play_->err().find("reloads (1 failed)"), std::string::npos) << play_->err();
}

TEST_F(LivePlay, HttpControlPageInHeadlessChromiumChangesTheSound) {
  const int http_port = unique_port(4);
  const int osc_port = unique_port(5);
  write_text(dir_ / "live.dsp", model(600));
  start_play({"--http", std::to_string(http_port), "--osc", std::to_string(osc_port)});

  Browser browser(dir_ / "chromium");
  browser.open("http://localhost:" + std::to_string(http_port) + "/");
  // Wait until the page has built its widgets from the DSP's JSON.
  std::string pitch_key;
  for (int i = 0; i < 600 && pitch_key.empty(); ++i) {  // up to a minute on a loaded machine
    const auto key = browser.evaluate(
        "typeof _f4u$t === 'undefined' ? '' : "
        "(Object.keys(_f4u$t.PATHS_TO_IDS).find(k => k.endsWith('/live/pitch')) || '')");
    if (key.is_string()) pitch_key = key.get<std::string>();
    if (pitch_key.empty()) std::this_thread::sleep_for(100ms);
  }
  ASSERT_FALSE(pitch_key.empty()) << "the control page did not build a 'pitch' widget\n" << browser.log();
  EXPECT_TRUE(browser.evaluate("document.querySelectorAll('svg').length > 0").get<bool>());

  // Move the slider the way the page's widgets do: through its own handler, which queues the
  // request to the server.
  browser.evaluate("_f4u$t.fausthandler('" + pitch_key + "', 1.5); true");
  const std::string readback_url = "http://localhost:" + std::to_string(http_port) + "/live/pitch";
  bool arrived = false;
  for (int i = 0; i < 50 && !arrived; ++i) {
    const auto r = run({"curl", "-s", readback_url}, 10);
    arrived = r.out.find("1.5") != std::string::npos;
    if (!arrived) std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(arrived) << "the server never saw the page's change";

  // And the DSP: a strike now rings at 1.5 × 600 Hz.
  auto strike = [&] {
    osc(osc_port, "/live/gate", 1);
    std::this_thread::sleep_for(60ms);
    osc(osc_port, "/live/gate", 0);
  };
  const auto s = spectrum(record_after(strike), recorder_->sample_rate_hz());
  EXPECT_TRUE(has_peak(s, 900)) << "strongest at " << s.strongest_hz(50, 5000);
  EXPECT_FALSE(has_peak(s, 600, 0.05));
}

// play's bad requests: exit 1 and a single line of output, the error.
void expect_one_line_error(const std::vector<std::string>& args, const std::string& expected) {
  setenv("JACK_DEFAULT_SERVER", "mesh2dsp-rt-test-nobody-here", 1);
  std::vector<std::string> argv{mesh2dsp_bin(), "play", "--no-cache"};  // leave ~/.cache alone
  argv.insert(argv.end(), args.begin(), args.end());
  const auto r = run(argv, 60);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.rfind("mesh2dsp: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(LivePlay, OnATerminalTheSpaceBarStrikes) {
  write_text(dir_ / "live.dsp", model(800));
  start_play({}, true);
  const auto log = dir_ / "play-tty.err";
  for (int i = 0; i < 600 && read_text(log).find("keys:") == std::string::npos; ++i)
    std::this_thread::sleep_for(100ms);
  ASSERT_NE(read_text(log).find("keys: space/enter strikes"), std::string::npos)
      << "play did not see a terminal\n" << read_text(log) << play_->err();
  ASSERT_TRUE(recorder_->connect("rt-live:out_0", 10)) << read_text(log);
  const auto s = spectrum(record_after([&] { ASSERT_EQ(write(play_->stdin_fd, " ", 1), 1); }),
                          recorder_->sample_rate_hz());
  ASSERT_GT(s.max(), 0) << "the key did not strike\n" << read_text(log);
  EXPECT_TRUE(has_peak(s, 800)) << "strongest at " << s.strongest_hz(50, 5000);
  ASSERT_EQ(write(play_->stdin_fd, "q", 1), 1);  // q quits cleanly, terminal restored
  for (int i = 0; i < 100 && play_->running(); ++i) std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(play_->running()) << read_text(log);
  EXPECT_NE(read_text(log).find("played"), std::string::npos) << read_text(log);
}

TEST_F(LivePlay, MidiNoteStrikesAndAControllerMovesTheSlider) {
  // Faust's MIDI metadata: note 60 presses the button, CC 7 drives pitch over its range.
  write_text(dir_ / "live.dsp",
             "import(\"stdfaust.lib\");\n"
             "gate = button(\"gate[midi:key 60]\");\n"
             "pitch = hslider(\"pitch[midi:ctrl 7]\", 1, 0.5, 2, 0.001);\n"
             "process = gate : ba.impulsify <: pm.modeFilter(500*pitch, 1.2, 0.5);\n");
  start_play({});
  JackMidiSender midi;
  ASSERT_TRUE(midi.connect("rt-live:midi_in_1", 10)) << play_->err();
  auto strike = [&] {
    midi.send(0x90, 60, 100);  // note on
    std::this_thread::sleep_for(60ms);
    midi.send(0x80, 60, 0);    // note off
  };
  auto s = spectrum(record_after(strike), recorder_->sample_rate_hz());
  ASSERT_GT(s.max(), 0) << "the MIDI note did not strike\n" << play_->err();
  EXPECT_TRUE(has_peak(s, 500)) << "strongest at " << s.strongest_hz(50, 5000);
  midi.send(0xB0, 7, 127);  // controller 7 at its top: pitch = 2
  std::this_thread::sleep_for(100ms);
  s = spectrum(record_after(strike), recorder_->sample_rate_hz());
  EXPECT_TRUE(has_peak(s, 1000)) << "strongest at " << s.strongest_hz(50, 5000);
}

TEST(PlayErrors, NoAudioServerIsAClearError) {
  expect_one_line_error({(data_dir() / "bank.dsp").string(), "--audio", "jack"}, "no JACK server");
  expect_one_line_error({(data_dir() / "bank.dsp").string(), "--audio", "auto"},
                        "no audio output: no JACK server");
}

TEST(PlayErrors, MissingFileNoOutputsAndCompileError) {
  expect_one_line_error({(data_dir() / "absent.dsp").string()}, "absent.dsp: no such file");
  expect_one_line_error({(data_dir() / "sink.dsp").string()}, "no output");
  expect_one_line_error({(data_dir() / "broken.dsp").string()}, "broken.dsp:2: error:");
}

}  // namespace
