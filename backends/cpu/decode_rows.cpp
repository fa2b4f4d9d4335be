// See decode_rows.h.
#include "backends/cpu/decode_rows.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace tessera::cpu {
namespace {

// "GenuineIntel", "AuthenticAMD", ...; empty where cpuid does not tell.
std::string vendor() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0) return {};
  std::string name(12, '\0');  // ebx, edx, ecx
  std::memcpy(name.data(), &b, 4);
  std::memcpy(name.data() + 4, &d, 4);
  std::memcpy(name.data() + 8, &c, 4);
  return name;
#else
  return {};
#endif
}

bool intel_processor() { return vendor() == "GenuineIntel"; }

// AMD family 19h models 00h-0Fh (EPYC Milan) and 20h-5Fh (Ryzen 5000): Zen 3. Zen 4 is
// family 19h too, at models 10h-1Fh, 60h-7Fh and A0h-AFh.
bool amd_zen3_processor() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (vendor() != "AuthenticAMD" || __get_cpuid(1, &a, &b, &c, &d) == 0) return false;
  const unsigned base_family = (a >> 8) & 0xF;
  const unsigned family = base_family == 0xF ? base_family + ((a >> 20) & 0xFF) : base_family;
  const unsigned model = ((a >> 4) & 0xF) | (((a >> 16) & 0xF) << 4);
  return family == 0x19 && (model <= 0x0F || (model >= 0x20 && model <= 0x5F));
#else
  return false;
#endif
}

DecodeRows choose() {
  const char* env = std::getenv("TESSERA_CPU_DECODE_ROWS");
  const std::string_view want = env == nullptr ? "" : env;
  if (want == "near") return DecodeRows::kNear;
  if (want == "far") return DecodeRows::kFar;
  return intel_processor() ? DecodeRows::kFar : DecodeRows::kNear;
}

// TESSERA_CPU_DECODE_READ_AHEAD as bytes, or -1 where it is unset or not a byte count.
int64_t read_ahead_asked() {
  const char* env = std::getenv("TESSERA_CPU_DECODE_READ_AHEAD");
  if (env == nullptr || *env == '\0') return -1;
  if (std::string_view(env) == "off") return 0;
  char* end = nullptr;
  const long long bytes = std::strtoll(env, &end, 10);
  if (*end != '\0' || bytes < 0 || bytes > 65536) {
    std::fprintf(stderr, "tessera: TESSERA_CPU_DECODE_READ_AHEAD=%s is not a byte count in 0 .. 65536 or off; ignored\n",
                 env);
    return -1;
  }
  return bytes;
}

}  // namespace

DecodeRows decode_rows() {
  static const DecodeRows rows = choose();
  return rows;
}

const char* decode_rows_name(DecodeRows rows) { return rows == DecodeRows::kFar ? "far" : "near"; }

int64_t decode_read_ahead() {
  static const int64_t bytes = [] {
    const int64_t asked = read_ahead_asked();
    if (asked >= 0) return asked;
    if (intel_processor()) return int64_t{3072};
    return amd_zen3_processor() ? int64_t{1024} : int64_t{0};
  }();
  return bytes;
}

}  // namespace tessera::cpu
