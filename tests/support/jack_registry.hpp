#pragma once
// Frees the JACK server registry slots of servers that died without unregistering.
//
// Why: jack2 keeps at most 8 servers in one shared registry (/dev/shm/jack-shm-registry) and
// reclaims a dead server's slot only when a server of the same name starts again. Every test
// names its private `jackd -d dummy` after its own pid, so one jackd killed with SIGKILL (a
// timed-out test, a cleaned-up machine) holds a slot for good, and after eight such deaths every
// JACK test fails with "Too many servers already active". The layout read here is jack2's
// jack_shm_header_t (common/shm.h): a 24-byte header, then 8 {pid_t pid; char name[257];}.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace mesh2dsp::test {

// Returns how many dead servers' slots were freed (0 when there is no registry yet).
inline int reclaim_dead_jack_servers(const char* registry = "/dev/shm/jack-shm-registry") {
  constexpr std::uint32_t kJackMagic = 0x4a41434b;  // "JACK"
  constexpr std::size_t kHeaderBytes = 24, kServers = 8;
  const int fd = ::open(registry, O_RDWR);
  if (fd < 0) return 0;
  struct stat st {};
  int freed = 0;
  if (::fstat(fd, &st) == 0 && static_cast<std::size_t>(st.st_size) >= kHeaderBytes) {
    void* map = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map != MAP_FAILED) {
      auto* bytes = static_cast<unsigned char*>(map);
      std::uint32_t magic = 0, hdr_len = 0;
      std::memcpy(&magic, bytes, 4);
      std::memcpy(&hdr_len, bytes + 16, 4);
      const std::size_t stride = hdr_len > kHeaderBytes ? (hdr_len - kHeaderBytes) / kServers : 0;
      if (magic == kJackMagic && stride >= sizeof(pid_t) && hdr_len <= static_cast<std::size_t>(st.st_size)) {
        for (std::size_t i = 0; i < kServers; ++i) {
          unsigned char* slot = bytes + kHeaderBytes + i * stride;
          pid_t pid = 0;
          std::memcpy(&pid, slot, sizeof pid);
          if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) {
            std::memset(slot, 0, stride);
            ++freed;
          }
        }
      }
      ::munmap(map, static_cast<std::size_t>(st.st_size));
    }
  }
  ::close(fd);
  return freed;
}

}  // namespace mesh2dsp::test
