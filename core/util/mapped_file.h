// A whole file's bytes in memory, read-only (RAII): weight readers parse and hand out
// pointers into it. Mapped (the default) the bytes stay in the page cache, paged in on
// demand and shared; read into memory they sit in anonymous memory backed by 2 MiB pages
// where the kernel grants them, which streams faster through a CPU's TLB (decode reads
// every weight once per token) at the cost of the file's size in private memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include <tessera/kit/huge_page_memory.h>

namespace tessera {

enum class FileResidency { kMapped, kInMemory };

class MappedFile {
 public:
  // Maps `path` read-only, or reads it into memory. An empty file is valid and holds
  // zero bytes (data() is then nullptr). Throws tessera::Error naming the file and the
  // system's reason when it cannot be opened, is not a regular file, cannot be mapped,
  // or (read into memory) ends early or cannot be read.
  explicit MappedFile(const std::string& path, FileResidency residency = FileResidency::kMapped);
  ~MappedFile();

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::string& path() const { return path_; }
  const uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }
  FileResidency residency() const { return residency_; }
  std::span<const uint8_t> bytes() const { return {data_, static_cast<size_t>(size_)}; }

 private:
  void unmap() noexcept;
  void read_into_memory(int fd);

  std::string path_;
  const uint8_t* data_ = nullptr;  // start of the mapping; nullptr when size_ == 0
  uint64_t size_ = 0;
  FileResidency residency_ = FileResidency::kMapped;
  bool mapped_ = false;     // data_ is a mapping of size_ bytes, released with munmap
  kit::HugePageMemory memory_;  // or the memory the file was read into
};

}  // namespace tessera
