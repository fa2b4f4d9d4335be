// Measures this machine's memory read bandwidth (a multithreaded streaming read),
// the figure decode speed is judged against: decode is bound by reading the weights.
#pragma once

#include <cstdint>

namespace tessera::cli {

// Bytes per second reading a `bytes`-sized buffer with `threads` threads (0 = all
// cores); best of `repeats` passes.
double measure_read_bandwidth(uint64_t bytes, int threads, int repeats);

}  // namespace tessera::cli
