// The naive reference transformer: every formula written out as loops, in double, one
// token at a time and one head at a time, so it can be read against the papers.
#include "support/naive_transformer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>

#include "core/tensor/dtype.h"
#include "core/util/error.h"

namespace tessera::test {
namespace {

using Vec = std::vector<double>;  // one token's activations
using Seq = std::vector<Vec>;     // [T][n]
constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

[[noreturn]] void fail(const std::string& what) { throw Error("naive transformer: " + what); }

// ---- weights ------------------------------------------------------------------------

// Q8_0 storage: blocks of 32 int8 values sharing one f16 scale, value = scale * q.
void q8_0_to_float(const uint8_t* src, float* dst, int64_t n) {
  for (int64_t block = 0; block < n / kQ8BlockElems; ++block) {
    const uint8_t* bytes = src + block * static_cast<int64_t>(sizeof(BlockQ8_0));
    uint16_t scale_bits;
    std::memcpy(&scale_bits, bytes, sizeof scale_bits);
    const float scale = f16_to_f32(scale_bits);
    for (int i = 0; i < kQ8BlockElems; ++i) {
      const auto q = static_cast<int8_t>(bytes[sizeof scale_bits + i]);
      dst[block * kQ8BlockElems + i] = scale * static_cast<float>(q);
    }
  }
}

// Bytes that `n` elements of a float-convertible dtype take; 0 for any other dtype.
uint64_t float_dtype_bytes(DType dtype, int64_t n) {
  switch (dtype) {
    case DType::F32: return 4 * uint64_t(n);
    case DType::F16: case DType::BF16: return 2 * uint64_t(n);
    case DType::Q8_0: return sizeof(BlockQ8_0) * uint64_t(n / kQ8BlockElems);
    default: return 0;
  }
}

std::vector<float> tensor_to_float(const TensorView& t) {
  const int64_t n = t.n_elements();
  const uint64_t n_bytes = float_dtype_bytes(t.dtype, n);
  if (n_bytes == 0 && n > 0)
    fail("weight '" + t.name + "' has dtype " + std::string(dtype_name(t.dtype)));
  if (t.dtype == DType::Q8_0 && n % kQ8BlockElems != 0)
    fail("q8_0 weight '" + t.name + "' has " + std::to_string(n) + " values, not whole blocks");
  if (t.n_bytes < n_bytes)
    fail("weight '" + t.name + "' holds " + std::to_string(t.n_bytes) + " bytes, too few for " +
         std::to_string(n) + " " + std::string(dtype_name(t.dtype)) + " values");
  std::vector<float> out(static_cast<size_t>(n));
  const auto* bytes = static_cast<const uint8_t*>(t.data);
  if (t.dtype == DType::Q8_0) {
    q8_0_to_float(bytes, out.data(), n);
    return out;
  }
  for (int64_t i = 0; i < n; ++i) {
    uint16_t half;
    if (t.dtype == DType::F32) {
      std::memcpy(&out[i], bytes + 4 * i, 4);
      continue;
    }
    std::memcpy(&half, bytes + 2 * i, 2);
    out[i] = t.dtype == DType::F16 ? f16_to_f32(half) : bf16_to_f32(half);
  }
  return out;
}

std::string shape_text(int64_t rows, int64_t cols) {
  return "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
}

// The weight `name` of exactly [rows, cols] (rows 1 for a vector), or an Error.
NaiveMatrix need(const NaiveWeights& weights, const std::string& name, int64_t rows,
                 int64_t cols) {
  std::optional<NaiveMatrix> m = weights.find(name);
  if (!m) fail("missing weight '" + name + "'");
  if (m->rows != rows || m->cols != cols) {
    fail("weight '" + name + "' is " + shape_text(m->rows, m->cols) + ", expected " +
         shape_text(rows, cols));
  }
  return std::move(*m);
}

// ---- arithmetic ---------------------------------------------------------------------

// y = W x (+ b); W [out, in], x [in].
Vec matvec(const NaiveMatrix& w, const Vec& x, const NaiveMatrix* bias) {
  Vec y(static_cast<size_t>(w.rows));
  for (int64_t r = 0; r < w.rows; ++r) {
    double sum = bias ? bias->values[r] : 0.0;
    for (int64_t c = 0; c < w.cols; ++c) sum += static_cast<double>(w.at(r, c)) * x[c];
    y[r] = sum;
  }
  return y;
}

// A projection [out, in] with an optional bias [out], applied to every token.
struct Linear {
  NaiveMatrix weight;
  std::optional<NaiveMatrix> bias;

