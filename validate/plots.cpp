#include "validate/plots.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "util/error.hpp"

namespace mesh2dsp::validate {
namespace {

constexpr int kLeft = 56, kRight = 14, kTop = 28, kBottom = 40;  // plot margins (px)

std::string frequency_label(double f) {
  return f >= 1000 ? fmt::format("{:g}k", f / 1000) : fmt::format("{:g}", f);
}

// 1-2-5 ticks within [lo, hi].
std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> ticks;
  for (double decade = std::pow(10.0, std::floor(std::log10(lo))); decade <= hi; decade *= 10)
    for (double m : {1.0, 2.0, 5.0})
      if (m * decade >= lo && m * decade <= hi) ticks.push_back(m * decade);
  return ticks;
}

struct LogAxis {
  double lo, hi, x0, x1;
  double operator()(double f) const {
    return x0 + (x1 - x0) * std::log(f / lo) / std::log(hi / lo);
  }
};

// The maximum level (dB re `top`) of the bins that fall in each pixel column: peaks survive
// the reduction from tens of thousands of bins to a few hundred points.
std::string curve_points(const signal::Spectrum& s, const LogAxis& x, double y_top, double y_bottom,
                         double db_range) {
  const double top = [&] {
    double m = 0;
    for (std::size_t k = 1; k < s.magnitude.size(); ++k) {
      const double f = k * s.bin_hz;
      if (f >= x.lo && f <= x.hi) m = std::max(m, s.magnitude[k]);
    }
    return std::max(m, 1e-300);
  }();
  std::string points;
  const int columns = static_cast<int>(x.x1 - x.x0);
  for (int c = 0; c <= columns; ++c) {
    const double f0 = x.lo * std::pow(x.hi / x.lo, static_cast<double>(c) / (columns + 1));
    const double f1 = x.lo * std::pow(x.hi / x.lo, static_cast<double>(c + 1) / (columns + 1));
    auto k0 = static_cast<std::size_t>(std::floor(f0 / s.bin_hz));
    auto k1 = static_cast<std::size_t>(std::ceil(f1 / s.bin_hz));
    k1 = std::min(k1, s.magnitude.size() - 1);
    double m = 0;
    for (std::size_t k = k0; k <= k1; ++k) m = std::max(m, s.magnitude[k]);
    const double db = std::clamp(20 * std::log10(std::max(m, 1e-300) / top), -db_range, 0.0);
    const double y = y_top + (y_bottom - y_top) * (-db / db_range);
    points += fmt::format("{:.1f},{:.1f} ", x.x0 + c, y);
  }
  return points;
}

// A perceptually ordered colour map (viridis, sampled at 6 points): 0 = dark, 1 = bright.
std::array<unsigned char, 3> colour_map(double v) {
  static const double stops[6][3] = {{68, 1, 84},    {65, 68, 135},  {42, 120, 142},
                                     {34, 168, 132}, {122, 209, 81}, {253, 231, 37}};
  v = std::clamp(v, 0.0, 1.0) * 5;
  const int i = std::min(4, static_cast<int>(v));
  const double t = v - i;
  std::array<unsigned char, 3> rgb;
  for (int c = 0; c < 3; ++c)
    rgb[c] = static_cast<unsigned char>(std::lround(stops[i][c] + t * (stops[i + 1][c] - stops[i][c])));
  return rgb;
}

void png_chunk(std::string& out, const char* type, const std::string& data) {
  auto be32 = [&](uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) out += static_cast<char>((v >> s) & 0xff);
  };
  be32(static_cast<uint32_t>(data.size()));
  const std::string body = std::string(type, 4) + data;
  out += body;
  be32(static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()))));
}

}  // namespace

