// llama2.c legacy checkpoint: header validation, GGUF-equivalent metadata, and tensor
// views into the mapped file. File order after the header (each "per layer" array
// holds all layers back to back): token_embedding [vocab, dim], rms_att [L][dim],
// wq [L][dim, dim], wk [L][kv_dim, dim], wv [L][kv_dim, dim], wo [L][dim, dim],
// rms_ffn [L][dim], w1 [L][hidden, dim], w2 [L][dim, hidden], w3 [L][hidden, dim],
// rms_final [dim], freq_cis_real + freq_cis_imag [seq_len, head_size/2] each,
// wcls [vocab, dim] only when the header's vocab_size is negative.
#include "core/weights/llama2c_reader.h"

#include <cstring>
#include <filesystem>

#include "core/util/error.h"
#include "core/weights/gguf_values.h"
#include "core/weights/llama2c_tokenizer.h"

namespace tessera {
namespace {

// The first int32 of llama2.c's newer (version 1/2) exports: "ak42".
constexpr uint32_t kLlama2cVersionedMagic = 0x616b3432;

// Sums products of header fields in 64 bits, remembering whether anything overflowed.
struct CheckedSum {
  int64_t total = 0;
  bool overflow = false;
  void add(std::initializer_list<int64_t> factors) {
    int64_t product = 1;
    for (int64_t f : factors) overflow |= __builtin_mul_overflow(product, f, &product);
    overflow |= __builtin_add_overflow(total, product, &total);
  }
};

std::string describe(const Llama2cConfig& c, int32_t header_vocab) {
  return "dim " + std::to_string(c.dim) + ", hidden_dim " + std::to_string(c.hidden_dim) +
         ", n_layers " + std::to_string(c.n_layers) + ", n_heads " + std::to_string(c.n_heads) +
         ", n_kv_heads " + std::to_string(c.n_kv_heads) + ", vocab_size " +
         std::to_string(header_vocab) + ", seq_len " + std::to_string(c.seq_len);
}

// Floats the arrays after the header hold, per the header (see the file comment).
CheckedSum expected_floats(const Llama2cConfig& c) {
  const int64_t layers = c.n_layers, dim = c.dim, kv = c.kv_dim(), hidden = c.hidden_dim;
  CheckedSum n;
  n.add({c.vocab_size, dim});         // token embedding
  n.add({layers, dim});               // rms_att
  n.add({layers, dim, dim});          // wq
  n.add({2, layers, kv, dim});        // wk, wv
  n.add({layers, dim, dim});          // wo
  n.add({layers, dim});               // rms_ffn
  n.add({3, layers, hidden, dim});    // w1, w2, w3
  n.add({dim});                       // rms_final
  n.add({c.seq_len, c.head_size()});  // freq_cis_real + imag: 2 × [seq_len, head_size/2]
  if (!c.shared_classifier) n.add({c.vocab_size, dim});  // wcls
  return n;
}

}  // namespace

std::string read_llama2c_header(std::span<const uint8_t> bytes, Llama2cConfig* config) {
  if (bytes.size() < kLlama2cHeaderBytes) {
    return "the file is " + std::to_string(bytes.size()) + " bytes, shorter than the " +
           std::to_string(kLlama2cHeaderBytes) + "-byte llama2.c header";
  }
  int32_t h[7];
  std::memcpy(h, bytes.data(), sizeof h);
  if (static_cast<uint32_t>(h[0]) == kLlama2cVersionedMagic) {
    return "it starts with the magic 'ak42' of llama2.c's versioned exports; only the legacy "
           "(version 0) export is supported";
  }
  Llama2cConfig c;
  c.dim = h[0], c.hidden_dim = h[1], c.n_layers = h[2], c.n_heads = h[3], c.n_kv_heads = h[4];
  c.vocab_size = h[5] == INT32_MIN ? 0 : (h[5] < 0 ? -h[5] : h[5]);
  c.seq_len = h[6];
  c.shared_classifier = h[5] > 0;
  const std::string header = "header (" + describe(c, h[5]) + ")";
  if (c.dim <= 0 || c.hidden_dim <= 0 || c.n_layers <= 0 || c.n_heads <= 0 || c.n_kv_heads <= 0 ||
      c.vocab_size <= 0 || c.seq_len <= 0) {
    return "implausible " + header + ": every size must be positive";
  }
  if (c.dim % c.n_heads != 0) return "implausible " + header + ": dim is not a multiple of n_heads";
  if (c.n_heads % c.n_kv_heads != 0) {
    return "implausible " + header + ": n_heads is not a multiple of n_kv_heads";
  }
  if (c.head_size() % 2 != 0) {
    return "implausible " + header + ": head size " + std::to_string(c.head_size()) +
           " is odd, but RoPE rotates pairs";
  }
  const CheckedSum floats = expected_floats(c);
  int64_t expected = 0;
  if (floats.overflow || __builtin_mul_overflow(floats.total, int64_t{4}, &expected) ||
      __builtin_add_overflow(expected, static_cast<int64_t>(kLlama2cHeaderBytes), &expected)) {
    return "implausible " + header + ": the arrays it implies overflow 64 bits";
  }
  if (static_cast<uint64_t>(expected) != bytes.size()) {
    return "size mismatch: the " + header + " implies " + std::to_string(expected) +
           " bytes, but the file has " + std::to_string(bytes.size());
  }
  *config = c;
  return "";
}

std::unique_ptr<Llama2cFile> Llama2cFile::open(const std::string& checkpoint_path,
                                               const std::string& tokenizer_path) {
  return open(MappedFile(checkpoint_path), tokenizer_path);
}

std::unique_ptr<Llama2cFile> Llama2cFile::open(MappedFile checkpoint,
                                               const std::string& tokenizer_path) {
  Llama2cConfig config;
  const std::string problem = read_llama2c_header(checkpoint.bytes(), &config);
  if (!problem.empty()) throw Error(checkpoint.path() + ": not a llama2.c checkpoint: " + problem);
  std::unique_ptr<Llama2cFile> file(new Llama2cFile(std::move(checkpoint), config));
  file->add_model_metadata();
  file->add_tensors();
  if (!tokenizer_path.empty()) {
    read_llama2c_tokenizer(tokenizer_path, config.vocab_size, file->metadata_);
  }
  return file;
}

void Llama2cFile::add_model_metadata() {
  const Llama2cConfig& c = config_;
  auto u32 = [](int64_t v) { return gguf::make_u32(static_cast<uint32_t>(v)); };
  metadata_["general.architecture"] = gguf::make_string("llama");
  metadata_["general.name"] = gguf::make_string(std::filesystem::path(path()).stem().string());
  metadata_["llama.embedding_length"] = u32(c.dim);
  metadata_["llama.feed_forward_length"] = u32(c.hidden_dim);
  metadata_["llama.block_count"] = u32(c.n_layers);
  metadata_["llama.attention.head_count"] = u32(c.n_heads);
  metadata_["llama.attention.head_count_kv"] = u32(c.n_kv_heads);
  metadata_["llama.context_length"] = u32(c.seq_len);
  metadata_["llama.rope.dimension_count"] = u32(c.head_size());
  // Fixed by llama2.c's run.c, not stored in the checkpoint.
  metadata_["llama.attention.layer_norm_rms_epsilon"] = gguf::make_f32(1e-5f);
  metadata_["llama.rope.freq_base"] = gguf::make_f32(10000.0f);
}

void Llama2cFile::add_tensors() {
  const Llama2cConfig& c = config_;
  const int64_t dim = c.dim, kv = c.kv_dim(), hidden = c.hidden_dim, vocab = c.vocab_size;
  const auto* cursor = reinterpret_cast<const float*>(file_.data() + kLlama2cHeaderBytes);
  // Takes the next array of `count` floats from the file.
  auto take = [&cursor](int64_t count) {
    const float* start = cursor;
    cursor += count;
    return start;
  };
  auto view = [](std::string name, std::vector<int64_t> shape, const float* data) {
    TensorView t{
        .name = std::move(name), .dtype = DType::F32, .shape = std::move(shape), .data = data};
    t.n_bytes = static_cast<uint64_t>(t.n_elements()) * sizeof(float);
    return t;
  };

  // Per-layer kinds in file order: GGUF name suffix and per-layer shape.
  struct Kind {
    const char* suffix;
    std::vector<int64_t> shape;
    const float* base = nullptr;
  };
  const float* embedding = take(vocab * dim);
  std::vector<Kind> kinds = {
      {"attn_norm", {dim}},        {"attn_q", {dim, dim}},      {"attn_k", {kv, dim}},
      {"attn_v", {kv, dim}},       {"attn_output", {dim, dim}}, {"ffn_norm", {dim}},
      {"ffn_gate", {hidden, dim}}, {"ffn_down", {dim, hidden}}, {"ffn_up", {hidden, dim}}};
  for (Kind& k : kinds) {
    int64_t per_layer = 1;
    for (int64_t d : k.shape) per_layer *= d;
    k.base = take(per_layer * c.n_layers);
  }
  const float* final_norm = take(dim);
  take(c.seq_len * c.head_size());  // freq_cis_real and freq_cis_imag: unused
  const float* classifier = c.shared_classifier ? embedding : take(vocab * dim);

  // Same order as the GGUF converter: globals, then layer by layer.
  tensors_.push_back(view("token_embd.weight", {vocab, dim}, embedding));
  tensors_.push_back(view("output_norm.weight", {dim}, final_norm));
  tensors_.push_back(view("output.weight", {vocab, dim}, classifier));
  // The converter's order within a layer: attn_q, attn_k, attn_v, attn_output,
  // attn_norm, ffn_gate, ffn_down, ffn_up, ffn_norm (indexes into the file order).
  constexpr int kLayerOrder[] = {1, 2, 3, 4, 0, 6, 7, 8, 5};
  for (int64_t layer = 0; layer < c.n_layers; ++layer) {
    for (int kind : kLayerOrder) {
      const Kind& k = kinds[kind];
      const TensorView probe = view("", k.shape, nullptr);
      const float* data = k.base + layer * probe.n_elements();
      tensors_.push_back(
          view("blk." + std::to_string(layer) + "." + k.suffix + ".weight", k.shape, data));
    }
  }
}

}  // namespace tessera
