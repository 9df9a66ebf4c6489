#include "util/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>

namespace mesh2dsp {
namespace {
std::atomic<bool> g_quiet{false};
}

void set_quiet(bool quiet) { g_quiet = quiet; }
bool is_quiet() { return g_quiet; }

void notice(const std::string& message) {
  if (!g_quiet) fmt::print(stderr, "mesh2dsp: notice: {}\n", message);
}

Progress::Progress(std::string stage)
    : stage_(std::move(stage)),
      enabled_(!g_quiet && isatty(fileno(stderr))),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_ - std::chrono::seconds(1)) {}

Progress::~Progress() {
  if (enabled_ && !finished_) fmt::print(stderr, "\n");
}

double Progress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::update(double fraction, const std::string& detail) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const int width = 30;
  const int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * width);
  fmt::print(stderr, "\r\033[K{:<18} [{}{}] {:3.0f}% {:6.1f}s {}", stage_, std::string(filled, '#'),
             std::string(width - filled, '.'), 100.0 * std::clamp(fraction, 0.0, 1.0), elapsed_s(),
             detail);
  std::fflush(stderr);
}

void Progress::finish(const std::string& detail) {
  if (!enabled_ || finished_) return;
  finished_ = true;
  fmt::print(stderr, "\r\033[K{:<18} done in {:.2f}s {}\n", stage_, elapsed_s(), detail);
}

}  // namespace mesh2dsp