std::string encode_png(int width, int height, const std::vector<unsigned char>& rgb) {
  std::string raw;
  raw.reserve(static_cast<std::size_t>(height) * (3 * width + 1));
  for (int y = 0; y < height; ++y) {
    raw += '\0';  // filter: none
    raw.append(reinterpret_cast<const char*>(rgb.data()) + static_cast<std::size_t>(y) * 3 * width, 3 * width);
  }
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::string compressed(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(compressed.data()), &size,
                reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()), 6) != Z_OK)
    throw Error("cannot compress the spectrogram image");
  compressed.resize(size);
  std::string png = "\x89PNG\r\n\x1a\n";
  std::string header;
  for (uint32_t v : {static_cast<uint32_t>(width), static_cast<uint32_t>(height)})
    for (int s = 24; s >= 0; s -= 8) header += static_cast<char>((v >> s) & 0xff);
  header += std::string("\x08\x02\x00\x00\x00", 5);  // 8 bit, RGB, deflate, filter 0, no interlace
  png_chunk(png, "IHDR", header);
  png_chunk(png, "IDAT", compressed);
  png_chunk(png, "IEND", "");
  return png;
}

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string spectrum_svg(const signal::Spectrum& reference, const signal::Spectrum& generated,
                         double lo_hz, double hi_hz, const std::vector<ModeMark>& marks,
                         int width, int height) {
  constexpr double kRange_db = 90;
  const LogAxis x{lo_hz, hi_hz, static_cast<double>(kLeft), static_cast<double>(width - kRight)};
  const double y0 = kTop, y1 = height - kBottom;
  std::string svg = fmt::format(
      "<svg class=\"plot spectrum\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"overlaid spectra\">\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
      width, height);
  // Grid and axes.
  for (double f : log_ticks(lo_hz, hi_hz))
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#e4e4e4\"/>"
                       "<text x=\"{0:.1f}\" y=\"{3}\" font-size=\"11\" text-anchor=\"middle\">{4}</text>\n",
                       x(f), y0, y1, y1 + 14, frequency_label(f));
  for (int db = 0; db >= -kRange_db; db -= 20) {
    const double y = y0 + (y1 - y0) * (-db / kRange_db);
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#e4e4e4\"/>"
                       "<text x=\"{3}\" y=\"{4:.1f}\" font-size=\"11\" text-anchor=\"end\">{5}</text>\n",
                       kLeft, y, width - kRight, kLeft - 4, y + 4, db);
  }
  svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>\n",
                     kLeft, y0, width - kLeft - kRight, y1 - y0);
  svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">frequency (Hz)</text>\n",
                     (kLeft + width - kRight) / 2, height - 8);
  svg += fmt::format("<text x=\"14\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\" "
                     "transform=\"rotate(-90 14 {})\">level (dB re max)</text>\n",
                     (y0 + y1) / 2, (y0 + y1) / 2);
  // Mode lines under the curves.
  for (const auto& m : marks) {
    if (m.frequency_hz < lo_hz || m.frequency_hz > hi_hz) continue;
    svg += fmt::format("<line class=\"mode\" x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"{3}\" "
                       "stroke-width=\"1.5\" stroke-dasharray=\"3,2\"><title>{4}</title></line>\n",
                       x(m.frequency_hz), y0, y1, m.colour, xml_escape(m.label));
  }
  // The reference wide underneath, the generated narrow on top: where they agree the red line
  // runs inside the blue one, where they differ both show.
  svg += fmt::format("<polyline class=\"reference\" fill=\"none\" stroke=\"{}\" stroke-width=\"3.5\" points=\"{}\"/>\n",
                     kReferenceColour, curve_points(reference, x, y0, y1, kRange_db));
  svg += fmt::format("<polyline class=\"generated\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.3\" "
                     "points=\"{}\"/>\n",
                     kGeneratedColour, curve_points(generated, x, y0, y1, kRange_db));
  // Legend.
  svg += fmt::format(
      "<g font-size=\"12\"><line x1=\"{0}\" y1=\"14\" x2=\"{1}\" y2=\"14\" stroke=\"{2}\" stroke-width=\"2\"/>"
      "<text x=\"{3}\" y=\"18\">reference</text>"
      "<line x1=\"{4}\" y1=\"14\" x2=\"{5}\" y2=\"14\" stroke=\"{6}\" stroke-width=\"2\"/>"
      "<text x=\"{7}\" y=\"18\">generated</text>"
      "<line x1=\"{8}\" y1=\"8\" x2=\"{8}\" y2=\"20\" stroke=\"{9}\" stroke-dasharray=\"3,2\"/>"
      "<text x=\"{10}\" y=\"18\">mode matched</text>"
      "<line x1=\"{11}\" y1=\"8\" x2=\"{11}\" y2=\"20\" stroke=\"{12}\" stroke-dasharray=\"3,2\"/>"
      "<text x=\"{13}\" y=\"18\">mode failed</text>"
      "<line x1=\"{14}\" y1=\"8\" x2=\"{14}\" y2=\"20\" stroke=\"{15}\" stroke-dasharray=\"3,2\"/>"
      "<text x=\"{16}\" y=\"18\">weak (not judged)</text></g>\n",
      kLeft, kLeft + 24, kReferenceColour, kLeft + 28, kLeft + 100, kLeft + 124, kGeneratedColour,
      kLeft + 128, kLeft + 210, kMatchedColour, kLeft + 215, kLeft + 320, kFailedColour, kLeft + 325,
      kLeft + 420, kWeakColour, kLeft + 425);
  svg += "</svg>\n";
  return svg;
}

