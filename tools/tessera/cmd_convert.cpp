// tessera convert: writes a GGUF from any weights file Tessera reads (a Hugging Face
// folder above all), through the model definition that reads it.
#include <chrono>
#include <cstdio>

#include "core/engine/model.h"
#include "tools/tessera/commands.h"
#include "tools/tessera/model_converter.h"
#include "tools/tessera/options.h"
#include "tools/tessera/runtime_options.h"

namespace tessera::cli {
namespace {

// "keep" = nullopt; otherwise a dtype a GGUF weight can have.
std::optional<DType> parse_dtype(const std::string& name) {
  if (name == "keep") return std::nullopt;
  DType dtype;
  if (!dtype_from_name(name, &dtype) || dtype == DType::I32) {
    throw UsageError{"--dtype must be keep, f32, f16, bf16 or q8_0, got '" + name + "'"};
  }
  return dtype;
}

void print_progress(size_t index, size_t count, const ConvertedTensor& t) {
  std::string shape;
  for (int64_t d : t.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
  std::fprintf(stderr, "[%zu/%zu] %s [%s] %s -> %s%s\n", index + 1, count, t.name.c_str(), shape.c_str(),
               std::string(dtype_name(t.from)).c_str(), std::string(dtype_name(t.to)).c_str(),
               t.transposed ? " (transposed)" : "");
}

}  // namespace

int run_convert(const Args& args) {
  ConvertRequest request;
  std::string output, dtype_name_flag = "keep";
  OptionTable t("convert", "SOURCE -o OUT.gguf [options]",
                "Converts a weights file Tessera reads (a Hugging Face model folder, a GGUF, a llama2.c\n"
                "checkpoint) into a GGUF, through the model definition that reads it: its hyper-parameters\n"
                "as metadata, its weights under their GGUF names, laid out [out, in].");
  t.text("--arch", "FILE", "model definition (.tsr); default: chosen by model_type / general.architecture",
         &request.arch_path)
      .text("--dtype", "TYPE", "matrix element type: keep, f32, f16, bf16 or q8_0 (vectors are f32)",
            &dtype_name_flag)
      .text("--tokenizer-from", "GGUF", "copy the tokenizer.* metadata of this file (default: the source's)",
            &request.tokenizer_from)
      .text("-o, --output", "FILE", "the GGUF file to write", &output);
  const auto positional = t.parse(args);
  if (t.help_requested()) {
    std::printf("%s", t.help_text().c_str());
    return 0;
  }
  if (positional.empty()) throw UsageError{"no source: pass the folder or file to convert"};
  if (positional.size() > 1) throw UsageError{"unexpected argument '" + positional[1] + "'"};
  if (output.empty()) throw UsageError{"no output file: pass -o FILE"};
  request.source = positional[0];
  request.dtype = parse_dtype(dtype_name_flag);
  request.model_dirs = model_dirs();

  const auto t0 = std::chrono::steady_clock::now();
  const ConvertSummary s = convert_to_gguf(request, output, print_progress);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "tessera: wrote %s: %s (%s, %s), %zu tensors, %zu metadata keys, %s weights%s, in %.1f s\n",
               output.c_str(), s.model_name.c_str(), s.arch_path.c_str(), s.arch_reason.c_str(), s.tensors,
               s.meta_keys, dtype_name_flag.c_str(), s.hf_layout ? ", Hugging Face layout" : "", seconds);
  return 0;
}

}  // namespace tessera::cli
