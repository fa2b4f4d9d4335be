// See amx_support.h.
#include "backends/cpu/amx_support.h"

#include <cerrno>
#include <cstring>

#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace tessera::cpu {
namespace {

std::string probe() {
#if defined(__x86_64__) && defined(__linux__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return "the processor has no cpuid leaf 7";
  constexpr unsigned kAmxTile = 1u << 24, kAmxInt8 = 1u << 25;
  if ((d & kAmxTile) == 0 || (d & kAmxInt8) == 0) return "the processor has no AMX-INT8";
  // Linux keeps the 8 KiB tile state off until a process asks for it.
  constexpr long kReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  if (syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureXtiledata) != 0) {
    return std::string("Linux refused the tile state: ") + std::strerror(errno);
  }
  return "usable";
#else
  return "not an x86-64 Linux build";
#endif
}

}  // namespace

const std::string& amx_status() {
  static const std::string status = probe();
  return status;
}

bool amx_usable() { return amx_status() == "usable"; }

bool amx_bf16_usable() {
  static const bool usable = [] {
#if defined(__x86_64__) && defined(__linux__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    constexpr unsigned kAmxBf16 = 1u << 22;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && (d & kAmxBf16) != 0 && amx_usable();
#else
    return false;
#endif
  }();
  return usable;
}

}  // namespace tessera::cpu
