#include "wav_output.hpp"

#include <fmt/format.h>
#include <sndfile.h>

#include <fstream>

#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace mesh2dsp {

void check_writable(const std::filesystem::path& path) {
  const auto dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw Error(fmt::format("cannot write {}: directory {} does not exist", path.string(), dir.string()));
  if (std::filesystem::is_directory(path, ec))
    throw Error(fmt::format("cannot write {}: it is a directory", path.string()));
  const auto probe = temporary_sibling(path);
  {
    std::ofstream out(probe, std::ios::binary);
    if (!out) throw Error(fmt::format("cannot write {}: cannot create a file there", path.string()));
  }
  std::filesystem::remove(probe, ec);
}

void write_wav_float(const std::filesystem::path& path,
                     const std::vector<std::vector<float>>& channels, int sample_rate_hz) {
  if (channels.empty()) throw Error("no audio channel to write");
  const size_t frames = channels.front().size();
  SF_INFO info{};
  info.samplerate = sample_rate_hz;
  info.channels = static_cast<int>(channels.size());
  info.format = SF_FORMAT_WAV | SF_FORMAT_FLOAT;
  const auto temporary = temporary_sibling(path);
  SNDFILE* file = sf_open(temporary.c_str(), SFM_WRITE, &info);
  if (!file) {
    // sf_open may have created the file before failing (a full disk): leave nothing behind.
    const std::string reason = sf_strerror(nullptr);
    std::error_code ec;
    std::filesystem::remove(temporary, ec);
    throw Error(fmt::format("cannot write {}: {}", path.string(), reason));
  }
  std::vector<float> interleaved(frames * channels.size());
  for (size_t i = 0; i < frames; ++i)
    for (size_t c = 0; c < channels.size(); ++c) interleaved[i * channels.size() + c] = channels[c][i];
  const sf_count_t written = sf_writef_float(file, interleaved.data(), static_cast<sf_count_t>(frames));
  const int close_error = sf_close(file);
  if (written != static_cast<sf_count_t>(frames) || close_error != 0) {
    std::error_code ec;
    std::filesystem::remove(temporary, ec);
    throw Error(fmt::format("cannot write {}: write failed (disk full?)", path.string()));
  }
  commit_temporary(temporary, path);
}

std::vector<std::vector<float>> read_wav_float(const std::filesystem::path& path, int* rate) {
  SF_INFO info{};
  SNDFILE* file = sf_open(path.c_str(), SFM_READ, &info);
  if (!file) throw Error(fmt::format("cannot read {}: {}", path.string(), sf_strerror(nullptr)));
  std::vector<float> interleaved(static_cast<size_t>(info.frames) * info.channels);
  sf_readf_float(file, interleaved.data(), info.frames);
  sf_close(file);
  if (rate) *rate = info.samplerate;
  std::vector<std::vector<float>> channels(info.channels, std::vector<float>(info.frames));
  for (sf_count_t i = 0; i < info.frames; ++i)
    for (int c = 0; c < info.channels; ++c) channels[c][i] = interleaved[i * info.channels + c];
  return channels;
}

}  // namespace mesh2dsp
