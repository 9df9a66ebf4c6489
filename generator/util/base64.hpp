#pragma once
// Base64 (RFC 4648, with padding): binary data inside HTML data: URIs and JavaScript strings.
#include <string>

namespace mesh2dsp {

std::string base64(const std::string& bytes);

}  // namespace mesh2dsp
