// See huge_page_memory.h.
#include "tessera/kit/huge_page_memory.h"

#include <sys/mman.h>

#include <utility>

namespace tessera::kit {

HugePageMemory::HugePageMemory(size_t bytes) {
  const size_t rounded = (bytes + kPageBytes - 1) / kPageBytes * kPageBytes;
  void* region = ::mmap(nullptr, rounded + kPageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) return;
  region_ = region;
  region_bytes_ = rounded + kPageBytes;
  data_ = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(region) + kPageBytes - 1) & ~(kPageBytes - 1));
  bytes_ = rounded;
#if defined(MADV_HUGEPAGE)
  ::madvise(data_, bytes_, MADV_HUGEPAGE);
#endif
}

HugePageMemory::~HugePageMemory() { release(); }

HugePageMemory::HugePageMemory(HugePageMemory&& other) noexcept
    : region_(std::exchange(other.region_, nullptr)),
      region_bytes_(std::exchange(other.region_bytes_, 0)),
      data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)) {}

HugePageMemory& HugePageMemory::operator=(HugePageMemory&& other) noexcept {
  if (this != &other) {
    release();
    region_ = std::exchange(other.region_, nullptr);
    region_bytes_ = std::exchange(other.region_bytes_, 0);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void HugePageMemory::make_read_only() {
  if (data_ != nullptr) ::mprotect(data_, bytes_, PROT_READ);
}

void HugePageMemory::release() noexcept {
  if (region_ != nullptr) ::munmap(region_, region_bytes_);
  region_ = nullptr;
  region_bytes_ = 0;
  data_ = nullptr;
  bytes_ = 0;
}

}  // namespace tessera::kit
