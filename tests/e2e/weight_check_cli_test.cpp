// NaN in the weights, as the CLI reports it: `tessera check -m` reads every weight and
// names the tensor and element, generate --check-weights refuses before running,
// generate without it fails the prompt at the sampler with a pointer to both, and
// verify mode names the op (and layer) where the NaN first appears. The file is
// stories260K.bin with element 0 of layer 2's attention norm made NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "support/run_command.h"
#include "support/temp_path.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

std::string tessera(const std::string& args) { return shell_quote(tessera_exe()) + " " + args; }

std::string tok512() { return shell_quote(testdata_path("stories260K/tok512.bin")); }

// llama2.c layout: a 7-int header, then token_embedding [512, 64], then rms_att [5, 64].
std::string stories_with_nan() {
  std::ifstream in(testdata_path("stories260K/stories260K.bin"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t offset = 28 + 4 * (512 * 64 + 2 * 64);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(bytes.data() + offset, &nan, sizeof nan);
  const std::string path = temp_path("stories_nan.bin");
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string model_flags(const std::string& path) { return "-m " + shell_quote(path) + " --tokenizer " + tok512(); }

TEST(WeightCheckCli, CheckNamesTheTensorAndElement) {
  const std::string path = stories_with_nan();
  const auto r = run_command(tessera("check " + model_flags(path)));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("tessera check: error: " + path + ": tensor 'blk.2.attn_norm.weight' element 0 is NaN: "
                       "the weights are damaged"),
            std::string::npos)
      << r.err;
}

TEST(WeightCheckCli, CheckWithoutTheWeightsCheckPrintsTheSummary) {
  const auto r = run_command(tessera("check --no-check-weights " + model_flags(stories_with_nan())));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("parameters"), std::string::npos) << r.out;
}

TEST(WeightCheckCli, CheckOfACleanFilePasses) {
  const auto r = run_command(tessera("check -m " + shell_quote(testdata_path("stories260K/stories260K.gguf"))));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("parameters"), std::string::npos) << r.out;
}

TEST(WeightCheckCli, GenerateWithCheckWeightsRefusesBeforeRunning) {
  const std::string path = stories_with_nan();
  const auto r = run_command(tessera("generate --check-weights -p hi -n 3 " + model_flags(path)));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("tensor 'blk.2.attn_norm.weight' element 0 is NaN"), std::string::npos) << r.err;
}

TEST(WeightCheckCli, GenerateFailsThePromptAtTheSampler) {
  const auto r = run_command(tessera("generate -p hi -n 3 --temp 0 " + model_flags(stories_with_nan())));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("sampler: logit of token 0 is NaN (verify mode names the op"), std::string::npos) << r.err;
}

TEST(WeightCheckCli, VerifyModeNamesTheLayerWhereNanFirstAppears) {
  const auto r = run_command(tessera("generate -p hi -n 3 --temp 0 --verify cpu " + model_flags(stories_with_nan())));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("tessera: verify: first non-finite value: step 0, node "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(rms_norm, layer 2: decoder_layer: h = rms_norm(x, attn_norm[i], eps: norm_eps))"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("element 0 is NaN (the reference's too)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tessera::test
