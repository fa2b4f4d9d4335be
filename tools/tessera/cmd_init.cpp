// tessera init: writes a random-weight GGUF (or Hugging Face folder) of any shape a model
// definition allows, so tests and benchmarks get realistic shapes without downloads.
#include <chrono>
#include <cstdio>
#include <limits>

#include "core/weights/gguf_writer.h"
#include "core/weights/weight_file.h"
#include "dsl/model_definition.h"
#include "tools/tessera/commands.h"
#include "tools/tessera/random_hf_folder.h"
#include "tools/tessera/random_model.h"
#include "tools/tessera/runtime_options.h"

namespace tessera::cli {

int run_init(const Args& args) {
  std::string arch, output, dtype_name_flag = "f16", tokenizer_from, format = "gguf";
  std::vector<std::string> sets;
  int64_t seed = 1;
  OptionTable t("init", "--arch FILE --set NAME=VALUE ... -o OUT.gguf [options]",
                "Writes a GGUF model with random weights, shaped by a model definition and its\n"
                "hyper-parameters, with a tokenizer copied from another GGUF or a byte vocabulary;\n"
                "or, with --format hf, a Hugging Face folder (config.json, model.safetensors) holding\n"
                "the same numbers under the definition's hf: names.");
  t.text("--arch", "FILE", "model definition (.tsr)", &arch)
      .texts("--set", "NAME=VALUE", "hyper-parameter value (those read from metadata need one)", &sets)
      .text("--dtype", "TYPE", "matrix element type: f32, f16, bf16 or q8_0 (vectors stay f32)", &dtype_name_flag)
      .text("--tokenizer-from", "GGUF", "copy the tokenizer.* metadata of this file", &tokenizer_from)
      .integer("--seed", "N", "random seed of the weights", &seed, 0, std::numeric_limits<int64_t>::max())
      .text("--format", "FORMAT", "gguf, or hf for a Hugging Face model folder", &format)
      .text("-o, --output", "PATH", "the GGUF file (or, with --format hf, the folder) to write", &output);
  const auto positional = t.parse(args);
  if (t.help_requested()) {
    std::printf("%s", t.help_text().c_str());
    return 0;
  }
  if (!positional.empty()) throw UsageError{"unexpected argument '" + positional[0] + "'"};
  if (arch.empty()) throw UsageError{"no model definition: pass --arch FILE"};
  if (output.empty()) throw UsageError{"no output file: pass -o FILE"};
  DType dtype;
  if (!dtype_from_name(dtype_name_flag, &dtype) ||
      (dtype != DType::F32 && dtype != DType::F16 && dtype != DType::BF16 && dtype != DType::Q8_0)) {
    throw UsageError{"--dtype must be f32, f16, bf16 or q8_0 (tessera quantize writes the other formats), got '" +
                     dtype_name_flag + "'"};
  }
  if (format != "gguf" && format != "hf") throw UsageError{"--format must be gguf or hf, got '" + format + "'"};
  const bool hf = format == "hf";
  if (hf && dtype == DType::Q8_0) throw UsageError{"--format hf stores f32, f16 or bf16 weights, not q8_0"};
  if (hf && !tokenizer_from.empty()) throw UsageError{"--tokenizer-from needs --format gguf"};

  const auto t0 = std::chrono::steady_clock::now();
  const auto def = dsl::parse_model_file(arch);
  dsl::CompileOptions options;
  options.overrides = parse_overrides(sets);
  options.weight_dtype = dtype;
  const CompiledModel model = dsl::compile_model(*def, options);
  if (hf) {
    const size_t n_tensors = write_random_hf_folder(*def, model, dtype, static_cast<uint64_t>(seed), output);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "tessera: wrote %s: a Hugging Face folder, %zu tensors, %s weights, in %.1f s\n",
                 output.c_str(), n_tensors, dtype_name_flag.c_str(), s);
    return 0;
  }

  GgufWriter writer;
  add_random_model(model, dtype, static_cast<uint64_t>(seed), writer);
  if (!tokenizer_from.empty()) {
    const auto source = open_weight_file(tokenizer_from);
    writer.copy_meta(*source, "tokenizer.");
  } else {
    add_byte_vocab(model.n_vocab, writer);
  }
  writer.write(output);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "tessera: wrote %s: %zu tensors, %zu metadata keys, %s weights, in %.1f s\n", output.c_str(),
               writer.tensor_count(), writer.meta_count(), dtype_name_flag.c_str(), s);
  return 0;
}

}  // namespace tessera::cli
