// See decode_rows.h.
#include "backends/cpu/decode_rows.h"

#include <cstdlib>
#include <cstring>
#include <string_view>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace tessera::cpu {
namespace {

bool intel_processor() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0) return false;
  char vendor[12];  // ebx, edx, ecx: "GenuineIntel", "AuthenticAMD", ...
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  return std::string_view(vendor, sizeof vendor) == "GenuineIntel";
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

}  // namespace

DecodeRows decode_rows() {
  static const DecodeRows rows = choose();
  return rows;
}

const char* decode_rows_name(DecodeRows rows) { return rows == DecodeRows::kFar ? "far" : "near"; }

}  // namespace tessera::cpu
