#pragma once
#include <atomic>
#include <cstddef>
#include <thread>

// Hands the memory the allocator keeps for reuse back to the system, between the stages of an
// analysis. jemalloc (the mesh2dsp binary's allocator) keeps freed pages for about ten seconds
// (its default decay) before returning them: the 5 mm benchmark bar held 98 MB after its coarse
// pass, 44 MB once they were handed back. Most such pages are reused by the next stage's
// allocations, but not all (size classes, arenas): handed back before the eigen solve's
// factorization and after its Lanczos setup, the bar's peak fell 231 -> 224 MB, for no
// measurable time. Purging at every free (jemalloc's decay 0) cost up to a second on
// 100 k-DOF solves. jemalloc is looked up at run time (mallctl); under glibc's allocator
// malloc_trim does the same.
namespace mesh2dsp {

void return_free_memory_to_system();

// Writes one byte of every page of `bytes` of fresh memory (with zero: for memory whose contents
// do not matter yet, or are zero already), split over every core, so that its pages are really
// there before a single-threaded stage writes it. On this kind of virtual machine each first
// touch of a page is a host fault: 1.4-1.6 s/GB on one core, 0.6-0.8 s/GB on two (measured
// here). Nothing below `from_bytes`. Its own threads, not run_parts: it is also called from
// inside run_parts' workers (CHOLMOD's allocations during the orderings).
void fault_in_on_every_core(void* memory, std::size_t bytes, std::size_t from_bytes = std::size_t{64} << 20);

// Asks the kernel for transparent huge pages (2 MiB) under the allocator's large allocations
// only: those of jemalloc's arena for oversized requests (8 MiB and up by default: the
// matrices, the factor, the Lanczos basis and its blocks). On this kind of virtual machine a
// first touch of a 4 KiB page is a host fault (10-13 µs here): a sword scan's 50 modes took
// 760 k of them. Small allocations stay on 4 KiB pages, so a small analysis does not grow by
// the rounding of every arena's heap to huge pages (jemalloc's "thp:always": the 5 mm bar
// 178 -> 199 MB). Does nothing without jemalloc (it is looked up at run time) or where the
// kernel has no madvise'd huge pages. Call once, early, from the binary's main thread.
void use_huge_pages_for_large_allocations();

// A block of memory faulted in on a thread of its own while the caller's thread works on, for
// one large allocation the caller knows is coming: a single-threaded stage lends the idle core
// the next stage's first touches (on this kind of virtual machine a host fault per page, up to
// 2-3 s/GB here). The caller bounds `bytes` by the memory it may use.
class WarmBlock {
 public:
  explicit WarmBlock(std::size_t bytes);
  ~WarmBlock();
  // Stops the touching where it got to; the block (malloc'd: the caller frees it) when it holds
  // `bytes`, its pages past them handed back; else null (and the block is freed).
  void* take(std::size_t bytes);
  std::size_t size() const { return bytes_; }
  WarmBlock(const WarmBlock&) = delete;
  WarmBlock& operator=(const WarmBlock&) = delete;

 private:
  void stop();
  std::size_t bytes_ = 0;
  char* block_ = nullptr;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace mesh2dsp
