// Fuzzes the GGUF reader: the input is a whole file. A bad file must be a tessera::Error;
// a file that opens must keep every tensor inside it, and its tokenizer metadata, when
// it has some, must give a tokenizer or a tessera::Error too.
#include <cstdint>
#include <string>
#include <utility>

#include "core/tensor/dtype.h"
#include "core/tokenizer/tokenizer.h"
#include "core/util/error.h"
#include "core/util/mapped_file.h"
#include "core/weights/gguf_reader.h"
#include "fuzz_support.h"

namespace {

// `base` is the start of the file's mapping.
void check_tensors(const tessera::GgufFile& gguf, const uint8_t* base, size_t file_size) {
  for (const tessera::TensorView& t : gguf.tensors()) {
    const auto at = static_cast<uint64_t>(static_cast<const uint8_t*>(t.data) - base);
    tessera::fuzz::require(at >= gguf.data_offset() && at <= file_size && t.n_bytes <= file_size - at,
                           "a tensor's data lies outside the data section");
    const int64_t elements = tessera::fuzz::element_count(t.shape);
    tessera::fuzz::require(elements > 0, "a GGUF tensor has no elements");
    tessera::fuzz::require(static_cast<uint64_t>(tessera::dtype_row_bytes(t.dtype, elements)) == t.n_bytes,
                           "a tensor's byte size disagrees with its type and shape");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tessera::fuzz::InputFile file;
  const std::string& path = file.write(data, size);
  try {
    tessera::MappedFile mapped(path);
    const uint8_t* base = mapped.data();  // the same mapping once the reader owns it
    const auto gguf = tessera::GgufFile::open(std::move(mapped));
    check_tensors(*gguf, base, size);
    for (const auto& [key, value] : gguf->metadata()) (void)value.to_display();
    if (gguf->find_meta("tokenizer.ggml.model") != nullptr) {
      const auto tokenizer = tessera::make_tokenizer(*gguf);
      const auto ids = tokenizer->encode("Hello world! <s> 12 \xE2\x96\x81x\n", false);
      (void)tokenizer->decode(ids);
    }
  } catch (const tessera::Error&) {
    // A file the reader refuses, with the reason: the expected outcome.
  }
  return 0;
}