  Linear(const NaiveWeights& weights, const std::string& stem, int64_t out, int64_t in,
         bool has_bias)
      : weight(need(weights, stem + ".weight", out, in)) {
    if (has_bias) bias = need(weights, stem + ".bias", 1, out);
  }
  Vec operator()(const Vec& x) const { return matvec(weight, x, bias ? &*bias : nullptr); }
  Seq operator()(const Seq& xs) const {
    Seq ys;
    for (const Vec& x : xs) ys.push_back((*this)(x));
    return ys;
  }
};

double gain(const NaiveConfig& c, float w) {
  return c.norm_gain == NaiveNormGain::one_plus_w ? 1.0 + w : static_cast<double>(w);
}

// RMS: x / sqrt(mean(x^2) + eps); LayerNorm: (x - mean) / sqrt(var + eps); then gain, bias.
Vec normalize(const NaiveConfig& c, NaiveNorm kind, const Vec& x, const NaiveMatrix& w,
              const NaiveMatrix* bias) {
  const double n = static_cast<double>(x.size());
  double mean = 0.0;
  if (kind == NaiveNorm::layer) {
    for (double v : x) mean += v;
    mean /= n;
  }
  double var = 0.0;
  for (double v : x) var += (v - mean) * (v - mean);
  const double inv = 1.0 / std::sqrt(var / n + c.norm_eps);
  Vec y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    y[i] = (x[i] - mean) * inv * gain(c, w.values[i]) + (bias ? bias->values[i] : 0.0);
  }
  return y;
}

// The model norm `stem` (config kind, weight and optional bias) over every token.
Seq norm_all(const NaiveConfig& c, const NaiveWeights& weights, const std::string& stem,
             const Seq& xs) {
  const NaiveMatrix w = need(weights, stem + ".weight", 1, c.d_model);
  std::optional<NaiveMatrix> b;
  if (c.norm_bias) b = need(weights, stem + ".bias", 1, c.d_model);
  Seq ys;
  for (const Vec& x : xs) ys.push_back(normalize(c, c.norm, x, w, b ? &*b : nullptr));
  return ys;
}

void add_into(Seq& xs, const Seq& ys) {
  for (size_t t = 0; t < xs.size(); ++t)
    for (size_t i = 0; i < xs[t].size(); ++i) xs[t][i] += ys[t][i];
}

double softcap(double x, double cap) { return cap > 0.0 ? cap * std::tanh(x / cap) : x; }

double gelu(const NaiveConfig& c, double x) {
  if (c.gelu == NaiveGelu::exact) return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2));
  const double k = std::sqrt(2.0 / std::numbers::pi);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

// ---- attention ----------------------------------------------------------------------

struct Qkv {
  Seq q;  // [T][n_heads * head_dim]
  Seq k;  // [T][n_kv_heads * head_dim]
  Seq v;  // [T][n_kv_heads * head_dim]
};