std::string spectrogram_svg(const signal::Spectrogram& sg, double lo_hz, double hi_hz, double top_db,
                            const std::string& title, int width, int height) {
  constexpr double kRange_db = 70;
  const int image_w = std::max<int>(1, static_cast<int>(sg.power.size()));
  const int image_h = 200;
  std::vector<unsigned char> rgb(static_cast<std::size_t>(image_w) * image_h * 3);
  for (int y = 0; y < image_h; ++y) {
    // Row y covers a band of log frequency; the brightest bin in it is shown.
    const double f_hi = lo_hz * std::pow(hi_hz / lo_hz, 1.0 - static_cast<double>(y) / image_h);
    const double f_lo = lo_hz * std::pow(hi_hz / lo_hz, 1.0 - static_cast<double>(y + 1) / image_h);
    for (int t = 0; t < image_w; ++t) {
      double p = 0;
      if (!sg.power.empty()) {
        const auto& frame = sg.power[t];
        auto k0 = static_cast<std::size_t>(std::floor(f_lo / sg.bin_hz));
        auto k1 = std::min(frame.size() - 1, static_cast<std::size_t>(std::ceil(f_hi / sg.bin_hz)));
        for (std::size_t k = k0; k <= k1; ++k) p = std::max(p, static_cast<double>(frame[k]));
      }
      const double db = 10 * std::log10(std::max(p, 1e-300));
      const auto c = colour_map((db - (top_db - kRange_db)) / kRange_db);
      std::copy(c.begin(), c.end(), rgb.begin() + (static_cast<std::size_t>(y) * image_w + t) * 3);
    }
  }
  const std::string uri = "data:image/png;base64," + base64(encode_png(image_w, image_h, rgb));
  const double x0 = kLeft, x1 = width - kRight, y0 = kTop, y1 = height - kBottom;
  const double t_end = sg.time_s.empty() ? 1 : sg.time_s.back() + 0.5 * sg.frame / (sg.bin_hz * sg.frame);
  std::string svg = fmt::format(
      "<svg class=\"plot spectrogram\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"{2}\">\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n"
      "<text x=\"{3}\" y=\"18\" font-size=\"13\" font-weight=\"bold\">{2}</text>\n"
      "<image x=\"{4}\" y=\"{5}\" width=\"{6}\" height=\"{7}\" preserveAspectRatio=\"none\" "
      "style=\"image-rendering:pixelated\" href=\"{8}\"/>\n",
      width, height, xml_escape(title), kLeft, x0, y0, x1 - x0, y1 - y0, uri);
  const LogAxis f{lo_hz, hi_hz, y1, y0};
  for (double tick : log_ticks(lo_hz, hi_hz))
    svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{}</text>\n",
                       x0 - 4, f(tick) + 4, frequency_label(tick));
  for (int i = 0; i <= 4; ++i) {
    const double t = t_end * i / 4;
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{:.2g}</text>\n",
                       x0 + (x1 - x0) * i / 4, y1 + 14, t);
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">time (s)</text>\n",
                     (x0 + x1) / 2, height - 8);
  svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>\n",
                     x0, y0, x1 - x0, y1 - y0);
  svg += "</svg>\n";
  return svg;
}

}  // namespace mesh2dsp::validate
