#pragma once
// Float WAV output (libsndfile), one channel per listener, written to a temporary next to the
// target and renamed, so a failure never leaves a half-written file.
#include <filesystem>
#include <vector>

namespace mesh2dsp {

// Throws mesh2dsp::Error naming the file and the problem.
void write_wav_float(const std::filesystem::path& path,
                     const std::vector<std::vector<float>>& channels, int sample_rate_hz);

// Reads a WAV (any format libsndfile reads) as float channels; for tests and validation.
std::vector<std::vector<float>> read_wav_float(const std::filesystem::path& path,
                                               int* sample_rate_hz = nullptr);

// Throws mesh2dsp::Error when no file can be created in `path`'s directory (checked before a
// long render, so the user learns about a typo at once).
void check_writable(const std::filesystem::path& path);

}  // namespace mesh2dsp
