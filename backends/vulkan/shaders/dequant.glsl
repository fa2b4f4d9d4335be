// The block formats of plugin_abi.h (q4_0 ... iq4_xs; q8_0 has its own code in
// common.glsl) decoded in the shader. Included by common.glsl after the buffer views.
// The format is a specialisation constant of the including shader (DTYPE), so every
// switch below folds to one format's code when the pipeline is created: one source,
// no copies per format.
//
// Blocks are only 2-byte aligned (18, 22, 110 ... bytes), so they are read as halves
// (HalfRef, 16-bit storage access) and bytes are extracted from them; every read stays
// inside the block's halves, never past the tensor (all block sizes are even).
//
// Every element is value = a * float(q) + b, with q an integer of the block's quant
// fields and (a, b) its sub-block's coefficients; a and b are formed as the reference
// (plugins/kit/dequantize.cpp, gguf-py) forms them (d * scale, -(dmin * min)), and
// `precise` keeps the multiply and the add unfused, so the values equal the reference's
// bit for bit.

const uint DTYPE_Q4_0 = 5u;
const uint DTYPE_Q4_1 = 6u;
const uint DTYPE_Q5_0 = 7u;
const uint DTYPE_Q5_1 = 8u;
const uint DTYPE_Q2_K = 9u;
const uint DTYPE_Q3_K = 10u;
const uint DTYPE_Q4_K = 11u;
const uint DTYPE_Q5_K = 12u;
const uint DTYPE_Q6_K = 13u;
const uint DTYPE_IQ4_NL = 14u;
const uint DTYPE_IQ4_XS = 15u;

// The non-linear 4-bit grid of IQ4_NL and IQ4_XS.
const int IQ4NL_VALUES[16] = int[16](-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);

// Whether `dtype` is one of the formats of this file.
bool is_block_quant(uint dtype) { return dtype >= DTYPE_Q4_0 && dtype <= DTYPE_IQ4_XS; }

// Elements per block: 256 for the K formats and IQ4_XS, 32 for the rest.
uint quant_block_elems(uint dtype) {
  return (dtype >= DTYPE_Q2_K && dtype <= DTYPE_Q6_K) || dtype == DTYPE_IQ4_XS ? 256u : 32u;
}

// Halves (2 bytes) per block: the sizes of quant_blocks.h over 2.
uint quant_block_halves(uint dtype) {
  switch (dtype) {
    case DTYPE_Q4_0: return 9u;     // 18 bytes
    case DTYPE_Q4_1: return 10u;    // 20
    case DTYPE_Q5_0: return 11u;    // 22
    case DTYPE_Q5_1: return 12u;    // 24
    case DTYPE_Q2_K: return 42u;    // 84
    case DTYPE_Q3_K: return 55u;    // 110
    case DTYPE_Q4_K: return 72u;    // 144
    case DTYPE_Q5_K: return 88u;    // 176
    case DTYPE_Q6_K: return 105u;   // 210
    case DTYPE_IQ4_NL: return 9u;   // 18
    default: return 68u;            // IQ4_XS: 136
  }
}

// Byte `i` of the block whose first half is `first` (little-endian halves).
uint qbyte(HalfRef data, uint first, uint i) {
  return (uint(data.v[first + (i >> 1u)]) >> ((i & 1u) * 8u)) & 0xFFu;
}
float qhalf(HalfRef data, uint first, uint half_index) { return half_at(data, first + half_index); }

// Nibble i (0..31) of the 16 bytes at byte `qs`: low nibbles first, then high ones.
uint qnibble32(HalfRef data, uint first, uint qs, uint i) {
  return i < 16u ? qbyte(data, first, qs + i) & 0xFu : qbyte(data, first, qs + i - 16u) >> 4u;
}

// Bit i (0..31) of the little-endian u32 at byte `qh`.
uint qbit32(HalfRef data, uint first, uint qh, uint i) {
  return (qbyte(data, first, qh + (i >> 3u)) >> (i & 7u)) & 1u;
}

// Sub-block j's six-bit scale (x) and min (y) of the 12 Q4_K / Q5_K scale bytes at byte 4
// (kit::k4_scale_min).
uvec2 k4_scale_min(HalfRef data, uint first, uint j) {
  const uint s = 4u;
  if (j < 4u) return uvec2(qbyte(data, first, s + j) & 63u, qbyte(data, first, s + j + 4u) & 63u);
  const uint packed = qbyte(data, first, s + j + 4u);
  return uvec2((packed & 0xFu) | ((qbyte(data, first, s + j - 4u) >> 6u) << 4u),
               (packed >> 4u) | ((qbyte(data, first, s + j) >> 6u) << 4u));
}

