// A block of memory faulted in on another thread, for one large allocation to come
// (util/free_memory.hpp): its pages are there when it is taken; one too small is not handed out.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

#include "util/free_memory.hpp"

namespace {

// The share of the pages of [memory, memory + bytes) that are resident (mincore).
double resident_share(const void* memory, std::size_t bytes) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(memory) / page * page;
  const auto end = reinterpret_cast<std::uintptr_t>(memory) + bytes;
  std::vector<unsigned char> state((end - begin + page - 1) / page);
  if (mincore(reinterpret_cast<void*>(begin), end - begin, state.data()) != 0) return -1;
  std::size_t resident = 0;
  for (unsigned char s : state) resident += s & 1;
  return static_cast<double>(resident) / static_cast<double>(state.size());
}

constexpr std::size_t kBlock = std::size_t{48} << 20;

TEST(WarmBlock, ItsPagesAreThereWhenTakenAndThePagesPastTheRequestGoBack) {
  mesh2dsp::WarmBlock warm(kBlock);
  ASSERT_EQ(warm.size(), kBlock);
  // Time for the other thread to touch it all (well under a second for 48 MiB, even here).
  std::this_thread::sleep_for(std::chrono::seconds(2));
  constexpr std::size_t kWanted = kBlock / 2;
  auto* block = static_cast<char*>(warm.take(kWanted));
  ASSERT_NE(block, nullptr);
  EXPECT_GT(resident_share(block, kWanted), 0.99) << "faulted in by the warm-up, not touched here";
  EXPECT_LT(resident_share(block + kWanted + 4096, kBlock - kWanted - 4096), 0.01) << "the rest handed back";
  EXPECT_EQ(warm.take(kWanted), nullptr) << "taken once";
  block[kWanted - 1] = 1;  // the caller's memory: written, then freed as any malloc'd block
  std::free(block);
}

TEST(WarmBlock, ABlockTooSmallForTheRequestIsNotHandedOut) {
  mesh2dsp::WarmBlock warm(kBlock);
  EXPECT_EQ(warm.take(kBlock + 1), nullptr);
  mesh2dsp::WarmBlock stopped_early(kBlock);  // destroyed while touching: stops and frees
}

}  // namespace
