#pragma once
// The report's plots, drawn here as self-contained SVG (spectrograms as PNG images embedded in
// the SVG as data: URIs), so report.html needs no network and no plotting library.
#include <string>
#include <vector>

#include "validate/signal_analysis.hpp"

#include "util/base64.hpp"  // base64, for the data: URIs

namespace mesh2dsp::validate {

// Plot colours: the report's legend and the tests refer to them.
inline constexpr const char* kReferenceColour = "#1f77b4";  // blue
inline constexpr const char* kGeneratedColour = "#d62728";  // red
inline constexpr const char* kMatchedColour = "#2ca02c";    // green
inline constexpr const char* kFailedColour = "#ff7f0e";     // orange
inline constexpr const char* kWeakColour = "#9a9a9a";       // grey

struct ModeMark {
  double frequency_hz = 0;
  std::string colour;
  std::string label;  // tooltip
};

// Two level curves (dB against log frequency) overlaid, with the model's modes as vertical
// lines. Levels are shown re each curve's own maximum over [lo_hz, hi_hz].
std::string spectrum_svg(const signal::Spectrum& reference, const signal::Spectrum& generated,
                         double lo_hz, double hi_hz, const std::vector<ModeMark>& marks,
                         int width_px = 900, int height_px = 340);

// A spectrogram as an image (log frequency upwards, time to the right, 70 dB of range from
// the given top level) with axes and a title.
std::string spectrogram_svg(const signal::Spectrogram& sg, double lo_hz, double hi_hz,
                            double top_db, const std::string& title, int width_px = 440,
                            int height_px = 300);

// An RGB image as a PNG file (8 bit, no interlace), for the data: URIs above.
std::string encode_png(int width, int height, const std::vector<unsigned char>& rgb);

// Text safe inside XML/HTML content and double-quoted attributes.
std::string xml_escape(const std::string& text);

}  // namespace mesh2dsp::validate
