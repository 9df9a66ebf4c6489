// The binary's large allocations on transparent huge pages, its small ones not
// (util/free_memory.hpp). Linked with jemalloc, as the mesh2dsp binary is.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "util/free_memory.hpp"

namespace {

// The kernel's THP mode: "always", "madvise" or "never" (the bracketed word), "" if unknown.
std::string huge_page_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  const auto open = line.find('['), close = line.find(']');
  return open == std::string::npos || close == std::string::npos ? "" : line.substr(open + 1, close - open - 1);
}

// AnonHugePages (kB) of the mapping that holds `address`, from /proc/self/smaps; -1 if none does.
long huge_kb_at(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream in("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
      continue;
    }
    if (inside && line.rfind("AnonHugePages:", 0) == 0) return std::stol(line.substr(14));
  }
  return -1;
}

TEST(HugePages, LargeAllocationsAreOnHugePagesAndSmallOnesAreNot) {
  const std::string mode = huge_page_mode();
  if (mode != "madvise")
    GTEST_SKIP() << "this kernel's transparent huge pages are '" << mode
                 << "', not 'madvise': nothing for the advice to change";
  mesh2dsp::use_huge_pages_for_large_allocations();
  mesh2dsp::use_huge_pages_for_large_allocations();  // a second call changes nothing
  constexpr std::size_t kLarge = std::size_t{64} << 20;
  auto* large = static_cast<char*>(std::malloc(kLarge));
  ASSERT_NE(large, nullptr);
  std::memset(large, 1, kLarge);
  std::vector<char*> small;
  for (int i = 0; i < 2000; ++i) {
    small.push_back(static_cast<char*>(std::malloc(2048)));
    std::memset(small.back(), 1, 2048);
  }
  EXPECT_GE(huge_kb_at(large + kLarge / 2), 32 << 10) << "most of 64 MiB on 2 MiB pages";
  EXPECT_EQ(huge_kb_at(small[1000]), 0) << "small allocations stay on 4 KiB pages";
  for (char* p : small) std::free(p);
  std::free(large);
}

}  // namespace
