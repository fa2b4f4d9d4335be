// Bounds-checked little-endian reads; see byte_reader.h.
#include "core/weights/byte_reader.h"

#include "core/util/error.h"

namespace tessera {

void ByteReader::fail(uint64_t offset, const std::string& what) const {
  throw Error(label_ + ": " + what + " (offset " + std::to_string(offset) + ")");
}

const uint8_t* ByteReader::take(uint64_t n, std::string_view what) {
  if (n > remaining()) {
    fail(offset_, "truncated file: " + std::string(what) + " needs " + std::to_string(n) +
                      " bytes but only " + std::to_string(remaining()) + " remain");
  }
  const uint8_t* p = bytes_.data() + offset_;
  offset_ += n;
  return p;
}

std::string_view ByteReader::read_string(std::string_view what) {
  const uint64_t at = offset_;
  const auto length = read<uint64_t>(what);
  if (length > remaining()) {
    fail(at, std::string(what) + ": string length " + std::to_string(length) +
                 " runs past the end of the file (" + std::to_string(remaining()) +
                 " bytes remain)");
  }
  return read_bytes(length, what);
}

void ByteReader::skip_to(uint64_t offset, std::string_view what) {
  if (offset > size()) {
    fail(offset_, "truncated file: " + std::string(what) + " starts at " + std::to_string(offset) +
                      " but the file is " + std::to_string(size()) + " bytes");
  }
  offset_ = offset;
}

std::string printable_bytes(std::span<const uint8_t> bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : bytes) {
    if (b >= 0x20 && b < 0x7f) {
      out += static_cast<char>(b);
    } else {
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 15];
    }
  }
  return out;
}

}  // namespace tessera
