#include "emit/number_format.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "util/error.hpp"

namespace mesh2dsp {
namespace {

template <class T>
std::string shortest(T value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (ec != std::errc()) throw Error("cannot format a number for emitted code");
  std::string text(buffer, end);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

}  // namespace

std::string float_literal(double value) {
  if (!std::isfinite(value) || std::abs(value) > std::numeric_limits<float>::max())
    throw Error(fmt::format("value {} cannot be represented as a float in emitted code", value));
  return shortest(static_cast<float>(value));
}

std::string c_float_literal(double value) { return float_literal(value) + "f"; }

std::string double_text(double value) {
  if (!std::isfinite(value)) throw Error("non-finite value in emitted text");
  return shortest(value);
}

}  // namespace mesh2dsp
