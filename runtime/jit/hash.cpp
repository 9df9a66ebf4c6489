#include "runtime/jit/hash.hpp"

#include <fmt/format.h>

namespace mesh2dsp::runtime {
namespace {

constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

std::uint64_t fnv1a(std::string_view bytes, std::uint64_t state) {
  for (unsigned char c : bytes) {
    state ^= c;
    state *= kFnvPrime;
  }
  return state;
}

// splitmix64 finaliser: spreads FNV's weak high bits.
std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

}  // namespace

std::string content_hash_hex(std::string_view bytes) {
  const auto a = mix(fnv1a(bytes, 0xcbf29ce484222325ULL) ^ bytes.size());
  const auto b = mix(fnv1a(bytes, 0x84222325cbf29ce4ULL) + 0x9e3779b97f4a7c15ULL * bytes.size());
  return fmt::format("{:016x}{:016x}", a, b);
}

}  // namespace mesh2dsp::runtime