Qkv project_qkv(const NaiveConfig& c, const NaiveWeights& weights, const std::string& blk,
                const Seq& h) {
  const int64_t q_dim = int64_t{c.n_heads} * c.head_dim;
  const int64_t kv_dim = int64_t{c.n_kv_heads} * c.head_dim;
  if (c.qkv == NaiveQkv::separate) {
    return {Linear(weights, blk + "attn_q", q_dim, c.d_model, c.qkv_bias)(h),
            Linear(weights, blk + "attn_k", kv_dim, c.d_model, c.qkv_bias)(h),
            Linear(weights, blk + "attn_v", kv_dim, c.d_model, c.qkv_bias)(h)};
  }
  const Linear fused(weights, blk + "attn_qkv", q_dim + 2 * kv_dim, c.d_model, c.qkv_bias);
  Qkv out;
  for (const Vec& x : h) {
    const Vec y = fused(x);  // [q_dim + 2 kv_dim]
    if (c.qkv == NaiveQkv::fused) {  // y = [q; k; v]
      out.q.emplace_back(y.begin(), y.begin() + q_dim);
      out.k.emplace_back(y.begin() + q_dim, y.begin() + q_dim + kv_dim);
      out.v.emplace_back(y.begin() + q_dim + kv_dim, y.end());
      continue;
    }
    Vec q, k, v;
    for (int64_t head = 0; head < c.n_heads; ++head) {  // y = [q_0; k_0; v_0; q_1; ...]
      const int64_t group = 3 * head * c.head_dim;
      for (int64_t d = 0; d < c.head_dim; ++d) {
        q.push_back(y[group + d]);
        k.push_back(y[group + c.head_dim + d]);
        v.push_back(y[group + 2 * c.head_dim + d]);
      }
    }
    out.q.push_back(q);
    out.k.push_back(k);
    out.v.push_back(v);
  }
  return out;
}

// Applies `f` to each head's slice [head_dim] of every token of xs.
template <typename F>
void for_each_head(const NaiveConfig& c, Seq& xs, F f) {
  for (size_t t = 0; t < xs.size(); ++t) {
    const int64_t n_heads = static_cast<int64_t>(xs[t].size()) / c.head_dim;
    for (int64_t head = 0; head < n_heads; ++head)
      f(static_cast<int64_t>(t), std::span<double>(xs[t]).subspan(head * c.head_dim, c.head_dim));
  }
}

void qk_norm(const NaiveConfig& c, const NaiveWeights& weights, const std::string& stem,
             Seq& xs) {
  const NaiveMatrix w = need(weights, stem + ".weight", 1, c.head_dim);
  for_each_head(c, xs, [&](int64_t, std::span<double> head) {
    const Vec y = normalize(c, NaiveNorm::rms, Vec(head.begin(), head.end()), w, nullptr);
    std::copy(y.begin(), y.end(), head.begin());
  });
}

// out [T][n_heads * head_dim]: softmax(scaled, capped, biased, masked q.k) weighted v.
Seq attend(const NaiveConfig& c, int layer, const Qkv& qkv) {
  const int64_t T = static_cast<int64_t>(qkv.q.size());
  const int window = c.sliding_window.empty() ? 0 : c.sliding_window[layer];
  const double scale = c.attn_scale > 0.0 ? c.attn_scale : 1.0 / std::sqrt(double(c.head_dim));
  const std::vector<double> slopes = c.position == NaivePosition::alibi
                                         ? naive_alibi_slopes(c.n_heads, c.alibi_max_bias)
                                         : std::vector<double>(c.n_heads, 0.0);
  const int64_t heads_per_kv = c.n_heads / c.n_kv_heads;
  Seq out(T, Vec(static_cast<size_t>(c.n_heads) * c.head_dim, 0.0));
  for (int64_t i = 0; i < T; ++i) {
    for (int64_t head = 0; head < c.n_heads; ++head) {
      const int64_t q_at = head * c.head_dim;
      const int64_t kv_at = (head / heads_per_kv) * c.head_dim;
      std::vector<double> score(T, kMinusInf);
      double max_score = kMinusInf;
      for (int64_t j = 0; j < T; ++j) {
        if (!naive_key_visible(i, j, window)) continue;
        double s = 0.0;
        for (int64_t d = 0; d < c.head_dim; ++d) s += qkv.q[i][q_at + d] * qkv.k[j][kv_at + d];
        score[j] = softcap(s * scale, c.attn_softcap) + slopes[head] * double(j - i);
        max_score = std::max(max_score, score[j]);
      }
      double total = 0.0;
      for (double& s : score) total += (s = std::exp(s - max_score));
      for (int64_t j = 0; j < T; ++j)
        for (int64_t d = 0; d < c.head_dim; ++d)
          out[i][q_at + d] += score[j] / total * qkv.v[j][kv_at + d];
    }
  }
  return out;
}

