#include "util/atomic_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>
#include <fstream>
#include <system_error>

#include "util/error.hpp"

namespace mesh2dsp {
namespace {

// The temporaries being written, so that Ctrl-C (SIGINT), SIGTERM or SIGHUP removes them
// before the process dies: a render or a long write interrupted must leave no stray file.
// A fixed table the signal handler can walk without allocating: slot states are free,
// being filled, and live (only live slots are touched by the handler).
constexpr int kSlots = 64;
constexpr int kFree = 0, kFilling = 1, kLive = 2;
std::array<std::atomic<int>, kSlots> slot_state{};
std::array<std::array<char, 4096>, kSlots> slot_path{};

extern "C" void remove_temporaries_and_die(int signal_number) {
  for (int i = 0; i < kSlots; ++i)
    if (slot_state[i].load() == kLive) unlink(slot_path[i].data());  // async-signal-safe
  std::signal(signal_number, SIG_DFL);
  raise(signal_number);
}

// Installs the handler for signals still at their default (a command with its own handler,
// like `play`, keeps it).
void install_cleanup_handler() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  for (const int s : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    if (sigaction(s, nullptr, &current) == 0 && current.sa_handler == SIG_DFL &&
        !(current.sa_flags & SA_SIGINFO)) {
      struct sigaction cleanup {};
      cleanup.sa_handler = remove_temporaries_and_die;
      sigemptyset(&cleanup.sa_mask);
      sigaction(s, &cleanup, nullptr);
    }
  }
}

void register_temporary(const std::filesystem::path& temporary) {
  const std::string text = temporary.string();
  if (text.size() >= slot_path[0].size()) return;  // not tracked: too long for the table
  install_cleanup_handler();
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < kSlots; ++i) {
      int expected = kFree;
      if (slot_state[i].compare_exchange_strong(expected, kFilling)) {
        std::memcpy(slot_path[i].data(), text.c_str(), text.size() + 1);
        slot_state[i].store(kLive);
        return;
      }
    }
    // Full: callers that removed a failed temporary themselves left their slot behind.
    for (int i = 0; i < kSlots; ++i) {
      std::error_code ec;
      if (slot_state[i].load() == kLive && !std::filesystem::exists(slot_path[i].data(), ec))
        slot_state[i].store(kFree);
    }
  }
}

void unregister_temporary(const std::filesystem::path& temporary) {
  const std::string text = temporary.string();
  for (int i = 0; i < kSlots; ++i)
    if (slot_state[i].load() == kLive && text == slot_path[i].data()) {
      slot_state[i].store(kFree);
      return;
    }
}

}  // namespace

std::filesystem::path temporary_sibling(const std::filesystem::path& path) {
  static std::atomic<int> counter{0};
  auto name = fmt::format(".{}.tmp{}-{}", path.filename().string(), static_cast<long>(getpid()),
                          counter++);
  const auto temporary = path.parent_path() / name;
  register_temporary(temporary);
  return temporary;
}

void commit_temporary(const std::filesystem::path& temporary, const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  unregister_temporary(temporary);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    throw Error(fmt::format("cannot write {}: {}", path.string(), ec.message()));
  }
}

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write) {
  const auto dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  if (!std::filesystem::is_directory(dir))
    throw Error(fmt::format("cannot write {}: directory {} does not exist", path.string(),
                            dir.string()));
  const auto temporary = temporary_sibling(path);
  try {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(fmt::format("cannot write {}: cannot create a file there", path.string()));
    write(out);
    out.flush();
    if (!out) throw Error(fmt::format("cannot write {}: write failed (disk full?)", path.string()));
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(temporary, ec);
    unregister_temporary(temporary);
    throw;
  }
  commit_temporary(temporary, path);
}

void write_text_atomically(const std::filesystem::path& path, std::string_view text) {
  write_file_atomically(path, [&](std::ostream& out) { out.write(text.data(), text.size()); });
}

}  // namespace mesh2dsp
