#include "runtime/render/sound_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace mesh2dsp::runtime {

SampleFormat parse_sample_format(const std::string& text) {
  if (text == "float" || text == "float32" || text == "f32") return SampleFormat::float32;
  if (text == "24" || text == "pcm24") return SampleFormat::pcm24;
  if (text == "16" || text == "pcm16") return SampleFormat::pcm16;
  throw Error(fmt::format("--format '{}': expected float, pcm24 or pcm16", text));
}

SoundFileReader::SoundFileReader(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw Error(fmt::format("{}: no such file", path.string()));
  file_ = sf_open(path.c_str(), SFM_READ, &info_);
  if (!file_)
    throw Error(fmt::format("{}: cannot read as a sound file: {}", path.string(),
                            sf_strerror(nullptr)));
  if (info_.channels < 1 || info_.samplerate < 1) {
    sf_close(file_);
    throw Error(fmt::format("{}: a sound file without channels or sample rate", path.string()));
  }
}

SoundFileReader::~SoundFileReader() {
  if (file_) sf_close(file_);
}

void SoundFileReader::read(float* const* channels, int frames) {
  interleaved_.resize(static_cast<std::size_t>(frames) * info_.channels);
  const auto got = sf_readf_float(file_, interleaved_.data(), frames);
  for (int c = 0; c < info_.channels; ++c)
    for (int i = 0; i < frames; ++i)
      channels[c][i] = i < got ? interleaved_[static_cast<std::size_t>(i) * info_.channels + c] : 0.0f;
}

SoundFileWriter::SoundFileWriter(const std::filesystem::path& path, int channels,
                                 int sample_rate_hz, SampleFormat format)
    : path_(path), channels_(channels), integer_(format != SampleFormat::float32) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  int container = 0;
  if (ext == ".wav") container = SF_FORMAT_WAV;
  else if (ext == ".flac") container = SF_FORMAT_FLAC;
  else if (ext == ".aif" || ext == ".aiff") container = SF_FORMAT_AIFF;
  else
    throw Error(fmt::format("{}: unknown output type '{}'; use .wav, .flac or .aiff",
                            path.string(), ext));
  if (container == SF_FORMAT_FLAC && format == SampleFormat::float32)
    throw Error(fmt::format("{}: FLAC stores integers only; use --format pcm24 or a .wav file",
                            path.string()));
  const int subtype = format == SampleFormat::float32 ? SF_FORMAT_FLOAT
                      : format == SampleFormat::pcm24 ? SF_FORMAT_PCM_24
                                                      : SF_FORMAT_PCM_16;
  const auto dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw Error(fmt::format("cannot write {}: directory {} does not exist", path.string(),
                            dir.string()));
  SF_INFO info{};
  info.channels = channels;
  info.samplerate = sample_rate_hz;
  info.format = container | subtype;
  if (!sf_format_check(&info))
    throw Error(fmt::format("{}: libsndfile cannot write {} channels at {} Hz in this format",
                            path.string(), channels, sample_rate_hz));
  temporary_ = temporary_sibling(path);
  file_ = sf_open(temporary_.c_str(), SFM_WRITE, &info);
  if (!file_) {
    // sf_open may have created the file before failing (a full disk): leave nothing behind.
    const std::string reason = sf_strerror(nullptr);
    std::filesystem::remove(temporary_, ec);
    throw Error(fmt::format("cannot write {}: {}", path.string(), reason));
  }
  // Integer formats: clip rather than wrap around (libsndfile's default for float → int).
  if (integer_) sf_command(file_, SFC_SET_CLIPPING, nullptr, SF_TRUE);
}

SoundFileWriter::~SoundFileWriter() {
  if (file_) {
    sf_close(file_);
    std::error_code ec;
    std::filesystem::remove(temporary_, ec);
  }
}

void SoundFileWriter::write(const float* const* channels, int frames) {
  interleaved_.resize(static_cast<std::size_t>(frames) * channels_);
  for (int i = 0; i < frames; ++i)
    for (int c = 0; c < channels_; ++c) {
      const float v = channels[c][i];
      if (integer_ && std::fabs(v) > 1.0f) ++clipped_;
      interleaved_[static_cast<std::size_t>(i) * channels_ + c] = v;
    }
  if (sf_writef_float(file_, interleaved_.data(), frames) != frames)
    throw Error(fmt::format("cannot write {}: {}", path_.string(), sf_strerror(file_)));
}

void SoundFileWriter::commit() {
  const int status = sf_close(file_);
  file_ = nullptr;
  if (status != 0) {
    std::error_code ec;
    std::filesystem::remove(temporary_, ec);
    throw Error(fmt::format("cannot write {}: {}", path_.string(), sf_error_number(status)));
  }
  commit_temporary(temporary_, path_);
}

}  // namespace mesh2dsp::runtime
