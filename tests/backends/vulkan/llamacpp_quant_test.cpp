// Quantised GGUFs written by llama.cpp's own quantizer (Q4_K_M: q4_K, q6_K; Q4_0: q4_0,
// q6_K) on the Vulkan backend, against llama.cpp's greedy continuation: along it, the
// argmax is llama.cpp's id at every step but near-ties (tests/models/llamacpp_greedy.h).
// The shaders dequantise the weights and keep the activations in f32, the CPU backend
// quantises them to int8: both must meet the same bar.
#include <gtest/gtest.h>

#include "core/engine/model.h"
#include "dsl/model_loader.h"
#include "core/plugin/plugin_host.h"
#include "models/llamacpp_greedy.h"
#include "support/testdata.h"
#include "vulkan_session.h"

namespace tessera::vulkan::test {
namespace {

class VulkanLlamaCppGreedy : public VulkanTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(VulkanLlamaCppGreedy, AgreesWithLlamaCppAtEveryStepButNearTies) {
  const std::string base = std::string("tests/fixtures/llamacpp/tiny-llama.") + GetParam();
  dsl::ModelSpec spec;
  spec.weights_path = tessera::test::source_path(base + ".gguf");
  spec.model_dirs = {tessera::test::source_path("models")};
  spec.kv_dtype = DType::F16;
  const auto model = dsl::load_model(spec);
  const PluginHost host(std::vector<std::string>{tessera::test::plugin_dir()});
  EXPECT_EQ(tessera::test::teacher_forced(host, "vulkan", *model,
                                          tessera::test::read_cases(tessera::test::source_path(base + ".greedy.json")),
                                          GetParam()),
            "");
}

INSTANTIATE_TEST_SUITE_P(LlamaCppFiles, VulkanLlamaCppGreedy, ::testing::Values("f16", "q4_k_m", "q4_0"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace tessera::vulkan::test
