// models/phi2.tsr serves both layouts of Phi-2's attention projections: separate q/k/v
// (transformers' PhiForCausalLM and llama.cpp's conversion of it) and one fused
// attn_qkv with its bias (the GGUFs of the original checkpoints, as llama.cpp reads
// them). The fused file here is the phi2 fixture converted to GGUF with each layer's
// q, k and v stacked as [q; k; v] rows; it must compute what the separate one and
// transformers compute, and read every tensor.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <regex>

#include "core/engine/backend.h"
#include "core/engine/model.h"
#include "core/engine/session.h"
#include "core/plugin/plugin_host.h"
#include "core/util/error.h"
#include "core/weights/gguf_writer.h"
#include "core/weights/weight_file.h"
#include "dsl/model_loader.h"
#include "models/hf_fixture.h"
#include "support/run_command.h"
#include "support/temp_path.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

constexpr float kTransformersTolerance = 2e-3f;  // as hf_fixtures_test.cpp
constexpr float kSameModelTolerance = 1e-5f;     // the same f32 numbers, other matmul shapes

std::unique_ptr<Model> load(const std::string& weights) {
  dsl::ModelSpec spec;
  spec.weights_path = weights;
  spec.model_dirs = {source_path("models")};
  return dsl::load_model(spec);
}

std::vector<float> prefill_logits(const Model& model, const std::vector<int32_t>& tokens) {
  static PluginHost host(std::vector<std::string>{plugin_dir()});
  const Backend backend = open_backend(host, "cpu", 2);
  Session session(model, backend, SessionOptions{.kv_block = 4, .n_ctx = 64, .max_step_tokens = 512});
  return session.feed(tokens, static_cast<int32_t>(tokens.size()));
}

float max_abs_error(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  float worst = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
  return worst;
}

// The phi2 fixture as an f32 GGUF with separate q/k/v.
std::string separate_gguf() {
  const std::string path = temp_path("phi2-separate.gguf");
  const CommandResult r = run_command(shell_quote(tessera_exe()) + " convert " +
                                      shell_quote(hf_fixture_folder("phi2")) + " --dtype f32 -o " + shell_quote(path));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return path;
}

// `separate` rewritten with blk.N.attn_qkv.{weight,bias} = [q; k; v] in place of
// attn_q/k/v; with `drop_k`, the q/k/v stay separate but layer 0's k is left out (neither layout whole).
std::string fused_gguf(const std::string& separate, const std::string& name, bool drop_k = false) {
  const auto source = open_weight_file(separate);
  GgufWriter writer;
  writer.copy_meta(*source);
  const std::regex part(R"(blk\.(\d+)\.attn_([qkv])\.(weight|bias))");
  std::map<std::string, std::vector<uint8_t>> fused;  // "blk.N.attn_qkv.weight" -> bytes, q then k then v
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const char which : {'q', 'k', 'v'}) {
    for (const TensorView& t : source->tensors()) {
      std::smatch m;
      if (!std::regex_match(t.name, m, part) || m[2].str()[0] != which) continue;
      const std::string to = "blk." + m[1].str() + ".attn_qkv." + m[3].str();
      const auto* bytes = static_cast<const uint8_t*>(t.data);
      fused[to].insert(fused[to].end(), bytes, bytes + t.n_bytes);
      std::vector<int64_t> shape = t.shape;
      shape[0] *= 3;
      shapes[to] = shape;
    }
  }
  for (const TensorView& t : source->tensors()) {
    if (std::regex_match(t.name, part)) {
      if (drop_k && t.name.starts_with("blk.0.attn_k")) continue;
      if (drop_k) writer.add_tensor(t.name, t.dtype, t.shape, t.data, t.n_bytes);
      continue;
    }
    writer.add_tensor(t.name, t.dtype, t.shape, t.data, t.n_bytes);
  }
  if (!drop_k) {
    for (const auto& [to, bytes] : fused) writer.add_tensor(to, DType::F32, shapes[to], bytes.data(), bytes.size());
  }
  const std::string path = temp_path(name);
  writer.write(path);
  return path;
}

TEST(Phi2Layouts, FusedQkvComputesWhatSeparateProjectionsDo) {
  const HfFixture f = load_hf_fixture("phi2");
  const std::string separate = separate_gguf();
  const auto a = load(separate);
  const auto b = load(fused_gguf(separate, "phi2-fused.gguf"));
  for (const HfSequence& s : f.sequences) {
    const std::vector<float> fused_logits = prefill_logits(*b, s.tokens);
    EXPECT_LT(max_abs_error(fused_logits, prefill_logits(*a, s.tokens)), kSameModelTolerance);
    const size_t n_vocab = s.logits.front().size();
    ASSERT_EQ(fused_logits.size(), s.tokens.size() * n_vocab);
    for (size_t t = 0; t < s.tokens.size(); ++t) {
      const std::vector<float> row(fused_logits.begin() + t * n_vocab, fused_logits.begin() + (t + 1) * n_vocab);
      EXPECT_LT(max_abs_error(row, s.logits[t]), kTransformersTolerance) << "position " << t;
    }
  }
}

TEST(Phi2Layouts, FusedFileIsReadWhole) {
  const auto m = load(fused_gguf(separate_gguf(), "phi2-fused-coverage.gguf"));
  const FileCoverage& c = m->compiled().coverage;
  EXPECT_EQ(c.used_tensors, c.file_tensors);
  EXPECT_EQ(c.unused_tensors, std::vector<std::string>{});
  int fused_matmuls = 0;
  for (const GraphTensor& t : m->compiled().graph.tensors()) fused_matmuls += t.file_name.ends_with("attn_qkv.weight");
  EXPECT_EQ(fused_matmuls, 2);  // one per layer, no separate q/k/v
}

TEST(Phi2Layouts, AFileWithNeitherLayoutWholeIsRefusedNamingTheTensor) {
  const std::string path = fused_gguf(separate_gguf(), "phi2-broken.gguf", /*drop_k=*/true);
  try {
    load(path);
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("blk.0.attn_k.weight"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tessera::test
