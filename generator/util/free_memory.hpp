#pragma once
// Hands the memory the allocator keeps for reuse back to the system, between the stages of an
// analysis. jemalloc (the mesh2dsp binary's allocator) keeps freed pages for about ten seconds
// before returning them, so what the meshing and the coarse pass freed was still resident when
// the eigen solve, where the analysis peaks, allocated its factor and basis: the 5 mm benchmark
// bar peaked at 231 MB, 44 MB of it freed pages. Purging at every free (jemalloc's decay 0) costs
// a few percent of the wall time on 100 k-DOF solves; purging at the stage boundaries costs
// nothing measurable. jemalloc is looked up at run time (mallctl); under glibc's allocator
// malloc_trim does the same.
namespace mesh2dsp {

void return_free_memory_to_system();

}  // namespace mesh2dsp
