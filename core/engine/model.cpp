#include "core/engine/model.h"

#include <algorithm>
#include <filesystem>

#include "core/tokenizer/bpe_tokenizer.h"
#include "core/tokenizer/hf_tokenizer_json.h"
#include "core/util/error.h"

namespace tessera {
namespace fs = std::filesystem;

std::vector<std::string> Model::builtin_model_dirs() {
  std::vector<std::string> dirs;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back((exe.parent_path().parent_path() / "share" / "tessera" / "models").string());
  dirs.push_back(TESSERA_MODELS_INSTALL_DIR);
  dirs.push_back(TESSERA_MODELS_SOURCE_DIR);
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
      const auto def = dsl::parse_model_file(f.string());
      if (std::find(def->aliases.begin(), def->aliases.end(), arch) != def->aliases.end()) return f.string();
    } catch (const std::exception&) {
      continue;
    }
  }
  return "";
}

}  // namespace

std::string Model::find_architecture(const std::string& arch, const std::vector<std::string>& dirs) {
  std::string tried;
  for (const std::string& d : dirs) {
    const fs::path candidate = fs::path(d) / (arch + ".tsr");
    if (fs::is_regular_file(candidate)) return candidate.string();
    tried += "\n  " + candidate.string();
  }
  for (const std::string& d : dirs) {
    const std::string by_alias = find_by_alias(d, arch);
    if (!by_alias.empty()) return by_alias;
  }
  throw Error("no model definition for architecture '" + arch + "' (by file name or by a model's alias); tried:" +
              tried + "\npass --arch FILE to choose one");
}

const Tokenizer& Model::tokenizer() const {
  if (!tokenizer_) {
    throw Error(tokenizer_problem_.empty() ? weights_->path() + ": no tokenizer Tessera can read (no tokenizer.json "
                                                                "beside the weights); give token ids, or use a GGUF of the model"
                                           : tokenizer_problem_);
  }
  return *tokenizer_;
}

std::unique_ptr<Model> Model::load(const ModelSpec& spec) {
  auto m = std::unique_ptr<Model>(new Model());
  m->weights_ = open_weight_file(spec.weights_path, spec.tokenizer_path);

  if (!spec.arch_path.empty()) {
    m->arch_path_ = spec.arch_path;
    m->arch_reason_ = "given with --arch";
  } else {
    const std::string key = dsl::architecture_key(*m->weights_);
    const MetaValue* arch = m->weights_->find_meta(key);
    if (!arch) {
      throw Error(spec.weights_path + ": no '" + key + "' in the metadata; pass --arch FILE");
    }
    m->arch_path_ = find_architecture(arch->as_string(), spec.model_dirs);
    m->arch_reason_ = key + " = " + arch->as_string();
  }

  const auto def = dsl::parse_model_file(m->arch_path_);
  dsl::CompileOptions options;
  options.weights = m->weights_.get();
  options.overrides = spec.overrides;
  options.kv_dtype = spec.kv_dtype;
  m->compiled_ = dsl::compile_model(*def, options);
  // A Hugging Face folder reads FOLDER/tokenizer.json when there is one; without it, or
  // for a GGUF converted from one without a tokenizer: token ids only.
  const bool from_hf = m->weights_->format() == "hf" || m->weights_->find_meta(std::string(dsl::kHfLayoutKey));
  if (from_hf && !m->weights_->find_meta("tokenizer.ggml.tokens")) {
    const fs::path json = fs::path(m->weights_->path()) / "tokenizer.json";
    if (m->weights_->format() != "hf" || !fs::is_regular_file(json)) return m;
    try {
      m->tokenizer_ = std::make_unique<BpeTokenizer>(bpe_vocab_from_tokenizer_json(json.string()));
    } catch (const Error& e) {
      // The weights still run from token ids; text needs the tokenizer, and says why not.
      m->tokenizer_problem_ = e.what();
      return m;
    }
  } else {
    m->tokenizer_ = make_tokenizer(*m->weights_);
  }
  if (m->tokenizer_->n_vocab() > m->compiled_.n_vocab) {
    throw Error(spec.weights_path + ": the tokenizer has " + std::to_string(m->tokenizer_->n_vocab()) +
                " tokens but the model's output has only " + std::to_string(m->compiled_.n_vocab));
  }
  return m;
}

}  // namespace tessera
