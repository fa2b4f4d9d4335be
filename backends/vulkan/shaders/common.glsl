// Shared declarations of the Tessera compute shaders: tensors are reached through
// buffer device addresses passed in push constants (no descriptor sets), so a tensor
// may sit at any offset of any size of buffer.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_16bit_storage : require

// A shader's subgroup-arithmetic variant is the same source compiled with
// -DTESSERA_SUBGROUPS=1 (into <name>_subgroup.spv): a module that declares
// GroupNonUniformArithmetic must not reach a device without it, so the plain build
// keeps its shared-memory reductions.
#ifndef TESSERA_SUBGROUPS
#define TESSERA_SUBGROUPS 0
#endif
#if TESSERA_SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

// The int8-dot variant (matmul_vec_int8) is compiled with -DTESSERA_INT8_DOT=1 as
// well: it declares the DotProduct capabilities, so its module only reaches a device
// created with shaderIntegerDotProduct. glslang 12 has no GL_EXT_integer_dot_product,
// hence the instruction itself: OpSDot (4450) with DotProduct (6019) and
// DotProductInput4x8BitPacked (6018); fmt 0 = PackedVectorFormat4x8Bit, so a and b are
// each four int8 (low byte first) and the result is their signed dot product.
#ifndef TESSERA_INT8_DOT
#define TESSERA_INT8_DOT 0
#endif
#if TESSERA_INT8_DOT
#extension GL_EXT_spirv_intrinsics : require
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4450)
int sdot_packed(int a, int b, spirv_literal int fmt);
#endif

// Element views of a tensor's first byte. 16-bit data (f16, bf16, and q8_0 blocks of
// 17 halves) is read as uint16 and converted, which needs only 16-bit storage access.
layout(buffer_reference, std430, buffer_reference_align = 4) buffer FloatRef { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer IntRef { int v[]; };
layout(buffer_reference, std430, buffer_reference_align = 2) buffer HalfRef { uint16_t v[]; };

// The device's error word: the first kernel that finds a bad index in device data
// (a token id, a KV slot, a block-table entry) records it here; the host reads it
// after the submission and turns it into an error message.
layout(buffer_reference, std430, buffer_reference_align = 4) buffer StatusRef {
  uint code;   // 0: no error; otherwise the kernel's own error code
  uint call;   // the dispatch's index within the submission
  int index;   // which element was bad (a row, a token)
  int value;   // the bad value
};

void report_error(StatusRef status, uint call_id, uint code, int index, int value) {
  if (atomicCompSwap(status.code, 0u, code) == 0u) {
    status.call = call_id;
    status.index = index;
    status.value = value;
  }
}

// tsr_dtype values used by specialisation constants.
const uint DTYPE_F32 = 0u;
const uint DTYPE_F16 = 1u;
const uint DTYPE_BF16 = 2u;
const uint DTYPE_Q8_0 = 3u;

// Workgroups beyond 65535 in x are folded into y; this is the flat workgroup index.
uint flat_group_id() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

// tanh without the overflow of exp(2x) for large |x| (GLSL's tanh may form it).
float stable_tanh(float x) {
  const float e = exp(-2.0 * abs(x));
  return sign(x) * (1.0 - e) / (1.0 + e);
}

float half_at(HalfRef r, uint i) { return unpackHalf2x16(uint(r.v[i])).x; }
float bf16_at(HalfRef r, uint i) { return uintBitsToFloat(uint(r.v[i]) << 16); }

// The other block formats (q4_0 ... iq4_xs): quant_matrix_elem and the block decoders.
#include "dequant.glsl"

// q8_0 data is blocks of 34 bytes (17 halves, so only 2-byte aligned): the f16 scale d,
// then 32 int8 q, two per half (low byte first); value = d * q. This is element j of
// block `block` of the q8_0 data starting at `data`.
const uint Q8_BLOCK_ELEMS = 32u;
const uint Q8_BLOCK_HALVES = 17u;
float q8_0_at(HalfRef data, uint block, uint j) {
  const uint first = block * Q8_BLOCK_HALVES;
  const uint pair = uint(data.v[first + 1u + j / 2u]);
  return half_at(data, first) * float(bitfieldExtract(int(pair), int((j & 1u) * 8u), 8));
}

// Element k of row `row` of a [rows, cols] matrix of dtype `dtype`; `data` is its first
// byte. Block-format rows are whole blocks (cols / 32 for q8_0).
float matrix_elem(uint dtype, HalfRef data, uint row, uint cols, uint k) {
  if (dtype == DTYPE_F32) return FloatRef(data).v[row * cols + k];
  if (dtype == DTYPE_F16) return half_at(data, row * cols + k);
  if (dtype == DTYPE_BF16) return bf16_at(data, row * cols + k);
  if (is_block_quant(dtype)) return quant_matrix_elem(dtype, data, row, cols, k);
  return q8_0_at(data, row * (cols / Q8_BLOCK_ELEMS) + k / Q8_BLOCK_ELEMS, k % Q8_BLOCK_ELEMS);
}

// x quantised for the int8-dot MATMUL (quantize_q8.comp): per block of 32 values, the
// bits of its f32 scale, then 8 words of four int8 each.
const uint Q8_PACKED_BLOCK_WORDS = 9u;
