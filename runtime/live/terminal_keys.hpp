#pragma once
// Single key presses from a terminal (raw mode, restored on destruction). Inactive when stdin
// is not a terminal, so `mesh2dsp play` also runs under a test or in the background.
#include <optional>

namespace mesh2dsp::runtime {

class TerminalKeys {
 public:
  TerminalKeys();
  ~TerminalKeys();
  TerminalKeys(const TerminalKeys&) = delete;
  TerminalKeys& operator=(const TerminalKeys&) = delete;

  bool active() const { return active_; }
  // Waits up to timeout_ms for a key; nullopt on timeout or when inactive (then just sleeps).
  std::optional<char> poll(int timeout_ms);

 private:
  bool active_ = false;
  struct Saved;
  Saved* saved_ = nullptr;
};

}  // namespace mesh2dsp::runtime
