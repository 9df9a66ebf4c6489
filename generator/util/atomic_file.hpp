#pragma once
// Writing outputs so that a failure never leaves a half-written file behind:
// write to a temporary next to the target, then rename over it.
#include <filesystem>
#include <functional>
#include <ostream>
#include <string_view>

namespace mesh2dsp {

// Calls `write` with a stream on a temporary file in the target's directory and renames it
// to `path` only if `write` returned normally and the stream is good. Throws mesh2dsp::Error.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write);

void write_text_atomically(const std::filesystem::path& path, std::string_view text);

// A temporary path next to `path` for tools that write files themselves; the caller renames it
// with commit_temporary() when done, or removes it on failure. Until then it is registered for
// removal on SIGINT, SIGTERM and SIGHUP (a handler installed where the signal is still at its
// default), so an interrupted run leaves no partial file behind.
std::filesystem::path temporary_sibling(const std::filesystem::path& path);
void commit_temporary(const std::filesystem::path& temporary, const std::filesystem::path& path);

}  // namespace mesh2dsp
