// See isa.h. Detection reads cpuid and XCR0 directly: the compilers' feature builtins
// disagree on which names they know.
#include "backends/cpu/isa.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string_view>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace tessera::cpu {
namespace {

constexpr CpuIsa kLevels[] = {CpuIsa::kPortable, CpuIsa::kAvx2, CpuIsa::kAvx512};

#if defined(__x86_64__)
uint64_t read_xcr0() {
  uint32_t lo = 0, hi = 0;
  asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

bool has_bits(uint32_t reg, std::initializer_list<int> bits) {
  return std::all_of(bits.begin(), bits.end(), [&](int b) { return (reg >> b) & 1u; });
}
#endif

CpuIsa detect() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0) return CpuIsa::kPortable;
  // FMA 12, OSXSAVE 27, AVX 28, F16C 29: the OS must also save the YMM state (XCR0 bits 1, 2).
  if (!has_bits(c, {12, 27, 28, 29})) return CpuIsa::kPortable;
  const uint64_t xcr0 = read_xcr0();
  if ((xcr0 & 0x6) != 0x6) return CpuIsa::kPortable;
  unsigned a7 = 0, b7 = 0, c7 = 0, d7 = 0;
  if (__get_cpuid_count(7, 0, &a7, &b7, &c7, &d7) == 0) return CpuIsa::kPortable;
  if (!has_bits(b7, {5})) return CpuIsa::kPortable;  // AVX2
  // AVX512 F 16, DQ 17, BW 30, VL 31; VNNI is ecx bit 11; the OS saves opmask and ZMM
  // state (XCR0 bits 5..7).
  if (has_bits(b7, {16, 17, 30, 31}) && has_bits(c7, {11}) && (xcr0 & 0xE0) == 0xE0) return CpuIsa::kAvx512;
  return CpuIsa::kAvx2;
#else
  return CpuIsa::kPortable;
#endif
}

bool detect_avx512_bf16() {
#if defined(__x86_64__)
  if (detect() != CpuIsa::kAvx512) return false;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_count(7, 1, &a, &b, &c, &d) == 0) return false;
  return has_bits(a, {5});
#else
  return false;
#endif
}

struct Choice {
  CpuIsa isa;
  std::string why;
};

Choice choose() {
  const CpuIsa top = std::min(isa_built(), isa_supported());
  std::string note;
  if (isa_supported() > isa_built()) note = std::string("this build has no ") + isa_name(isa_supported()) + " copy";
  const char* env = std::getenv("TESSERA_CPU_ISA");
  if (env == nullptr || *env == '\0') return {top, note.empty() ? isa_name(top) : std::string(isa_name(top)) + " (" + note + ")"};
  const std::string_view want = env;
  for (CpuIsa level : kLevels) {
    if (want != isa_name(level)) continue;
    if (level > top) {
      return {top, std::string(isa_name(top)) + " (TESSERA_CPU_ISA=" + env + " is not available: the processor or the build stops at " + isa_name(top) + ")"};
    }
    return {level, std::string(isa_name(level)) + " (TESSERA_CPU_ISA=" + env + "; the processor has " + isa_name(isa_supported()) + ")"};
  }
  return {top, std::string(isa_name(top)) + " (TESSERA_CPU_ISA=" + env + " ignored: not one of portable, avx2, avx512)"};
}

const Choice& choice() {
  static const Choice c = choose();
  return c;
}

}  // namespace

const char* isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kAvx2: return "avx2";
    case CpuIsa::kAvx512: return "avx512";
    default: return "portable";
  }
}

CpuIsa isa_built() {
#if defined(TESSERA_CPU_BUILT_AVX512)
  return CpuIsa::kAvx512;
#elif defined(TESSERA_CPU_BUILT_AVX2)
  return CpuIsa::kAvx2;
#else
  return CpuIsa::kPortable;
#endif
}

CpuIsa isa_supported() {
  static const CpuIsa isa = detect();
  return isa;
}

bool cpu_has_avx512_bf16() {
  static const bool present = detect_avx512_bf16();
  return present;
}

CpuIsa isa_in_use() { return choice().isa; }

const std::string& isa_choice() { return choice().why; }

}  // namespace tessera::cpu
