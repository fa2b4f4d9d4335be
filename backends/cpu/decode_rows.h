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

namespace tessera::cpu {

enum class DecodeRows { kNear, kFar };

// Chosen once per process.
DecodeRows decode_rows();

// "near", "far".
const char* decode_rows_name(DecodeRows rows);

}  // namespace tessera::cpu
