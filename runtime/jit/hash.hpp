#pragma once
// A stable, dependency-free content hash for naming cache entries. Not cryptographic: the cache
// stores the full key next to the code and compares it, so a collision costs a recompile only.
#include <cstdint>
#include <string>
#include <string_view>

namespace mesh2dsp::runtime {

// 128 bits as 32 hex digits (two FNV-1a 64 lanes with different offsets and a final mix).
std::string content_hash_hex(std::string_view bytes);

}  // namespace mesh2dsp::runtime