Seq attention(const NaiveConfig& c, const NaiveWeights& weights, int layer, const Seq& h) {
  const std::string blk = "blk." + std::to_string(layer) + ".";
  Qkv qkv = project_qkv(c, weights, blk, h);
  if (c.qk_norm) {
    qk_norm(c, weights, blk + "attn_q_norm", qkv.q);
    qk_norm(c, weights, blk + "attn_k_norm", qkv.k);
  }
  if (c.position == NaivePosition::rope) {
    auto rotate = [&](int64_t t, std::span<double> head) { naive_rope(head, t, c); };
    for_each_head(c, qkv.q, rotate);
    for_each_head(c, qkv.k, rotate);
  }
  const Linear output(weights, blk + "attn_output", c.d_model, int64_t{c.n_heads} * c.head_dim,
                      c.attn_output_bias);
  return output(attend(c, layer, qkv));
}

// ---- feed-forward, block, model -----------------------------------------------------

Seq feed_forward(const NaiveConfig& c, const NaiveWeights& weights, const std::string& blk,
                 const Seq& h) {
  const bool gated = c.ffn == NaiveFfn::swiglu || c.ffn == NaiveFfn::geglu;
  const Linear up(weights, blk + "ffn_up", c.d_ff, c.d_model, c.ffn_bias);
  const Linear down(weights, blk + "ffn_down", c.d_model, c.d_ff, c.ffn_bias);
  std::optional<Linear> gate;
  if (gated) gate.emplace(weights, blk + "ffn_gate", c.d_ff, c.d_model, c.ffn_bias);
  Seq out;
  for (const Vec& x : h) {
    Vec a = up(x);
    const Vec g = gated ? (*gate)(x) : Vec();
    for (size_t i = 0; i < a.size(); ++i) {
      switch (c.ffn) {
        case NaiveFfn::swiglu: a[i] *= g[i] / (1.0 + std::exp(-g[i])); break;
        case NaiveFfn::geglu: a[i] *= gelu(c, g[i]); break;
        case NaiveFfn::gelu: a[i] = gelu(c, a[i]); break;
        case NaiveFfn::relu: a[i] = std::max(a[i], 0.0); break;
        case NaiveFfn::relu_sqr: a[i] = std::max(a[i], 0.0) * std::max(a[i], 0.0); break;
      }
    }
    out.push_back(down(a));
  }
  return out;
}

void run_block(const NaiveConfig& c, const NaiveWeights& weights, int layer, Seq& x) {
  const std::string blk = "blk." + std::to_string(layer) + ".";
  const Seq h = norm_all(c, weights, blk + "attn_norm", x);
  Seq attn = attention(c, weights, layer, h);
  if (c.post_norms) attn = norm_all(c, weights, blk + "post_attention_norm", attn);
  // A sequential block feeds the updated residual to the feed-forward; parallel ones x.
  if (c.block == NaiveBlock::sequential) add_into(x, attn);
  const Seq ffn_in = c.block == NaiveBlock::parallel_shared_norm
                         ? h
                         : norm_all(c, weights, blk + "ffn_norm", x);
  Seq ffn = feed_forward(c, weights, blk, ffn_in);
  if (c.post_norms) ffn = norm_all(c, weights, blk + "post_ffw_norm", ffn);
  if (c.block != NaiveBlock::sequential) add_into(x, attn);
  add_into(x, ffn);
}

