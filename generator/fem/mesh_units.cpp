#include "fem/mesh_units.hpp"

#include <fmt/format.h>

#include <cmath>

#include "util/progress.hpp"

namespace mesh2dsp {

namespace {

struct Unit {
  const char* name;
  const char* long_name;
  double metres;
};
constexpr Unit kUnits[] = {
    {"mm", "millimetres", 0.001}, {"cm", "centimetres", 0.01}, {"in", "inches", 0.0254}, {"m", "metres", 1.0}};

// Sounding objects a user models: from a 1 mm chime wire to a 20 m sculpture.
constexpr double kSmallest_m = 1e-3, kLargest_m = 20;
constexpr double kTypical_m = 0.3;  // what a guessed unit should come closest to

}  // namespace

std::optional<double> unit_scale(std::string_view unit) {
  for (const auto& u : kUnits)
    if (unit == u.name) return u.metres;
  return std::nullopt;
}

std::string implausible_size_message(double diagonal_m, double scale) {
  if (!(diagonal_m > 0) || !std::isfinite(diagonal_m) ||
      (diagonal_m >= kSmallest_m && diagonal_m <= kLargest_m))
    return {};
  const double in_file_units = diagonal_m / scale;
  const std::string read_as =
      scale == 1 ? "reading the file as metres" : fmt::format("file coordinates × {:g}", scale);
  std::string message = fmt::format(
      "the object is {:.3g} {} across (bounding-box diagonal, {}): implausible for a sounding "
      "object; ",
      diagonal_m < 1 ? 1e3 * diagonal_m : diagonal_m, diagonal_m < 1 ? "mm" : "m", read_as);
  // The unit that makes the object most like a typical one, if any makes it plausible.
  const Unit* best = nullptr;
  for (const auto& u : kUnits) {
    const double d = in_file_units * u.metres;
    if (d < kSmallest_m || d > kLargest_m) continue;
    if (!best || std::abs(std::log(d / kTypical_m)) <
                     std::abs(std::log(in_file_units * best->metres / kTypical_m)))
      best = &u;
  }
  if (best)
    return message + fmt::format(
                         "if the file is in {}, use --units {} (= --scale {:g}; {:.3g} m across)",
                         best->long_name, best->name, best->metres, in_file_units * best->metres);
  const double factor = std::pow(10.0, std::round(std::log10(kTypical_m / in_file_units)));
  return message + fmt::format("--scale {:g} would make it {:.3g} m across", factor,
                               in_file_units * factor);
}

void notice_implausible_size(const Eigen::MatrixXd& vertices_m, double scale) {
  if (vertices_m.rows() == 0) return;
  const double diagonal_m = (vertices_m.colwise().maxCoeff() - vertices_m.colwise().minCoeff()).norm();
  if (const auto message = implausible_size_message(diagonal_m, scale); !message.empty())
    notice(message);
}

}  // namespace mesh2dsp
