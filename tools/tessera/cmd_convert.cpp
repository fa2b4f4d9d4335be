// tessera convert and tessera quantize: write a GGUF from any weights file Tessera reads
// (a Hugging Face folder above all, or a GGUF), through the model definition that reads
// it; quantize is convert with a quantisation preset required.
#include <chrono>
#include <cstdio>

#include "core/engine/model.h"
#include "tools/tessera/commands.h"
#include "tools/tessera/model_converter.h"
#include "tools/tessera/options.h"
#include "tools/tessera/runtime_options.h"

namespace tessera::cli {
namespace {

// "keep" = nullopt; otherwise a preset (quant_preset.h).
std::optional<QuantPreset> parse_preset(const std::string& name, bool keep_allowed) {
  if (keep_allowed && name == "keep") return std::nullopt;
  QuantPreset preset;
  if (!quant_preset_from_name(name, &preset)) {
    throw UsageError{"--dtype must be " + std::string(keep_allowed ? "keep, " : "") + quant_preset_names() +
                     "; got '" + name + "'"};
  }
  return preset;
}

void print_progress(size_t index, size_t count, const ConvertedTensor& t) {
  std::string shape;
  for (int64_t d : t.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
  std::fprintf(stderr, "[%zu/%zu] %s [%s] %s -> %s%s\n", index + 1, count, t.name.c_str(), shape.c_str(),
               std::string(dtype_name(t.from)).c_str(), std::string(dtype_name(t.to)).c_str(),
               t.transposed ? " (transposed)" : "");
}

}  // namespace

namespace {

int convert_command(const Args& args, bool quantize) {
  ConvertRequest request;
  std::string output, dtype_name_flag = quantize ? "q4_k_m" : "keep";
  OptionTable t(quantize ? "quantize" : "convert", "SOURCE -o OUT.gguf [options]",
                quantize ? "Writes a quantised GGUF of a model Tessera reads (a GGUF, a Hugging Face model folder, a\n"
                           "llama2.c checkpoint): each weight matrix in the preset's dtype, the output projection and,\n"
                           "in the _M mixes, some attn_v and ffn_down matrices with more bits; vectors in f32.\n"
                           "Progress goes to stderr."
                         : "Converts a weights file Tessera reads (a Hugging Face model folder, a GGUF, a llama2.c\n"
                           "checkpoint) into a GGUF, through the model definition that reads it: its hyper-parameters\n"
                           "as metadata, its weights under their GGUF names, laid out [out, in].");
  const std::string dtype_help = std::string("matrix dtype or mix: ") + (quantize ? "" : "keep (default), ") +
                                 quant_preset_names() + (quantize ? " (default q4_k_m)" : "") + "; vectors are f32";
  t.text("--arch", "FILE", "model definition (.tsr); default: chosen by model_type / general.architecture",
         &request.arch_path)
      .text("--dtype", "TYPE", dtype_help, &dtype_name_flag)
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
  request.preset = parse_preset(dtype_name_flag, !quantize);
  request.model_dirs = model_dirs();

  const auto t0 = std::chrono::steady_clock::now();
  const ConvertSummary s = convert_to_gguf(request, output, print_progress);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "tessera: wrote %s: %s (%s, %s), %zu tensors, %zu metadata keys, %s weights%s, in %.1f s\n",
               output.c_str(), s.model_name.c_str(), s.arch_path.c_str(), s.arch_reason.c_str(), s.tensors,
               s.meta_keys, dtype_name_flag.c_str(), s.hf_layout ? ", Hugging Face layout" : "", seconds);
  return 0;
}

}  // namespace

int run_convert(const Args& args) { return convert_command(args, false); }

int run_quantize(const Args& args) { return convert_command(args, true); }

}  // namespace tessera::cli
