// The in-tree build of the example kernel plugin fast_silu: it outranks the CPU
// backend's SILU and SWIGLU f32 kernels in the registry open_backend builds, computes
// what the CPU reference kernels compute, and checks its arguments like them.
#include <gtest/gtest.h>

#include "core/util/error.h"
#include "examples/cpu_with_plugin.h"

namespace tessera::test {
namespace {

std::string fast_silu_file() { return std::string(TESSERA_EXAMPLE_PLUGIN_DIR) + "/libfast_silu.so"; }

const CpuWithPlugin& cpu_with_fast_silu() {
  static const CpuWithPlugin cpu(fast_silu_file());
  return cpu;
}

TEST(FastSilu, IsAKernelPluginOfTheCpuBackend) {
  const auto plugin = cpu_with_fast_silu().host().find("fast_silu");
  ASSERT_NE(plugin, nullptr);
  EXPECT_EQ(plugin->extends(), "cpu");
  EXPECT_EQ(plugin->version(), "0.1.0");
  EXPECT_EQ(plugin->kernels().size(), 2u);
}

TEST(FastSilu, SwigluKernelOutranksTheBuiltInOne) {
  const RegisteredKernel& k = cpu_with_fast_silu().chosen(OpKind::SwiGlu);
  EXPECT_EQ(k.name, "fast_silu.swiglu.f32");
  EXPECT_EQ(k.priority, 10);
  EXPECT_EQ(k.plugin->name(), "fast_silu");
}

TEST(FastSilu, SiluKernelOutranksTheBuiltInOne) {
  EXPECT_EQ(cpu_with_fast_silu().chosen(OpKind::Silu).name, "fast_silu.silu.f32");
}

TEST(FastSilu, LeavesTheOtherCpuKernelsInPlace) {
  EXPECT_EQ(cpu_with_fast_silu().chosen(OpKind::MatMul).name, "cpu.matmul.f32");
  EXPECT_EQ(cpu_with_fast_silu().chosen(OpKind::Gelu).name, "cpu.gelu.f32");
}

TEST(FastSilu, SiluMatchesTheCpuReference) {
  const std::vector<float> x = silu_test_values(3 * 37, 1);  // 37: a partial last vector
  const auto got = cpu_with_fast_silu().run(OpKind::Silu, 3, 37, {x});
  EXPECT_LE(max_relative_error(got, cpu_reference(OpKind::Silu, 3, 37, {x})), 1e-6);
}

TEST(FastSilu, SwigluMatchesTheCpuReference) {
  const std::vector<float> gate = silu_test_values(5 * 43, 2);
  const std::vector<float> up = silu_test_values(5 * 43, 3);
  const auto got = cpu_with_fast_silu().run(OpKind::SwiGlu, 5, 43, {gate, up});
  EXPECT_LE(max_relative_error(got, cpu_reference(OpKind::SwiGlu, 5, 43, {gate, up})), 1e-6);
}

TEST(FastSilu, SwigluMayWriteOverItsGate) {
  const std::vector<float> gate = silu_test_values(2 * 16, 4);
  const std::vector<float> up = silu_test_values(2 * 16, 5);
  const auto got = cpu_with_fast_silu().run(OpKind::SwiGlu, 2, 16, {gate, up}, /*in_place=*/true);
  EXPECT_LE(max_relative_error(got, cpu_reference(OpKind::SwiGlu, 2, 16, {gate, up})), 1e-6);
}

TEST(FastSilu, RejectsAnF16InputWithTheCpuKernelsMessage) {
  EXPECT_EQ(cpu_with_fast_silu().run_with_dtype(OpKind::SwiGlu, 1, TSR_DTYPE_F16),
            "cpu:0: kernel 'fast_silu.swiglu.f32' (swiglu f32) of plugin 'fast_silu': "
            "swiglu: up is f16, expected f32");
}

TEST(FastSilu, CannotBeOpenedAsABackend) {
  try {
    open_backend(cpu_with_fast_silu().host(), "fast_silu", 1);
    FAIL() << "open_backend accepted a kernel plugin";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "'fast_silu' (" + fast_silu_file() +
                                         ") is a kernel plugin extending 'cpu', not a backend: use -b cpu");
  }
}

}  // namespace
}  // namespace tessera::test