// The coefficients (a, b) of element e's sub-block: value = a * q + b. Constant over
// each aligned run of 16 elements in every format.
vec2 quant_coeffs(uint dtype, HalfRef data, uint first, uint e) {
  switch (dtype) {
    case DTYPE_Q4_1:
    case DTYPE_Q5_1:
      return vec2(qhalf(data, first, 0u), qhalf(data, first, 1u));
    case DTYPE_Q2_K: {
      const uint sc = qbyte(data, first, e / 16u);
      precise float dl = qhalf(data, first, 40u) * float(sc & 0xFu);
      precise float ml = qhalf(data, first, 41u) * float(sc >> 4u);
      return vec2(dl, -ml);
    }
    case DTYPE_Q3_K: {
      const uint k = e / 16u;
      const uint low = (qbyte(data, first, 96u + k % 8u) >> (4u * (k / 8u))) & 0xFu;
      const uint high = (qbyte(data, first, 104u + k % 4u) >> (2u * (k / 4u))) & 3u;
      precise float dl = qhalf(data, first, 54u) * float(int(low | (high << 4u)) - 32);
      return vec2(dl, 0.0);
    }
    case DTYPE_Q4_K:
    case DTYPE_Q5_K: {
      const uvec2 sm = k4_scale_min(data, first, e / 32u);
      precise float dl = qhalf(data, first, 0u) * float(sm.x);
      precise float ml = qhalf(data, first, 1u) * float(sm.y);
      return vec2(dl, -ml);
    }
    case DTYPE_Q6_K: {
      const int sc = bitfieldExtract(int(qbyte(data, first, 192u + e / 16u)), 0, 8);  // int8
      precise float dl = qhalf(data, first, 104u) * float(sc);
      return vec2(dl, 0.0);
    }
    case DTYPE_IQ4_XS: {
      const uint k = e / 32u;
      const uint low = (qbyte(data, first, 4u + k / 2u) >> (4u * (k % 2u))) & 0xFu;
      const uint high = (uint(data.v[first + 1u]) >> (2u * k)) & 3u;
      precise float dl = qhalf(data, first, 0u) * float(int(low | (high << 4u)) - 32);
      return vec2(dl, 0.0);
    }
    default:  // Q4_0, Q5_0, IQ4_NL: the block's d
      return vec2(qhalf(data, first, 0u), 0.0);
  }
}

// The integer q of element e (0 .. block elems - 1) of the block at half `first`.
int quant_q(uint dtype, HalfRef data, uint first, uint e) {
  switch (dtype) {
    case DTYPE_Q4_0: return int(qnibble32(data, first, 2u, e)) - 8;
    case DTYPE_Q4_1: return int(qnibble32(data, first, 4u, e));
    case DTYPE_Q5_0: return int(qnibble32(data, first, 6u, e) | (qbit32(data, first, 2u, e) << 4u)) - 16;
    case DTYPE_Q5_1: return int(qnibble32(data, first, 8u, e) | (qbit32(data, first, 4u, e) << 4u));
    case DTYPE_IQ4_NL: return IQ4NL_VALUES[qnibble32(data, first, 2u, e)];
    case DTYPE_Q2_K: {
      const uint g = e / 128u, j = (e % 128u) / 32u, l = e % 32u;
      return int((qbyte(data, first, 16u + 32u * g + l) >> (2u * j)) & 3u);
    }
    case DTYPE_Q3_K: {
      const uint g = e / 128u, j = (e % 128u) / 32u, l = e % 32u;
      const int low = int((qbyte(data, first, 32u + 32u * g + l) >> (2u * j)) & 3u);
      const uint bit = (qbyte(data, first, l) >> (e / 32u)) & 1u;
      return low - (bit != 0u ? 0 : 4);
    }
    case DTYPE_Q4_K:
    case DTYPE_Q5_K: {
      const uint g = e / 64u, h = (e % 64u) / 32u, l = e % 32u;
      const uint qs = dtype == DTYPE_Q4_K ? 16u : 48u;
      uint u = (qbyte(data, first, qs + 32u * g + l) >> (4u * h)) & 0xFu;
      if (dtype == DTYPE_Q5_K) u |= ((qbyte(data, first, 16u + l) >> (e / 32u)) & 1u) << 4u;
      return int(u);
    }
    case DTYPE_Q6_K: {
      const uint g = e / 128u, o = e % 128u;
      const uint low = (qbyte(data, first, 64u * g + o % 64u) >> (4u * (o / 64u))) & 0xFu;
      const uint high = (qbyte(data, first, 128u + 32u * g + o % 32u) >> (2u * (o / 32u))) & 3u;
      return int(low | (high << 4u)) - 32;
    }
    default: {  // IQ4_XS
      const uint k = e / 32u, h = (e % 32u) / 16u, l = e % 16u;
      return IQ4NL_VALUES[(qbyte(data, first, 8u + 16u * k + l) >> (4u * h)) & 0xFu];
    }
  }
}

// The value of element e with its sub-block's coefficients c, rounded as the reference
// rounds it: the product, then the add (b = 0 adds nothing but the sign of a zero).
float quant_value(vec2 c, int q) {
  precise float p = c.x * float(q);
  precise float v = p + c.y;
  return v;
}

// Element k of row `row` of a [rows, cols] matrix in block format `dtype` (rows are
// cols / block elems whole blocks).
float quant_matrix_elem(uint dtype, HalfRef data, uint row, uint cols, uint k) {
  const uint be = quant_block_elems(dtype);
  const uint first = (row * (cols / be) + k / be) * quant_block_halves(dtype);
  const uint e = k % be;
  return quant_value(quant_coeffs(dtype, data, first, e), quant_q(dtype, data, first, e));
}
