// Fuzzes the safetensors reader: the input is a whole file (u64 header length, JSON
// header, data). A bad file must be a tessera::Error; a file that opens must keep every
// tensor inside its data section, sized by its dtype and shape.
#include <cstdint>
#include <string>
#include <utility>

#include "core/tensor/dtype.h"
#include "core/util/error.h"
#include "core/util/mapped_file.h"
#include "core/weights/safetensors_file.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tessera::fuzz::InputFile file;
  const std::string& path = file.write(data, size);
  try {
    tessera::MappedFile mapped(path);
    const uint8_t* base = mapped.data();  // the same mapping once the reader owns it
    const auto st = tessera::SafetensorsFile::open(std::move(mapped));
    tessera::fuzz::require(st->data_offset() <= size, "the data section starts past the end of the file");
    for (const tessera::TensorView& t : st->tensors()) {
      const auto at = static_cast<uint64_t>(static_cast<const uint8_t*>(t.data) - base);
      tessera::fuzz::require(at >= st->data_offset() && at <= size && t.n_bytes <= size - at,
                             "a tensor's data lies outside the data section");
      const int64_t elements = tessera::fuzz::element_count(t.shape);
      tessera::fuzz::require(static_cast<uint64_t>(tessera::dtype_row_bytes(t.dtype, elements)) == t.n_bytes,
                             "a tensor's byte size disagrees with its dtype and shape");
    }
    for (const auto& [key, value] : st->metadata()) (void)value.to_display();
  } catch (const tessera::Error&) {
    // A file the reader refuses, with the reason: the expected outcome.
  }
  return 0;
}
