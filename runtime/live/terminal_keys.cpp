#include "runtime/live/terminal_keys.hpp"

#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace mesh2dsp::runtime {

struct TerminalKeys::Saved {
  termios attributes;
};

TerminalKeys::TerminalKeys() {
  // Not a terminal, or started in the background (`play x.dsp &`): changing the terminal from
  // a background process group would stop us with SIGTTOU.
  if (!isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) != getpgrp()) return;
  saved_ = new Saved;
  if (tcgetattr(STDIN_FILENO, &saved_->attributes) != 0) return;
  termios raw = saved_->attributes;
  raw.c_lflag &= static_cast<tcflag_t>(~(ICANON | ECHO));  // keys arrive one by one, unechoed
  raw.c_cc[VMIN] = 0;
  raw.c_cc[VTIME] = 0;
  active_ = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
}

TerminalKeys::~TerminalKeys() {
  if (active_) tcsetattr(STDIN_FILENO, TCSANOW, &saved_->attributes);
  delete saved_;
}

std::optional<char> TerminalKeys::poll(int timeout_ms) {
  if (!active_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
    return std::nullopt;
  }
  pollfd fd{STDIN_FILENO, POLLIN, 0};
  if (::poll(&fd, 1, timeout_ms) <= 0) return std::nullopt;
  char c = 0;
  if (read(STDIN_FILENO, &c, 1) != 1) return std::nullopt;
  return c;
}

}  // namespace mesh2dsp::runtime
