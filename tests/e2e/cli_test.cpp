// End-to-end tests of the `tessera` executable: the golden continuation from both
// weight formats, diagnostics for broken inputs, and the other subcommands.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/golden.h"
#include "support/json_fields.h"
#include "support/run_command.h"
#include "support/temp_path.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

std::string tessera(const std::string& args) { return shell_quote(tessera_exe()) + " " + args; }

std::string gguf() { return shell_quote(testdata_path("stories260K/stories260K.gguf")); }

std::string temp_file(const std::string& name) { return temp_path(name); }

TEST(Generate, GreedyFromGgufStreamsTheGoldenText) {
  const Golden g = load_golden();
  const auto r = run_command(tessera("generate -m " + gguf() + " -p " + shell_quote(g.prompt) + " -n 64 --temp 0"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, g.text + "\n");
  EXPECT_NE(r.err.find("tok/s"), std::string::npos) << "timings go to stderr: " << r.err;
}

TEST(Generate, JsonReportsTheGoldenTokenIds) {
  const Golden g = load_golden();
  const auto r =
      run_command(tessera("generate -m " + gguf() + " -p " + shell_quote(g.prompt) + " -n 64 --temp 0 --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json_ids(r.out, "prompt_ids"), g.prompt_ids);
  EXPECT_EQ(json_ids(r.out, "generated_ids"), g.generated_ids);
  EXPECT_NE(r.out.find("\"decode_tokens_per_s\":"), std::string::npos) << r.out;
}

TEST(Generate, GreedyFromLlama2cCheckpointMatchesTheGolden) {
  const Golden g = load_golden();
  const auto r = run_command(tessera("generate -m " + shell_quote(testdata_path("stories260K/stories260K.bin")) +
                                     " --tokenizer " + shell_quote(testdata_path("stories260K/tok512.bin")) +
                                     " -p " + shell_quote(g.prompt) + " -n 64 --temp 0 --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json_ids(r.out, "prompt_ids"), g.prompt_ids);
  EXPECT_EQ(json_ids(r.out, "generated_ids"), g.generated_ids);
}

// On the CPU backend a small weights file is read into memory by default; --mmap maps
// it; both give the golden ids.
TEST(Generate, WeightsReadIntoMemoryOrMappedGiveTheGoldenIds) {
  const Golden g = load_golden();
  for (const std::string flag : {"", " --mmap", " --no-mmap"}) {
    const auto r = run_command(tessera("generate -m " + gguf() + flag + " -p " + shell_quote(g.prompt) +
                                       " -n 64 --temp 0 --json"));
    ASSERT_EQ(r.exit_code, 0) << flag << ": " << r.err;
    EXPECT_EQ(json_ids(r.out, "generated_ids"), g.generated_ids) << flag;
    const std::string held = flag == " --mmap" ? "(gguf, mapped)" : "(gguf, read into memory)";
    EXPECT_NE(r.err.find(held), std::string::npos) << flag << ": " << r.err;
  }
}

TEST(Generate, MmapAndNoMmapTogetherAreRefused) {
  const auto r = run_command(tessera("generate -m " + gguf() + " --mmap --no-mmap -p x -n 1"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--mmap and --no-mmap contradict each other: pass one"), std::string::npos) << r.err;
}

TEST(Generate, SameSeedGivesTheSameSample) {
  const std::string cmd = tessera("generate -m " + gguf() + " -p 'Once upon a time' -n 24 --temp 1 --seed 42 --json");
  const auto a = run_command(cmd);
  const auto b = run_command(cmd);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(json_ids(a.out, "generated_ids"), json_ids(b.out, "generated_ids"));
  EXPECT_EQ(json_ids(a.out, "generated_ids").size(), 24u);
}

TEST(Generate, TruncatedGgufIsRefusedNamingTheFile) {
  const std::string path = temp_file("truncated.gguf");
  {
    std::ifstream in(testdata_path("stories260K/stories260K.gguf"), std::ios::binary);
    std::vector<char> head(600000);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(path, std::ios::binary).write(head.data(), static_cast<std::streamsize>(head.size()));
  }
  const auto r = run_command(tessera("generate -m " + shell_quote(path) + " -p hi -n 4"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("truncated.gguf"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("past the end of the file"), std::string::npos) << r.err;
}

TEST(Generate, AbsurdFlagIsAUsageError) {
  const auto r = run_command(tessera("generate -m " + gguf() + " -p hi -n -5"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("option -n must be between 0 and"), std::string::npos) << r.err;
}

TEST(Generate, UnknownBackendListsWhatWasFound) {
  const auto r = run_command(tessera("generate -m " + gguf() + " -p hi -n 4 --backend nope"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no backend named 'nope'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("loaded backends: cpu"), std::string::npos) << r.err;
}

TEST(Backends, ListsTheCpuPluginWithItsKernels) {
  const auto r = run_command(tessera("backends"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("libtessera_cpu.so"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("matmul"), std::string::npos) << r.out;
}

TEST(Check, PrintsTheSummaryOfStories260K) {
  const auto r = run_command(tessera("check " + shell_quote(source_path("models/llama.tsr")) + " -m " + gguf()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("KV cache: 1,280 bytes per token (f32)"), std::string::npos) << "2 x 5 x 4 x 8 x 4:\n" << r.out;
}

TEST(Check, StatesTheKvCacheForAContextAndABatch) {
  const auto r = run_command(tessera("check " + shell_quote(source_path("models/llama.tsr")) + " -m " + gguf() +
                                     " --ctx 4096 --batch 8"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 1,280 bytes x 4,096 tokens = 5 MiB per sequence, x 8 sequences = 40 MiB.
  EXPECT_NE(r.out.find("KV cache: 1,280 bytes per token (f32), 5.00 MiB at context 4,096, 40.00 MiB for 8 sequences\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("= 5,761,536 at context 4,096"), std::string::npos) << "518,656 + 1,280 x 4,096:\n" << r.out;
}

TEST(Check, WritesTheGraphForGraphviz) {
  const std::string dot = temp_file("llama.dot");
  const auto r = run_command(tessera("check " + shell_quote(source_path("models/llama.tsr")) + " -m " + gguf() +
                                     " --dot " + shell_quote(dot)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(dot);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  EXPECT_EQ(text.rfind("digraph \"llama\" {\n", 0), 0u) << text.substr(0, 200);
  const auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("[shape=box"), 89u);                // one per node of stories260K's graph
  EXPECT_EQ(count("subgraph cluster_"), 5u);          // one per layer
  EXPECT_EQ(count("label=\"blk.4.wq\""), 1u);         // weights are drawn once
  EXPECT_EQ(count("[style=dashed]"), 10u);            // K and V writes of 5 layers
  EXPECT_NE(r.err.find("wrote the graph to " + dot + " (89 nodes)"), std::string::npos) << r.err;
}

TEST(Check, MisspelledOpGetsPositionCaretAndHint) {
  std::ifstream in(source_path("models/llama.tsr"));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const size_t at = text.find("rms_norm(");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 8, "rms_nrom");
  const std::string path = temp_file("broken.tsr");
  std::ofstream(path) << text;
  // Expected position: 1-based line and column of the misspelled name.
  const size_t line_start = text.rfind('\n', at) + 1;
  const auto line = std::count(text.begin(), text.begin() + static_cast<long>(at), '\n') + 1;
  const auto col = at - line_start + 1;
  const std::string source_line = text.substr(line_start, text.find('\n', at) - line_start);

  const auto r = run_command(tessera("check " + shell_quote(path) + " -m " + gguf()));
  EXPECT_EQ(r.exit_code, 1);
  const std::string head = path + ":" + std::to_string(line) + ":" + std::to_string(col) +
                           ": error: unknown op 'rms_nrom'; did you mean 'rms_norm'?";
  EXPECT_EQ(r.err.rfind(head, 0), 0u) << "the diagnostic starts the message, unprefixed:\n" << r.err;
  EXPECT_NE(r.err.find(source_line), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("^"), std::string::npos) << r.err;
}

TEST(Init, RandomModelReadsBackAndGenerates) {
  const std::string out = temp_file("random_q8.gguf");
  const auto init = run_command(tessera(
      "init --arch " + shell_quote(source_path("models/llama.tsr")) +
      " --set d_model=64 --set n_layers=2 --set n_heads=4 --set n_kv_heads=2 --set d_ff=96 --set n_vocab=300"
      " --dtype q8_0 -o " + shell_quote(out)));
  ASSERT_EQ(init.exit_code, 0) << init.err;
  const auto gen = run_command(tessera("generate -m " + shell_quote(out) + " -p 'hello world' -n 8 --temp 0 --ignore-eos --json"));
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  EXPECT_EQ(json_ids(gen.out, "generated_ids").size(), 8u) << gen.out;
  const auto check = run_command(tessera("check " + shell_quote(source_path("models/llama.tsr")) + " -m " + shell_quote(out)));
  EXPECT_EQ(check.exit_code, 0) << check.err;
}


TEST(Generate, ModelFileMistakeIsReportedAsADiagnostic) {
  const std::string path = temp_file("not_a_model.tsr");
  std::ofstream(path) << "# comment\nmodle llama\n";
  const auto r = run_command(tessera("generate -m " + gguf() + " -p hi --arch " + shell_quote(path)));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind(path + ":2:1: error: expected 'model NAME' at the start of the file, found 'modle'\n", 0),
            0u)
      << r.err;
}

TEST(Executable, LinksNoBackend) {
  const auto r = run_command("readelf -d " + shell_quote(tessera_exe()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(NEEDED)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("tessera_cpu"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("vulkan"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("cuda"), std::string::npos) << r.out;
}

TEST(Executable, EveryCommandHasHelp) {
  for (const std::string cmd : {"generate", "check", "backends", "bench", "init"}) {
    const auto r = run_command(tessera(cmd + " --help"));
    EXPECT_EQ(r.exit_code, 0) << cmd << ": " << r.err;
    EXPECT_EQ(r.out.rfind("usage: tessera " + cmd, 0), 0u) << r.out;
  }
}

TEST(Executable, UnknownCommandIsAUsageError) {
  const auto r = run_command(tessera("genrate"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command 'genrate'"), std::string::npos) << r.err;
}

TEST(Bench, JsonReportsPrefillAndDecodeSpeed) {
  const auto r = run_command(tessera("bench -m " + gguf() + " -p 16 -n 4 -r 1 --no-bandwidth --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"prompt_tokens\":16"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"decode_tokens\":4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"decode_tokens_per_s\":"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"weight_bytes_per_token\":"), std::string::npos) << r.out;
}

// The read bandwidth (a streaming read of 1 GiB) and the decode bound it implies are
// reported: more than 100 MB/s on any machine CI runs on, and bound = bandwidth / bytes.
TEST(Bench, JsonReportsTheMeasuredReadBandwidthAndDecodeBound) {
  const auto r = run_command(tessera("bench -m " + gguf() + " -p 8 -n 2 -r 1 --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double bandwidth = json_number(r.out, "read_bandwidth_bytes_per_s");
  const double bytes = json_number(r.out, "weight_bytes_per_token");
  EXPECT_GT(bandwidth, 1e8) << r.out;
  EXPECT_NEAR(json_number(r.out, "decode_bound_tokens_per_s"), bandwidth / bytes, 1e-3 * bandwidth / bytes) << r.out;
}

// A decode step reads k of E experts: the Mixtral-layout fixture (f32; d 32, 2 layers,
// 4 experts of width 32, 2 per token, vocabulary 96) reads per layer its norms (2 x 128
// bytes), q/k/v/o (4096 + 2048 + 2048 + 4096), the router (512) and half of its three
// experts' 3 x 16384 bytes; then the output norm (128) and matrix (12288) and one
// embedding row (128).
TEST(Bench, CountsTheChosenExpertsInTheWeightBytesPerToken) {
  const std::string model = shell_quote(source_path("tests/fixtures/llamacpp-layout/mixtral.gguf"));
  const auto r = run_command(tessera("bench -m " + model + " -p 8 -n 2 -r 1 --no-bandwidth --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const int64_t per_layer = 2 * 128 + 4096 + 2048 + 2048 + 4096 + 512 + 3 * 16384 / 2;
  EXPECT_NE(r.out.find("\"weight_bytes_per_token\":" + std::to_string(2 * per_layer + 128 + 12288 + 128)),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace tessera::test
