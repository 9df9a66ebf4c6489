#pragma once
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

}  // namespace mesh2dsp
