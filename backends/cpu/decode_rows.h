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

// Bytes ahead of the ones being dotted that the decode kernels ask for into L2 (the
// row-group copies' rows8::dot and the f16 and bf16 rows, read_ahead.h); 0 leaves reading
// ahead to the processor's prefetchers. On an Intel Xeon (2 cores, AVX-512, under KVM)
// one core's loads and prefetchers kept too few lines in flight to stream while the dots
// also took time. TinyLlama-shaped decode, 2 threads, tok/s, none -> 4096 bytes: q4_0
// 41.7 -> 43.8, q6_k 27.1 -> 29.4, q5_k_m 28.1 -> 30.0, iq4_xs 34.2 -> 39.0, q4_k_m 37.1
// -> 37.9; then 4096 -> 3072 bytes, three rounds in alternation: q4_0 42.2 -> 44.7,
// q4_k_m 37.6 -> 39.0, q5_k_m 29.5 -> 31.2, q6_k 28.9 -> 30.0, iq4_xs 38.3 -> 40.6,
// q5_0 34.3 -> 36.4, q8_0 24.2 -> 27.0 (25.6 without), f16 and bf16 alike (13-14.5,
// where none gave 12.2-13.1); 5120 and 8192 read slower than 4096, 2048-2560 about as
// 3072. On an AMD EPYC (Zen 4) read-ahead by hand slowed q4_k_m and f16 decode. On an AMD
// EPYC (Zen 3, 2 cores, AVX2 only, under KVM), tok/s, medians of three rounds in
// alternation, none -> 1024 bytes: q4_0 29.4 -> 34.5, q8_0 18.2 -> 20.4, q4_k_m 30.7 ->
// 35.6, q5_k_m 18.9 -> 23.1, q6_k 21.6 -> 25.3, f16 12.1 -> 11.7 (within the noise);
// 512-768 read about as none, 1536-2048 as 1024 or less. So 3072 on Intel processors, 1024
// on AMD Zen 3, 0 on the others; TESSERA_CPU_DECODE_READ_AHEAD=BYTES (0 .. 65536; 0 or
// off: none) chooses instead. Chosen once per process.
int64_t decode_read_ahead();

}  // namespace tessera::cpu
