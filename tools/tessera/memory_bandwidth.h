// Measures this machine's memory read bandwidth (a multithreaded streaming read),
// the figure decode speed is judged against: decode is bound by reading the weights.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/kit/huge_page_memory.h>

namespace tessera::cli {

// A buffer larger than the last-level cache, touched once, that each measure() reads in
// full. The bench samples the bandwidth beside every timed run instead of once: on a
// shared machine it moves from one second to the next (a 2-core virtual machine read 31
// GB/s in one sample and 61 in the next), and one sample taken in a slow second put the
// decode bound below what decode had just reached.
class ReadBandwidthProbe {
 public:
  // `threads` readers (0 = all cores).
  ReadBandwidthProbe(uint64_t bytes, int threads);

  // Bytes per second, best of `repeats` passes; 0 where the buffer could not be had.
  double measure(int repeats);

 private:
  kit::HugePageMemory memory_;
  size_t words_;
  int threads_;
};

}  // namespace tessera::cli
