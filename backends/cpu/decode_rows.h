// How decode (one to four rows of x) walks the weight rows of the 32-element block
// formats (q5_x, iq4_nl; q8_0, q4_0 and q4_1 where they have no eight-row copy,
// repacked_weights.h), each thread over its own share of the rows:
//   near: groups of eight consecutive rows, the next group prefetched while this one is
//         dotted: one stream per thread, read ahead by hand;
//   far:  eight rows an eighth of the share apart, dotted together: eight streams per
//         thread, left to the hardware prefetchers.
// Which is faster depends on the processor's prefetchers, measured in tokens/s with 2
// threads: on an Intel Xeon (Sapphire Rapids) far gave q8_0 19-20 against 15-16 near; on
// an AMD EPYC (Zen 5) near gave q4_0 49-58 against 34-56 far, q8_0 32-33 against 26-31.
// So far on Intel processors, near on the others; TESSERA_CPU_DECODE_ROWS=near|far
// chooses instead (the tests run both). The sums do not depend on the order.
#pragma once

#include <cstdint>

namespace tessera::cpu {

enum class DecodeRows { kNear, kFar };

// Chosen once per process.
DecodeRows decode_rows();

// "near", "far".
const char* decode_rows_name(DecodeRows rows);

// Bytes ahead of the ones being dotted that the row-group decode kernels (rows8::dot,
// read_ahead.h) ask for into L2; 0 leaves reading ahead to the processor's prefetchers.
// On an Intel Xeon (2 cores, AVX-512, under KVM) one core's loads and prefetchers kept
// too few lines in flight to stream while the dots also took time. TinyLlama-shaped
// decode, 2 threads, without -> with 4096 bytes, tok/s: q4_0 41.7 -> 43.8, q6_k 27.1 ->
// 29.4, q5_k_m 28.1 -> 30.0, iq4_xs 34.2 -> 39.0, q4_k_m 37.1 -> 37.9; 1536 and 8192
// bytes did no better. (The Q8_0 copy's kernel does not ask: q8_0 went 25.6 -> 25.2.) On
// an AMD EPYC (Zen 4) read-ahead by hand slowed q4_k_m decode. So 4096 on Intel
// processors, 0 on the others; TESSERA_CPU_DECODE_READ_AHEAD=BYTES (0 .. 65536; 0 or
// off: none) chooses instead. Chosen once per process.
int64_t decode_read_ahead();

}  // namespace tessera::cpu
