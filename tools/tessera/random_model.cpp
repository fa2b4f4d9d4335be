#include "tools/tessera/random_model.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <set>

#include "core/util/error.h"

namespace tessera::cli {
namespace {

MetaValue typed(MetaValue v, int gguf_type) {
  v.gguf_type = gguf_type;
  return v;
}

constexpr int kGgufUint32 = 4, kGgufInt32 = 5, kGgufFloat32 = 6, kGgufString = 8, kGgufArray = 9;

}  // namespace

MetaValue hparam_meta_value(const HParam& h) {
  if (h.is_integer && h.value >= 0 && h.value <= 4294967295.0) {
    return typed(MetaValue{static_cast<uint64_t>(h.value)}, kGgufUint32);
  }
  if (h.is_integer) return typed(MetaValue{static_cast<int64_t>(h.value)}, kGgufInt32);
  return typed(MetaValue{h.value}, kGgufFloat32);
}

std::vector<RandomWeight> random_weights(const CompiledModel& model, DType dtype, uint64_t seed) {
  std::vector<RandomWeight> out;
  std::set<std::string> seen;
  uint64_t index = 0;
  for (const GraphTensor& t : model.graph.tensors()) {
    if (t.role != TensorRole::Weight || !seen.insert(t.file_name).second) continue;
    const bool matrix = t.shape.size() >= 2;
    RandomWeight w;
    w.tensor = &t;
    w.dtype = matrix ? dtype : DType::F32;
    w.seed = seed + 1000003ull * ++index;
    w.center = matrix ? 0.0f : 1.0f;
    w.half_width = matrix ? std::sqrt(3.0f / static_cast<float>(t.shape.back())) : 0.1f;
    out.push_back(w);
  }
  return out;
}

void random_rows(const RandomWeight& w, int64_t first_row, int64_t n_rows, float* dst) {
  const int64_t cols = w.tensor->shape.back();
  for (int64_t r = 0; r < n_rows; ++r) {
    // Seeded by the row's index, so a row's values do not depend on the chunking.
    std::mt19937_64 rng(w.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(first_row + r));
    float* row = dst + r * cols;
    for (int64_t c = 0; c < cols; ++c) {
      const double u = static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
      row[c] = w.center + w.half_width * static_cast<float>(2.0 * u - 1.0);
    }
  }
}

void add_random_model(const CompiledModel& model, DType dtype, uint64_t seed, GgufWriter& writer) {
  writer.set_meta("general.architecture", typed(MetaValue{model.name}, kGgufString));
  writer.set_meta("general.name", typed(MetaValue{model.name + " (random weights)"}, kGgufString));
  for (const HParam& h : model.hparams) {
    if (!h.meta_key.empty()) writer.set_meta(h.meta_key, hparam_meta_value(h));
  }
  for (const RandomWeight& w : random_weights(model, dtype, seed)) {
    const int64_t cols = w.tensor->shape.back();
    writer.add_tensor(w.tensor->file_name, w.dtype, w.tensor->shape, [w, cols](int64_t first, int64_t n, void* dst) {
      std::vector<float> row(static_cast<size_t>(cols));
      const int64_t row_bytes = dtype_row_bytes(w.dtype, cols);
      for (int64_t r = 0; r < n; ++r) {
        random_rows(w, first + r, 1, row.data());
        quantize_row(w.dtype, row.data(), static_cast<uint8_t*>(dst) + r * row_bytes, cols);
      }
    });
  }
}

void add_byte_vocab(int64_t n_vocab, GgufWriter& writer) {
  if (n_vocab < 259) throw Error("a byte vocabulary needs at least 259 tokens, the model has " + std::to_string(n_vocab));
  MetaArray tokens, scores, types;
  auto add = [&](std::string text, float score, int type) {
    tokens.push_back(typed(MetaValue{std::move(text)}, kGgufString));
    scores.push_back(typed(MetaValue{static_cast<double>(score)}, kGgufFloat32));
    types.push_back(typed(MetaValue{static_cast<int64_t>(type)}, kGgufInt32));
  };
  add("<unk>", 0, 2);
  add("<s>", 0, 3);
  add("</s>", 0, 3);
  for (int b = 0; b < 256; ++b) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "<0x%02X>", b);
    add(buf, 0, 6);
  }
  // Printable ASCII (space as U+2581) so plain text gets real pieces.
  for (int c = 0x20; c < 0x7f && static_cast<int64_t>(tokens.size()) < n_vocab; ++c) {
    add(c == ' ' ? "\xe2\x96\x81" : std::string(1, static_cast<char>(c)), -1.0f - static_cast<float>(c), 1);
  }
  while (static_cast<int64_t>(tokens.size()) < n_vocab) {
    add("<unused" + std::to_string(tokens.size()) + ">", -1e9f, 5);
  }
  auto array_of = [](MetaArray a, int elem) {
    MetaValue v{std::move(a)};
    v.gguf_type = kGgufArray;
    v.gguf_elem_type = elem;
    return v;
  };
  writer.set_meta("tokenizer.ggml.model", typed(MetaValue{std::string("llama")}, kGgufString));
  writer.set_meta("tokenizer.ggml.tokens", array_of(std::move(tokens), kGgufString));
  writer.set_meta("tokenizer.ggml.scores", array_of(std::move(scores), kGgufFloat32));
  writer.set_meta("tokenizer.ggml.token_type", array_of(std::move(types), kGgufInt32));
  writer.set_meta("tokenizer.ggml.bos_token_id", typed(MetaValue{uint64_t{1}}, kGgufUint32));
  writer.set_meta("tokenizer.ggml.eos_token_id", typed(MetaValue{uint64_t{2}}, kGgufUint32));
  writer.set_meta("tokenizer.ggml.unknown_token_id", typed(MetaValue{uint64_t{0}}, kGgufUint32));
}

}  // namespace tessera::cli
