#include "dsl/model_loader.h"

#include <algorithm>
#include <filesystem>

#include "core/tokenizer/bpe_tokenizer.h"
#include "core/tokenizer/hf_tokenizer_json.h"
#include "core/util/error.h"
#include "dsl/compiler.h"

namespace tessera::dsl {
namespace fs = std::filesystem;

std::vector<ModelDir> builtin_model_dirs() {
  std::vector<ModelDir> dirs;
  const auto add = [&dirs](std::string path, const char* origin) {
    for (const ModelDir& d : dirs) {
      if (d.path == path) return;  // an installed executable: its prefix is the install prefix
    }
    dirs.emplace_back(std::move(path), origin);
  };
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) add((exe.parent_path().parent_path() / "share" / "tessera" / "models").string(), "beside the executable");
  add(TESSERA_MODELS_INSTALL_DIR, "install prefix");
  add(TESSERA_MODELS_SOURCE_DIR, "source tree");
  return dirs;
}

namespace {

// The model file in `dir` whose `model NAME, ALIAS...` line lists `arch` as an alias
// (Hugging Face's model_type "phi" is served by phi2.tsr); "" if none. Files that do
// not parse are skipped here: they are reported when chosen.
std::string find_by_alias(const fs::path& dir, const std::string& arch) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".tsr") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    try {
      const auto def = parse_model_file(f.string());
      if (def->name == arch || std::find(def->aliases.begin(), def->aliases.end(), arch) != def->aliases.end()) {
        return f.string();
      }
    } catch (const std::exception&) {
      continue;
    }
  }
  return "";
}

// The tokenizer the weights carry; null (with `problem` saying why, when known) for a
// Hugging Face folder without a tokenizer.json Tessera reads (byte-level or
// SentencePiece-style BPE), a GGUF converted from one without a tokenizer, or a GGUF with
// no tokenizer.* metadata at all: those run from token ids only.
std::unique_ptr<Tokenizer> tokenizer_of(const WeightFile& weights, std::string* problem) {
  if (weights.format() == "gguf" && !weights.find_meta("tokenizer.ggml.model") &&
      !weights.find_meta("tokenizer.ggml.tokens")) {
    *problem = weights.path() +
               ": the file has no tokenizer (no tokenizer.ggml.* metadata); it runs from token ids only "
               "(through the library); for text, copy one in with "
               "`tessera convert FILE --tokenizer-from GGUF -o OUT`";
    return nullptr;
  }
  const bool from_hf = weights.format() == "hf" || weights.find_meta(std::string(kHfLayoutKey));
  if (!from_hf || weights.find_meta("tokenizer.ggml.tokens")) return make_tokenizer(weights);
  const fs::path json = fs::path(weights.path()) / "tokenizer.json";
  if (weights.format() != "hf" || !fs::is_regular_file(json)) return nullptr;
  try {
    return tokenizer_from_tokenizer_json(json.string());
  } catch (const Error& e) {
    *problem = e.what();  // text needs the tokenizer, and says why not
    return nullptr;
  }
}

}  // namespace

std::string find_architecture(const std::string& arch, const std::vector<ModelDir>& dirs) {
  std::string tried;
  for (const ModelDir& d : dirs) {
    const fs::path candidate = fs::path(d.path) / (arch + ".tsr");
    if (fs::is_regular_file(candidate)) return candidate.string();
    tried += "\n  " + candidate.string() + (d.origin.empty() ? "" : " (" + d.origin + ")");
  }
  for (const ModelDir& d : dirs) {
    const std::string by_alias = find_by_alias(d.path, arch);
    if (!by_alias.empty()) return by_alias;
  }
  throw Error("no model definition for architecture '" + arch + "' (by file name or by a model's alias); tried:" +
              tried +
              "\npass --arch FILE to choose one, or add the folder holding it to TESSERA_MODEL_PATH "
              "(folders separated by ':', searched first)");
}

std::unique_ptr<Model> load_model(const ModelSpec& spec) {
  std::unique_ptr<WeightFile> weights = open_weight_file(spec.weights_path, spec.tokenizer_path, spec.weights_residency);
  std::string arch_path = spec.arch_path, arch_reason = "given with --arch";
  if (arch_path.empty()) {
    const std::string key = architecture_key(*weights);
    const std::optional<std::string> arch = weights->meta_string(key);
    if (!arch) throw Error(spec.weights_path + ": no '" + key + "' in the metadata; pass --arch FILE");
    arch_path = find_architecture(*arch, spec.model_dirs);
    arch_reason = key + " = " + *arch;
  }
  const auto def = parse_model_file(arch_path);
  CompileOptions options;
  options.weights = weights.get();
  options.overrides = spec.overrides;
  options.kv_dtype = spec.kv_dtype;
  options.plugin_ops = spec.plugin_ops;
  CompiledModel compiled = compile_model(*def, options);
  std::string problem;
  std::unique_ptr<Tokenizer> tokenizer = tokenizer_of(*weights, &problem);
  return std::make_unique<Model>(std::move(weights), std::move(compiled), std::move(tokenizer), std::move(problem),
                                 std::move(arch_path), std::move(arch_reason));
}

}  // namespace tessera::dsl
