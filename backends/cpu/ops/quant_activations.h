// Activations (rows of x) quantised to int8 blocks for the block-format MATMUL kernels,
// in the two layouts the weight formats pair with:
//  - Q8Block (32 values) for the 32-element formats: d = max |x| / 127 and s = d * sum(q),
//    both rounded to f16 as stored blocks are, q = round(x * 127 / max |x|);
//  - Q8KBlock (256 values) for the K formats: d = -max / 127 for the value of largest
//    magnitude (so it becomes -127), q = round(x / d) and the sums of each 16.
// These are the activation layouts llama.cpp's CPU kernels use, so both engines round
// the same inputs to the same integers.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::cpu {

struct Q8Block {
  int8_t q[32];
  float d;  // f16-rounded
  float s;    // f16-rounded d * sum(q)
  int32_t sum;  // sum(q), exact
};

struct Q8KBlock {
  int8_t q[256];
  float d;
  int16_t sums[16];  // sum of q over each 16
};

}  // namespace tessera::cpu

// One row of K values (K a multiple of 32, resp. 256) into blocks: compiled per
// instruction set (isa_target.h), declared for the variant that includes this.
#if defined(TESSERA_CPU_ISA_NS)
namespace tessera::cpu::TESSERA_CPU_ISA_NS {
void quantize_q8_row(const float* x, int64_t K, Q8Block* out);
void quantize_q8k_row(const float* x, int64_t K, Q8KBlock* out);
}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS
#endif
