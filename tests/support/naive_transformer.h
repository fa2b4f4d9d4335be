// A deliberately naive decoder-only transformer: plain loops over the textbook formulas,
// the oracle the engine's logits are checked against. Shares no kernel, graph or DSL code.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/weights/weight_file.h"

namespace tessera::test {

enum class NaiveNorm { rms, layer };
enum class NaiveNormGain { w, one_plus_w };  // y = n(x) * w, or n(x) * (1 + w) (Gemma)
enum class NaiveBlock {
  sequential,            // x += attn(n1(x)); x += ffn(n2(x))            (LLaMA)
  parallel_shared_norm,  // x += attn(n1(x)) + ffn(n1(x))                (GPT-J, Phi-2, Falcon)
  parallel_two_norms,    // x += attn(n1(x)) + ffn(n2(x)), both from x   (GPT-NeoX)
};
enum class NaiveQkv {
  separate,        // attn_q, attn_k, attn_v
  fused,           // attn_qkv rows [q; k; v]
  fused_per_head,  // attn_qkv rows [q_0; k_0; v_0; q_1; ...] (BLOOM, NeoX);
                   // needs n_kv_heads == n_heads
};
enum class NaivePosition { rope, alibi, learned, none };
enum class NaiveRopePairing {
  interleaved,  // rotates (2i, 2i + 1)           (LLaMA GGUF, llama2.c, GPT-J)
  neox,         // rotates (i, i + n_rot / 2)      (NeoX, Hugging Face LLaMA)
};
enum class NaiveFfn {
  swiglu,    // down(silu(gate x) * up x)
  geglu,     // down(gelu(gate x) * up x)
  gelu,      // down(gelu(up x))
  relu,      // down(relu(up x))
  relu_sqr,  // down(relu(up x)^2)
};
enum class NaiveGelu { exact, tanh };

// Every knob of the decoder-only design space. Sizes must be set; every other default
// is LLaMA's. A softcap, scale or window of 0 means "off"/"default" as stated.
struct NaiveConfig {
  int n_layers = 0;
  int d_model = 0;
  int n_heads = 0;
  int n_kv_heads = 0;  // 0: n_heads
  int head_dim = 0;    // 0: d_model / n_heads
  int d_ff = 0;
  int n_vocab = 0;

  NaiveNorm norm = NaiveNorm::rms;
  double norm_eps = 1e-5;
  NaiveNormGain norm_gain = NaiveNormGain::w;
  bool norm_bias = false;  // every norm but QK-norm has a .bias (LayerNorm models)

  NaiveBlock block = NaiveBlock::sequential;
  bool post_norms = false;  // x + post_norm(attn(...)), x + post_norm(ffn(...)) (Gemma 2)

  NaiveQkv qkv = NaiveQkv::separate;
  bool qkv_bias = false;
  bool attn_output_bias = false;
  bool ffn_bias = false;       // biases on ffn_gate, ffn_up and ffn_down
  bool qk_norm = false;        // RMS over each head of q and k, weight [head_dim], before RoPE

  NaivePosition position = NaivePosition::rope;
  double rope_theta = 10000.0;
  int rope_dims = 0;           // rotated dims at the start of each head; 0: head_dim
  NaiveRopePairing rope_pairing = NaiveRopePairing::interleaved;
  double rope_linear_scale = 1.0;  // positions are divided by it
  double alibi_max_bias = 8.0;

  double attn_scale = 0.0;     // 0: 1 / sqrt(head_dim)
  double attn_softcap = 0.0;   // scores become c * tanh(s / c); 0: off
  std::vector<int> sliding_window = {};  // per layer (empty: none); 0: full attention

  NaiveFfn ffn = NaiveFfn::swiglu;
  NaiveGelu gelu = NaiveGelu::exact;  // for geglu and gelu

  double embed_scale = 1.0;    // multiplies the looked-up embedding (Gemma: sqrt(d_model))
  bool embed_norm = false;     // token_embd_norm after the lookup (BLOOM)
  bool final_norm = true;      // output_norm before the output projection
  bool tied_output = false;    // the output projection is token_embd.weight
  bool output_bias = false;
  double final_softcap = 0.0;  // logits become c * tanh(l / c); 0: off
};

// A float matrix [rows, cols], row-major. A 1-D tensor of n values is [1, n]; a tensor
// of more dims keeps its last dim as cols.
struct NaiveMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<float> values;
  float at(int64_t row, int64_t col) const { return values[row * cols + col]; }
};

// Where the reference reads its weights: a GGUF-convention name ("blk.3.attn_q.weight",
// matrices [out, in]) to a float matrix, or nullopt when the model has no such tensor.
class NaiveWeights {
 public:
  virtual ~NaiveWeights() = default;
  virtual std::optional<NaiveMatrix> find(const std::string& name) const = 0;
};

// A WeightFile read by GGUF names; F32, F16, BF16 and Q8_0 tensors become floats.
// The file must outlive this object.
class WeightFileWeights final : public NaiveWeights {
 public:
  explicit WeightFileWeights(const WeightFile& file) : file_(file) {}
  std::optional<NaiveMatrix> find(const std::string& name) const override;

 private:
  const WeightFile& file_;
};

// Weights under another naming scheme: `source_name` maps each GGUF-convention name to
// the name `source` knows (an empty string: the scheme has no such tensor).
// `source` must outlive this object.
class RenamedWeights final : public NaiveWeights {
 public:
  using NameMap = std::function<std::string(const std::string& gguf_name)>;
  RenamedWeights(const NaiveWeights& source, NameMap source_name)
      : source_(source), source_name_(std::move(source_name)) {}
  std::optional<NaiveMatrix> find(const std::string& name) const override;

 private:
  const NaiveWeights& source_;
  NameMap source_name_;
};

// Weights held in memory by GGUF-convention name (toy models).
class InMemoryWeights final : public NaiveWeights {
 public:
  void set(const std::string& name, NaiveMatrix matrix) { tensors_[name] = std::move(matrix); }
  std::optional<NaiveMatrix> find(const std::string& name) const override;

 private:
  std::map<std::string, NaiveMatrix> tensors_;
};

// The LLaMA knobs of a GGUF file: sizes, norm epsilon, RoPE theta and dims from
// "<arch>.*" metadata, vocab from token_embd.weight, tied when output.weight is absent.
// Throws tessera::Error naming the missing key.
NaiveConfig naive_config_from_gguf(const WeightFile& file);

// Logits [T][n_vocab] for every position of `tokens`, the whole sequence at once (no
// cache), activations and sums in double. Throws tessera::Error on an inconsistent
// config, a missing weight or a weight of the wrong shape, naming it.
std::vector<std::vector<float>> naive_logits(const NaiveConfig& config,
                                             const NaiveWeights& weights,
                                             std::span<const int32_t> tokens);

// The pieces the knobs are made of, exposed so tests can check them on single values.

// ALiBi slope of each head (the paper's recipe, incl. non-power-of-two head counts).
std::vector<double> naive_alibi_slopes(int n_heads, double max_bias);
// Rotates one head vector [head_dim] in place for `position` as `config` says.
void naive_rope(std::span<double> head, int64_t position, const NaiveConfig& config);
// Whether query `query` sees key `key` under a sliding window `window` (0: full, causal).
bool naive_key_visible(int64_t query, int64_t key, int window);

}  // namespace tessera::test
