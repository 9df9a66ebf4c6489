#include "util/free_memory.hpp"

#include <dlfcn.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#if __has_include(<jemalloc/jemalloc.h>)
#include <jemalloc/jemalloc.h>  // extent_hooks_t only: mallctl is looked up at run time
#define MESH2DSP_JEMALLOC_HOOK_TYPES 1
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace mesh2dsp {
namespace {

using Mallctl = int (*)(const char*, void*, std::size_t*, void*, std::size_t);
// jemalloc's control interface when it is the process's allocator, else null.
Mallctl jemalloc_control() {
  static const auto mallctl = reinterpret_cast<Mallctl>(dlsym(RTLD_DEFAULT, "mallctl"));
  return mallctl;
}

#ifdef MESH2DSP_JEMALLOC_HOOK_TYPES
// The oversize arena's hooks: jemalloc's own, with each new mapping advised huge.
extent_hooks_t huge_page_hooks;
extent_alloc_t* jemalloc_alloc = nullptr;
extent_hooks_t* jemalloc_hooks = nullptr;

void* alloc_on_huge_pages(extent_hooks_t*, void* new_addr, std::size_t size, std::size_t alignment, bool* zero,
                          bool* commit, unsigned arena) {
  void* memory = jemalloc_alloc(jemalloc_hooks, new_addr, size, alignment, zero, commit, arena);
#ifdef MADV_HUGEPAGE
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  if (memory && size >= kHugePage) madvise(memory, size, MADV_HUGEPAGE);  // advice: failure changes nothing
#endif
  return memory;
}
#endif

}  // namespace

void use_huge_pages_for_large_allocations() {
#ifdef MESH2DSP_JEMALLOC_HOOK_TYPES
  const Mallctl mallctl = jemalloc_control();
  if (!mallctl || jemalloc_alloc) return;
  std::size_t threshold = 0, length = sizeof threshold;
  if (mallctl("opt.oversize_threshold", &threshold, &length, nullptr, 0) != 0 || threshold == 0) return;
  // The oversize arena is made at its first use: one allocation makes it and names it.
  void* probe = std::malloc(threshold);
  void* small = std::malloc(64);
  unsigned huge_arena = 0, small_arena = 0;
  std::size_t index_length = sizeof huge_arena;
  const bool found = probe && small &&
                     mallctl("arenas.lookup", &huge_arena, &index_length, &probe, sizeof probe) == 0 &&
                     mallctl("arenas.lookup", &small_arena, &index_length, &small, sizeof small) == 0;
  std::free(probe);
  std::free(small);
  if (!found || huge_arena == small_arena) return;  // no separate arena: leave every heap as it is
  const std::string hooks_name = "arena." + std::to_string(huge_arena) + ".extent_hooks";
  extent_hooks_t* current = nullptr;
  std::size_t pointer_length = sizeof current;
  if (mallctl(hooks_name.c_str(), &current, &pointer_length, nullptr, 0) != 0 || !current || !current->alloc) return;
  jemalloc_hooks = current;
  jemalloc_alloc = current->alloc;
  huge_page_hooks = *current;
  huge_page_hooks.alloc = alloc_on_huge_pages;
  extent_hooks_t* replacement = &huge_page_hooks;
  if (mallctl(hooks_name.c_str(), nullptr, nullptr, &replacement, sizeof replacement) != 0) jemalloc_alloc = nullptr;
#endif
}

void return_free_memory_to_system() {
  if (const Mallctl mallctl = jemalloc_control()) {
    // jemalloc's documented "arena.<i>.purge" with i = MALLCTL_ARENAS_ALL (4096): every arena.
    mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);
    return;
  }
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

void fault_in_on_every_core(void* memory, std::size_t bytes, std::size_t from_bytes) {
  if (!memory || bytes < from_bytes) return;
  constexpr std::size_t kPage = 4096;
  const std::size_t parts = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
  auto touch = [&](std::size_t part) {
    volatile char* p = static_cast<char*>(memory);
    for (std::size_t at = bytes * part / parts / kPage * kPage; at < bytes * (part + 1) / parts; at += kPage) p[at] = 0;
  };
  std::vector<std::thread> helpers;
  for (std::size_t part = 1; part < parts; ++part) helpers.emplace_back(touch, part);
  touch(0);
  for (auto& t : helpers) t.join();
}

WarmBlock::WarmBlock(std::size_t bytes) {
  block_ = bytes > 0 ? static_cast<char*>(std::malloc(bytes)) : nullptr;
  if (!block_) return;
  bytes_ = bytes;
  thread_ = std::thread([this] {
    constexpr std::size_t kPage = 4096;
    volatile char* p = block_;
    for (std::size_t at = 0; at < bytes_ && !stop_.load(std::memory_order_relaxed); at += kPage) p[at] = 0;
  });
}

void WarmBlock::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void* WarmBlock::take(std::size_t bytes) {
  stop();
  if (!block_ || bytes > bytes_) return nullptr;
  // The pages past `bytes` go back (they read as zero if touched again).
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t tail = (reinterpret_cast<std::uintptr_t>(block_) + bytes + page - 1) / page * page;
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(block_) + bytes_;
  if (page > 0 && tail < end) madvise(reinterpret_cast<void*>(tail), (end - tail) / page * page, MADV_DONTNEED);
  return std::exchange(block_, nullptr);
}

WarmBlock::~WarmBlock() {
  stop();
  std::free(block_);
}

}  // namespace mesh2dsp