Seq embed(const NaiveConfig& c, const NaiveWeights& weights, std::span<const int32_t> tokens) {
  const NaiveMatrix table = need(weights, "token_embd.weight", c.n_vocab, c.d_model);
  std::optional<NaiveMatrix> positions;
  if (c.position == NaivePosition::learned) {
    positions = weights.find("position_embd.weight");
    if (!positions) fail("missing weight 'position_embd.weight'");
    if (positions->cols != c.d_model || positions->rows < int64_t(tokens.size()))
      fail("weight 'position_embd.weight' is " + shape_text(positions->rows, positions->cols) +
           ", too small for " + std::to_string(tokens.size()) + " tokens");
  }
  Seq x;
  for (size_t t = 0; t < tokens.size(); ++t) {
    if (tokens[t] < 0 || tokens[t] >= c.n_vocab)
      fail("token " + std::to_string(tokens[t]) + " at position " + std::to_string(t) +
           " is outside the vocabulary (" + std::to_string(c.n_vocab) + ")");
    Vec e(c.d_model);
    for (int d = 0; d < c.d_model; ++d) {
      e[d] = table.at(tokens[t], d) * c.embed_scale;
      if (positions) e[d] += positions->at(int64_t(t), d);
    }
    x.push_back(e);
  }
  return c.embed_norm ? norm_all(c, weights, "token_embd_norm", x) : x;
}

std::vector<std::vector<float>> project_to_vocab(const NaiveConfig& c,
                                                 const NaiveWeights& weights, const Seq& x) {
  const NaiveMatrix w =
      need(weights, c.tied_output ? "token_embd.weight" : "output.weight", c.n_vocab, c.d_model);
  std::optional<NaiveMatrix> bias;
  if (c.output_bias) bias = need(weights, "output.bias", 1, c.n_vocab);
  std::vector<std::vector<float>> logits;
  for (const Vec& v : x) {
    const Vec l = matvec(w, v, bias ? &*bias : nullptr);
    std::vector<float>& row = logits.emplace_back(l.size());
    for (size_t i = 0; i < l.size(); ++i) row[i] = float(softcap(l[i], c.final_softcap));
  }
  return logits;
}

// The config with its "0 = derived" sizes filled in; throws when knobs contradict.
NaiveConfig resolved(NaiveConfig c) {
  if (c.n_layers <= 0 || c.d_model <= 0 || c.n_heads <= 0 || c.d_ff <= 0 || c.n_vocab <= 0)
    fail("n_layers, d_model, n_heads, d_ff and n_vocab must be set");
  if (c.n_kv_heads == 0) c.n_kv_heads = c.n_heads;
  if (c.head_dim == 0) c.head_dim = c.d_model / c.n_heads;
  if (c.rope_dims == 0) c.rope_dims = c.head_dim;
  if (c.n_kv_heads <= 0 || c.n_heads % c.n_kv_heads != 0)
    fail("n_heads (" + std::to_string(c.n_heads) + ") is not a multiple of n_kv_heads (" +
         std::to_string(c.n_kv_heads) + ")");
  if (c.qkv == NaiveQkv::fused_per_head && c.n_kv_heads != c.n_heads)
    fail("per-head fused qkv needs n_kv_heads == n_heads");
  if (c.rope_dims % 2 != 0 || c.rope_dims > c.head_dim)
    fail("rope_dims (" + std::to_string(c.rope_dims) + ") must be even and at most head_dim (" +
         std::to_string(c.head_dim) + ")");
  if (!c.sliding_window.empty() && int(c.sliding_window.size()) != c.n_layers)
    fail("sliding_window has " + std::to_string(c.sliding_window.size()) +
         " entries for " + std::to_string(c.n_layers) + " layers");
  return c;
}

int64_t meta_int(const WeightFile& file, const std::string& key) {
  const MetaValue* v = file.find_meta(key);
  if (!v) fail(file.path() + ": no metadata '" + key + "'");
  return v->as_int();
}

}  // namespace

// ---- public entry points ------------------------------------------------------------

std::optional<NaiveMatrix> WeightFileWeights::find(const std::string& name) const {
  const TensorView* t = file_.find_tensor(name);
  if (!t) return std::nullopt;
  NaiveMatrix m;
  m.cols = t->shape.empty() ? 1 : t->shape.back();
  m.rows = m.cols == 0 ? 0 : t->n_elements() / m.cols;
  m.values = tensor_to_float(*t);
  return m;
}

std::optional<NaiveMatrix> RenamedWeights::find(const std::string& name) const {
  const std::string source_name = source_name_(name);
  if (source_name.empty()) return std::nullopt;
  return source_.find(source_name);
}

