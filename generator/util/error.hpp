#pragma once
// One exception type for problems the user can fix (bad input, impossible request).
// The CLI prints its message once and exits non-zero; anything else is a bug.
#include <stdexcept>
#include <string>

namespace mesh2dsp {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace mesh2dsp
