// Measures this machine's memory read bandwidth (a multithreaded streaming read),
// the figure decode speed is judged against: decode is bound by reading the weights.
#pragma once

#include <cstdint>

namespace tessera::cli {

// Bytes per second reading a `bytes`-sized buffer with `threads` threads (0 = all
// cores); the best of `repeats` passes of plain reads and as many of reads that ask for
// the lines ahead (faster on some processors), taken in turn.
double measure_read_bandwidth(uint64_t bytes, int threads, int repeats);

}  // namespace tessera::cli
