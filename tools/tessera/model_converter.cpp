#include "tools/tessera/model_converter.h"

#include <filesystem>
#include <memory>
#include <set>

#include "core/engine/model.h"
#include "dsl/model_loader.h"
#include "core/util/error.h"
#include "core/weights/gguf_writer.h"
#include "core/weights/weight_file.h"
#include "dsl/hparams.h"
#include "dsl/model_definition.h"
#include "tools/tessera/random_model.h"
#include "tools/tessera/weight_rows.h"

namespace tessera::cli {
namespace {

constexpr int kGgufUint32 = 4, kGgufString = 8;

MetaValue typed(MetaValue v, int gguf_type) {
  v.gguf_type = gguf_type;
  return v;
}

// A Hugging Face folder whose model_type reads as the definition's model name, so the
// GGUF keys the definition derives from {arch} ("{arch}.block_count") are those of
// the general.architecture written; everything else is the folder's.
class FolderAsModel : public WeightFile {
 public:
  FolderAsModel(const WeightFile& folder, const std::string& model_name)
      : folder_(folder), metadata_(folder.metadata()) {
    metadata_[dsl::architecture_key(folder)] = MetaValue{model_name};
  }
  const std::string& path() const override { return folder_.path(); }
  std::string format() const override { return folder_.format(); }
  const std::map<std::string, MetaValue>& metadata() const override { return metadata_; }
  const std::vector<TensorView>& tensors() const override { return folder_.tensors(); }
  std::string metadata_path() const override { return folder_.metadata_path(); }
  bool meta_is_null(const std::string& key) const override { return folder_.meta_is_null(key); }

