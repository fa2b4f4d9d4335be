#include "core/engine/model.h"

#include <filesystem>

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

std::string Model::find_architecture(const std::string& arch, const std::vector<std::string>& dirs) {
  std::string tried;
  for (const std::string& d : dirs) {
    const fs::path candidate = fs::path(d) / (arch + ".tsr");
    if (fs::is_regular_file(candidate)) return candidate.string();
    tried += "\n  " + candidate.string();
  }
  throw Error("no model definition for architecture '" + arch + "'; tried:" + tried +
              "\npass --arch FILE to choose one");
}

std::unique_ptr<Model> Model::load(const ModelSpec& spec) {
  auto m = std::unique_ptr<Model>(new Model());
  m->weights_ = open_weight_file(spec.weights_path, spec.tokenizer_path);

  if (!spec.arch_path.empty()) {
    m->arch_path_ = spec.arch_path;
    m->arch_reason_ = "given with --arch";
  } else {
    const MetaValue* arch = m->weights_->find_meta("general.architecture");
    if (!arch) {
      throw Error(spec.weights_path + ": no 'general.architecture' in the metadata; pass --arch FILE");
    }
    m->arch_path_ = find_architecture(arch->as_string(), spec.model_dirs);
    m->arch_reason_ = "general.architecture = " + arch->as_string();
  }

  const auto def = dsl::parse_model_file(m->arch_path_);
  dsl::CompileOptions options;
  options.weights = m->weights_.get();
  options.overrides = spec.overrides;
  options.kv_dtype = spec.kv_dtype;
  m->compiled_ = dsl::compile_model(*def, options);
  m->tokenizer_ = std::make_unique<SpmTokenizer>(SpmTokenizer::from_weight_file(*m->weights_));
  if (m->tokenizer_->n_vocab() > m->compiled_.n_vocab) {
    throw Error(spec.weights_path + ": the tokenizer has " + std::to_string(m->tokenizer_->n_vocab()) +
                " tokens but the model's output has only " + std::to_string(m->compiled_.n_vocab));
  }
  return m;
}

}  // namespace tessera
