#pragma once
// The message of the mesh2dsp::Error a callable throws, for tests of error messages.
#include <gtest/gtest.h>

#include <string>

#include "util/error.hpp"

namespace mesh2dsp::test {

// The message of the Error thrown by f, or "" (and a test failure) if none was thrown.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no mesh2dsp::Error thrown";
  return {};
}

}  // namespace mesh2dsp::test
