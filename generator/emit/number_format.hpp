#pragma once
// Deterministic, locale-independent number text for emitted code: the shortest decimal that
// reads back to the same float (std::to_chars), so re-running the generator is byte-identical
// and the Faust and C++ outputs parse to the very same float constants.
#include <string>

namespace mesh2dsp {

// Shortest round-trip text of `value` rounded to float, always with a '.' or an exponent so
// every language reads it as a real number ("1" -> "1.0", "1e-05" stays). Throws
// mesh2dsp::Error for non-finite values or values outside the float range.
std::string float_literal(double value);

// The same followed by C's float suffix ("1.0f", "2.5e-07f").
std::string c_float_literal(double value);

// Shortest round-trip text of a double (for documentation comments and the .sy file).
std::string double_text(double value);

}  // namespace mesh2dsp
