// What the AMX kernels share (quant_amx.h for int8, bf16_amx.h for bf16): the tile
// configuration, loaded per thread before its tile products and released after. Include
// only from kernel-variant sources (isa_target.h) built with the AMX targets.
#pragma once

#include <cstdint>

#include <immintrin.h>

#if TESSERA_CPU_AVX512
namespace tessera::cpu::TESSERA_CPU_ISA_NS::amx {

// Palette 1: per tile t, rows[t] rows of colsb[t] bytes (at most 16 x 64).
struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

// Loads `config` on this thread for the object's lifetime, then releases the tile state.
class TileScope {
 public:
  explicit TileScope(const TileConfig& config) {
    // ldtilecfg through asm with the whole config as its operand: g++ 12's
    // _tile_loadconfig declares an 8-byte read, and the stores filling the rest are dropped.
    asm volatile("ldtilecfg %0" : : "m"(config));
  }
  ~TileScope() { _tile_release(); }
  TileScope(const TileScope&) = delete;
  TileScope& operator=(const TileScope&) = delete;
};

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS::amx
#endif
