// A read-only memory mapping of a whole file (RAII): weight readers parse and hand
// out pointers into it instead of copying multi-GB tensors into memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace tessera {

class MappedFile {
 public:
  // Maps `path` read-only. An empty file is valid and maps to zero bytes (data() is
  // then nullptr). Throws tessera::Error naming the file and the system's reason when
  // it cannot be opened, is not a regular file, or cannot be mapped.
  explicit MappedFile(const std::string& path);
  ~MappedFile();

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::string& path() const { return path_; }
  const uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }
  std::span<const uint8_t> bytes() const { return {data_, static_cast<size_t>(size_)}; }

 private:
  void unmap() noexcept;

  std::string path_;
  const uint8_t* data_ = nullptr;  // start of the mapping; nullptr when size_ == 0
  uint64_t size_ = 0;
};

}  // namespace tessera