 private:
  const WeightFile& folder_;
  std::map<std::string, MetaValue> metadata_;
};

// The definition the request names, or the one the source's architecture chooses
// (as Model::load chooses it).
std::string choose_definition(const ConvertRequest& request, const WeightFile& source, std::string* reason) {
  if (!request.arch_path.empty()) {
    *reason = "given with --arch";
    return request.arch_path;
  }
  const std::string key = dsl::architecture_key(source);
  const std::optional<std::string> arch = source.meta_string(key);
  if (!arch) throw Error(request.source + ": no '" + key + "' in the metadata; pass --arch FILE");
  *reason = key + " = " + *arch;
  return dsl::find_architecture(*arch, request.model_dirs);
}

// general.name: the source's own, else the file or folder name.
std::string model_title(const WeightFile& source) {
  if (const MetaValue* name = source.find_meta("general.name")) {
    if (const auto* s = std::get_if<std::string>(&name->value)) return *s;
  }
  std::filesystem::path p(source.path());
  if (!p.has_filename()) p = p.parent_path();  // "folder/"
  return p.filename().string();
}

// Matrices in the requested dtype (or the source's); vectors (and matrices read as f32
// values, such as a norm's gains per head) in f32, except an unconverted one the source
// already holds in a dtype the graph reads as is.
DType written_dtype(const GraphTensor& t, const TensorView& src, const std::optional<QuantPreset>& preset,
                    int64_t n_layers) {
  if (t.shape.size() >= 2 && !t.vector_operand) {
    if (!preset) return src.dtype;
    return preset_dtype(*preset, {t.gguf_name, t.shape.back(), n_layers});
  }
  if (preset || t.widened) return DType::F32;
  return src.dtype;
}

void check_blocks(const ConvertedTensor& t) {
  const int64_t block = dtype_block_elems(t.to);
  if (t.shape.back() % block != 0) {
    throw Error("cannot store '" + t.name + "' as " + std::string(dtype_name(t.to)) + ": its rows have " +
                std::to_string(t.shape.back()) + " elements, not a multiple of " + std::to_string(block));
  }
}

// The tokenizer.* metadata: from --tokenizer-from, else the source's own if it has one.
void add_tokenizer(const ConvertRequest& request, const WeightFile& source, int64_t n_vocab, GgufWriter& writer) {
  std::unique_ptr<WeightFile> other;
  const WeightFile* from = &source;
  if (!request.tokenizer_from.empty()) {
    other = open_weight_file(request.tokenizer_from);
    from = other.get();
  }
  const MetaValue* tokens = from->find_meta("tokenizer.ggml.tokens");
  if (!tokens) {
    if (other) throw Error(request.tokenizer_from + ": no tokenizer to copy (no tokenizer.ggml.tokens)");
    return;
  }
  const auto n_tokens = static_cast<int64_t>(tokens->as_array().size());
  if (n_tokens > n_vocab) {
    throw Error(from->path() + ": the tokenizer has " + std::to_string(n_tokens) +
                " tokens but the model's output has only " + std::to_string(n_vocab));
  }
  writer.copy_meta(*from, "tokenizer.");
}

// general.architecture is what {arch} resolved to, so the "{arch}.*" keys read back:
// the model's name for a folder (FolderAsModel), a GGUF source's own architecture.
void add_metadata(const CompiledModel& model, const WeightFile& source, bool hf_layout, GgufWriter& writer) {
  writer.set_meta("general.architecture", typed(MetaValue{model.arch}, kGgufString));
  writer.set_meta("general.name", typed(MetaValue{model_title(source)}, kGgufString));
  for (const HParam& h : model.hparams) {
    if (!h.meta_key.empty()) writer.set_meta(h.meta_key, hparam_meta_value(h));
  }
  if (hf_layout) writer.set_meta(std::string(dsl::kHfLayoutKey), typed(MetaValue{uint64_t{1}}, kGgufUint32));
}

// Every weight the graph reads, once per GGUF name, checked before anything is written.
std::vector<std::pair<ConvertedTensor, const TensorView*>> plan_tensors(const CompiledModel& model,
                                                                        const WeightFile& weights,
                                                                        const std::optional<QuantPreset>& preset) {
  std::vector<std::pair<ConvertedTensor, const TensorView*>> plan;
  std::set<std::string> seen;
  std::vector<std::string> names;
  for (const GraphTensor& t : model.graph.tensors()) {
    if (t.role == TensorRole::Weight) names.push_back(t.gguf_name);
  }
  const int64_t n_layers = layer_count_of(names);
  for (const GraphTensor& t : model.graph.tensors()) {
    if (t.role != TensorRole::Weight || !seen.insert(t.gguf_name).second) continue;
    const TensorView* src = weights.find_tensor(t.file_name);
    if (!src) throw Error(weights.path() + ": no tensor '" + t.file_name + "'");  // compile_model checked it
    ConvertedTensor c{t.gguf_name, src->dtype, written_dtype(t, *src, preset, n_layers), t.shape, t.transposed};
    check_blocks(c);
    if (c.transposed && !transposable(c.from)) {
      throw Error("cannot transpose '" + t.file_name + "': it is stored as " + std::string(dtype_name(c.from)));
    }
    plan.emplace_back(std::move(c), src);
  }
  return plan;
}

}  // namespace

ConvertSummary convert_to_gguf(const ConvertRequest& request, const std::string& output,
                               const ConvertProgress& progress) {
  const std::unique_ptr<WeightFile> source = open_weight_file(request.source);
  ConvertSummary summary;
  summary.arch_path = choose_definition(request, *source, &summary.arch_reason);
  const auto def = dsl::parse_model_file(summary.arch_path);

  std::unique_ptr<WeightFile> as_model;
  if (source->format() == "hf") as_model = std::make_unique<FolderAsModel>(*source, def->name);
  const WeightFile& weights = as_model ? *as_model : *source;
  dsl::CompileOptions options;
  options.weights = &weights;
  const CompiledModel model = dsl::compile_model(*def, options);
  summary.model_name = model.arch;
  summary.hf_layout = dsl::has_hf_layout(options);

  GgufWriter writer;
  add_metadata(model, *source, summary.hf_layout, writer);
  add_tokenizer(request, *source, model.n_vocab, writer);
  if (request.preset) {
    writer.set_meta("general.file_type", typed(MetaValue{uint64_t{request.preset->file_type}}, kGgufUint32));
  }
  const auto plan = plan_tensors(model, weights, request.preset);
  for (size_t i = 0; i < plan.size(); ++i) {
    const auto& [tensor, src] = plan[i];
    GgufWriter::RowFiller rows = converted_rows(*src, tensor.transposed, tensor.to);
    writer.add_tensor(tensor.name, tensor.to, tensor.shape,
                      [&, i, rows = std::move(rows)](int64_t first_row, int64_t n_rows, void* dst) {
                        if (first_row == 0 && progress) progress(i, plan.size(), plan[i].first);
                        rows(first_row, n_rows, dst);
                      });
  }
  writer.write(output);
  summary.tensors = writer.tensor_count();
  summary.meta_keys = writer.meta_count();
  return summary;
}

}  // namespace tessera::cli