std::optional<NaiveMatrix> InMemoryWeights::find(const std::string& name) const {
  const auto it = tensors_.find(name);
  if (it == tensors_.end()) return std::nullopt;
  return it->second;
}

NaiveConfig naive_config_from_gguf(const WeightFile& file) {
  const MetaValue* arch_value = file.find_meta("general.architecture");
  if (!arch_value) fail(file.path() + ": no metadata 'general.architecture'");
  const std::string arch = arch_value->as_string() + ".";
  NaiveConfig c;
  c.n_layers = int(meta_int(file, arch + "block_count"));
  c.d_model = int(meta_int(file, arch + "embedding_length"));
  c.n_heads = int(meta_int(file, arch + "attention.head_count"));
  c.n_kv_heads = int(meta_int(file, arch + "attention.head_count_kv"));
  c.d_ff = int(meta_int(file, arch + "feed_forward_length"));
  if (const MetaValue* v = file.find_meta(arch + "attention.key_length"))
    c.head_dim = int(v->as_int());
  if (const MetaValue* v = file.find_meta(arch + "rope.dimension_count"))
    c.rope_dims = int(v->as_int());
  if (const MetaValue* v = file.find_meta(arch + "rope.freq_base")) c.rope_theta = v->as_float();
  if (const MetaValue* v = file.find_meta(arch + "attention.layer_norm_rms_epsilon"))
    c.norm_eps = v->as_float();
  const TensorView* embd = file.find_tensor("token_embd.weight");
  if (!embd || embd->shape.size() != 2) fail(file.path() + ": no 2-D 'token_embd.weight'");
  c.n_vocab = int(embd->shape[0]);
  c.tied_output = file.find_tensor("output.weight") == nullptr;
  return c;
}

std::vector<std::vector<float>> naive_logits(const NaiveConfig& config,
                                             const NaiveWeights& weights,
                                             std::span<const int32_t> tokens) {
  const NaiveConfig c = resolved(config);
  Seq x = embed(c, weights, tokens);  // [T][d_model]
  for (int layer = 0; layer < c.n_layers; ++layer) run_block(c, weights, layer, x);
  if (c.final_norm) x = norm_all(c, weights, "output_norm", x);
  return project_to_vocab(c, weights, x);
}

std::vector<double> naive_alibi_slopes(int n_heads, double max_bias) {
  // The largest power of two <= n_heads gets the geometric sequence 2^(-max_bias*h/n);
  // the remaining heads take every other slope of the sequence for twice that count.
  int pow2 = 1;
  while (pow2 * 2 <= n_heads) pow2 *= 2;
  std::vector<double> slopes;
  for (int h = 1; h <= pow2; ++h) slopes.push_back(std::exp2(-max_bias * h / pow2));
  for (int h = 1; int(slopes.size()) < n_heads; h += 2)
    slopes.push_back(std::exp2(-max_bias * h / (2 * pow2)));
  return slopes;
}

void naive_rope(std::span<double> head, int64_t position, const NaiveConfig& config) {
  const int n_rot = config.rope_dims == 0 ? int(head.size()) : config.rope_dims;
  if (n_rot % 2 != 0 || n_rot > int(head.size()))
    fail("rope_dims (" + std::to_string(n_rot) + ") must be even and at most head_dim (" +
         std::to_string(head.size()) + ")");
  const double pos = double(position) / config.rope_linear_scale;
  for (int i = 0; i < n_rot / 2; ++i) {
    const double angle = pos * std::pow(config.rope_theta, -2.0 * i / n_rot);
    const bool neox = config.rope_pairing == NaiveRopePairing::neox;
    double& a = head[neox ? i : 2 * i];
    double& b = head[neox ? i + n_rot / 2 : 2 * i + 1];
    const double a0 = a, b0 = b;
    a = a0 * std::cos(angle) - b0 * std::sin(angle);
    b = a0 * std::sin(angle) + b0 * std::cos(angle);
  }
}

bool naive_key_visible(int64_t query, int64_t key, int window) {
  return key <= query && (window <= 0 || key > query - window);
}

}  // namespace tessera::test
