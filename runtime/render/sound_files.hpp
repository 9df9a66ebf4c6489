#pragma once
// Sound file input and output through libsndfile. Output goes to a temporary next to the target
// and is renamed only by commit(): an interrupted or failed render leaves no half-written file.
#include <sndfile.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace mesh2dsp::runtime {

enum class SampleFormat { float32, pcm24, pcm16 };

// "float", "24" / "pcm24", "16" / "pcm16"; Error otherwise.
SampleFormat parse_sample_format(const std::string& text);

class SoundFileReader {
 public:
  explicit SoundFileReader(const std::filesystem::path& path);  // Error if unreadable
  ~SoundFileReader();
  SoundFileReader(const SoundFileReader&) = delete;
  SoundFileReader& operator=(const SoundFileReader&) = delete;

  int channels() const { return info_.channels; }
  int sample_rate_hz() const { return info_.samplerate; }
  std::int64_t frames() const { return info_.frames; }

  // De-interleaves the next `frames` frames into channels[c]; zeros after the end of the file.
  void read(float* const* channels, int frames);

 private:
  SNDFILE* file_ = nullptr;
  SF_INFO info_{};
  std::vector<float> interleaved_;
};

class SoundFileWriter {
 public:
  // The container follows the extension (.wav, .flac, .aif/.aiff); Error for others and for
  // combinations libsndfile cannot write (float FLAC).
  SoundFileWriter(const std::filesystem::path& path, int channels, int sample_rate_hz,
                  SampleFormat format);
  ~SoundFileWriter();  // removes the temporary unless committed
  SoundFileWriter(const SoundFileWriter&) = delete;
  SoundFileWriter& operator=(const SoundFileWriter&) = delete;

  void write(const float* const* channels, int frames);
  void commit();  // closes and renames onto the target

  // Samples beyond ±1 that an integer format clipped.
  std::int64_t clipped_samples() const { return clipped_; }

 private:
  std::filesystem::path path_, temporary_;
  SNDFILE* file_ = nullptr;
  int channels_;
  bool integer_;
  std::int64_t clipped_ = 0;
  std::vector<float> interleaved_;
};

}  // namespace mesh2dsp::runtime
