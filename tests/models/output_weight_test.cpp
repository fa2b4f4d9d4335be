// The output projection of the library's definitions: each reads a file's own
// `output.weight` (llama.cpp reads one whenever a file has it, so a definition that
// always multiplied by the embedding would run such a file with wrong tokens), and
// the tied ones fall back to the embedding when the file has none.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "dsl/fake_weight_file.h"
#include "dsl/model_definition.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

struct Definition {
  const char* name;  // models/<name>.tsr
  std::map<std::string, std::string> sizes;  // --set values for a small model
  bool tied;         // falls back to token_embd.weight without output.weight
};

std::ostream& operator<<(std::ostream& os, const Definition& d) { return os << d.name; }

CompiledModel compile(const Definition& d, const WeightFile* file) {
  dsl::CompileOptions options;
  options.weights = file;
  if (!file) options.overrides = d.sizes;
  return dsl::compile_model(*dsl::parse_model_file(source_path(std::string("models/") + d.name + ".tsr")), options);
}

// A GGUF-like file with the metadata and tensor shapes the definition reads, made from
// its compilation without a file (which gives every declared weight its own tensor).
FakeWeightFile file_of(const Definition& d) {
  const CompiledModel m = compile(d, nullptr);
  FakeWeightFile f(std::string(d.name) + ".gguf");
  f.set_string("general.architecture", m.arch);
  for (const HParam& h : m.hparams) {
    if (h.meta_key.empty()) continue;
    if (h.is_integer) f.set_uint(h.meta_key, static_cast<uint64_t>(h.value));
    else f.set_float(h.meta_key, h.value);
  }
  for (const GraphTensor& t : m.graph.tensors()) {
    if (t.role == TensorRole::Weight) f.add_tensor(t.file_name, t.shape);
  }
  return f;
}

// The file tensor the last matmul (the output projection) multiplies by.
std::string output_projection(const CompiledModel& m) {
  std::string name;
  for (const GraphNode& n : m.graph.nodes()) {
    if (n.op == OpKind::MatMul) name = m.graph.tensor(n.inputs[1]).file_name;
  }
  return name;
}

class OutputWeight : public ::testing::TestWithParam<Definition> {};
class TiedOutputWeight : public ::testing::TestWithParam<Definition> {};

TEST_P(OutputWeight, ReadsTheFilesOwnOutputWeight) {
  const FakeWeightFile f = file_of(GetParam());
  ASSERT_NE(f.find_tensor("output.weight"), nullptr) << GetParam().name << " declares no output.weight";
  EXPECT_EQ(output_projection(compile(GetParam(), &f)), "output.weight");
}

TEST_P(TiedOutputWeight, FallsBackToTheEmbedding) {
  ASSERT_TRUE(GetParam().tied);
  FakeWeightFile f = file_of(GetParam());
  f.remove_tensor("output.weight");
  const CompiledModel m = compile(GetParam(), &f);
  EXPECT_EQ(output_projection(m), "token_embd.weight");
  EXPECT_EQ(m.coverage.unused_tensors, std::vector<std::string>{});
}

const std::map<std::string, std::string> kLlamaSizes = {{"d_model", "32"}, {"n_layers", "2"},  {"n_heads", "4"},
                                                        {"n_kv_heads", "2"}, {"d_ff", "64"}, {"n_vocab", "260"}};

std::map<std::string, std::string> with(std::map<std::string, std::string> sizes,
                                        const std::map<std::string, std::string>& more) {
  for (const auto& [k, v] : more) sizes[k] = v;
  return sizes;
}

const std::vector<Definition> kTied = {
    Definition{"llama", kLlamaSizes, true}, Definition{"qwen2", kLlamaSizes, true},
    Definition{"qwen3", with(kLlamaSizes, {{"head_dim", "16"}}), true},
    Definition{"gemma3", with(kLlamaSizes, {{"head_dim", "16"}}), true},
    Definition{"stablelm", with(kLlamaSizes, {{"n_heads", "2"}, {"n_kv_heads", "2"}}), true},
    Definition{"gpt2", {{"d_model", "32"}, {"n_layers", "2"}, {"n_heads", "4"}, {"n_vocab", "260"}, {"n_pos", "32"}}, true},
    Definition{"bloom", {{"d_model", "36"}, {"n_layers", "2"}, {"n_heads", "6"}, {"n_vocab", "260"}}, true},
    Definition{"mpt", {{"d_model", "36"}, {"n_layers", "2"}, {"n_heads", "6"}, {"n_vocab", "260"}}, true}};
const std::vector<Definition> kUntied = {
    Definition{"phi2", {{"d_model", "32"}, {"n_layers", "2"}, {"n_heads", "2"}, {"d_ff", "64"}, {"n_vocab", "260"}}, false},
    Definition{"gptneox", {{"d_model", "32"}, {"n_layers", "2"}, {"n_heads", "2"}, {"d_ff", "64"}, {"n_vocab", "260"}}, false}};

std::vector<Definition> all_definitions() {
  std::vector<Definition> all = kTied;
  all.insert(all.end(), kUntied.begin(), kUntied.end());
  return all;
}

const auto kName = [](const ::testing::TestParamInfo<Definition>& info) { return std::string(info.param.name); };
INSTANTIATE_TEST_SUITE_P(Library, OutputWeight, ::testing::ValuesIn(all_definitions()), kName);
INSTANTIATE_TEST_SUITE_P(Library, TiedOutputWeight, ::testing::ValuesIn(kTied), kName);

}  // namespace
}  // namespace tessera::test
