// A bounds-checked little-endian cursor over the bytes of a mapped file: every read
// either succeeds inside the buffer or throws a tessera::Error naming the file, what
// was being read and the offset. Readers of binary weight formats parse through it.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace tessera {

static_assert(std::endian::native == std::endian::little,
              "weight readers assume a little-endian host, like the file formats");

class ByteReader {
 public:
  // `file_label` names the file in messages (the path as the caller gave it).
  ByteReader(std::span<const uint8_t> bytes, std::string file_label)
      : bytes_(bytes), label_(std::move(file_label)) {}

  uint64_t offset() const { return offset_; }
  uint64_t size() const { return bytes_.size(); }
  uint64_t remaining() const { return bytes_.size() - offset_; }
  const std::string& label() const { return label_; }

  // Reads a trivially copyable little-endian value; `what` names it in the error
  // ("tensor count", "value of key 'general.name'").
  template <typename T>
  T read(std::string_view what) {
    T value;
    std::memcpy(&value, take(sizeof(T), what), sizeof(T));
    return value;
  }

  // Returns a view of the next `n` bytes and moves past them.
  std::string_view read_bytes(uint64_t n, std::string_view what) {
    return {reinterpret_cast<const char*>(take(n, what)), static_cast<size_t>(n)};
  }

  // A GGUF-style string: uint64 length, then that many bytes.
  std::string_view read_string(std::string_view what);

  void skip_to(uint64_t offset, std::string_view what);

  // Throws "LABEL: <what> (offset N)".
  [[noreturn]] void fail(uint64_t offset, const std::string& what) const;

 private:
  const uint8_t* take(uint64_t n, std::string_view what);

  std::span<const uint8_t> bytes_;
  std::string label_;
  uint64_t offset_ = 0;
};

// Bytes as text for a message: printable ASCII as is, anything else as \xNN.
std::string printable_bytes(std::span<const uint8_t> bytes);

}  // namespace tessera
