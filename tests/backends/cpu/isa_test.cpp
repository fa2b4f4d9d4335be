// The choice of the optimised kernels' instruction set (isa.h): what the processor has,
// capped by TESSERA_CPU_ISA, and what the device description says about it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "backends/cpu/device.h"
#include "backends/cpu/isa.h"
#include "backends/cpu/ops/matmul_bf16.h"
#include "backends/cpu/ops/matmul_quant.h"

namespace tessera::cpu::test {
namespace {

TEST(CpuIsa, AnX86BuildHasEveryLevel) {
#if defined(__x86_64__)
  EXPECT_EQ(isa_built(), CpuIsa::kAvx512);
#else
  EXPECT_EQ(isa_built(), CpuIsa::kPortable);
#endif
}

TEST(CpuIsa, InUseIsTheRequestedLevelOrTheBestPresent) {
  const CpuIsa top = std::min(isa_built(), isa_supported());
  const char* env = std::getenv("TESSERA_CPU_ISA");
  CpuIsa want = top;
  for (CpuIsa level : {CpuIsa::kPortable, CpuIsa::kAvx2, CpuIsa::kAvx512}) {
    if (env != nullptr && std::string(env) == isa_name(level) && level <= top) want = level;
  }
  EXPECT_EQ(isa_in_use(), want) << isa_choice();
  EXPECT_EQ(isa_choice().rfind(isa_name(want), 0), 0u) << isa_choice();
  if (env != nullptr && *env != '\0') {
    EXPECT_NE(isa_choice().find(std::string("TESSERA_CPU_ISA=") + env), std::string::npos);
  }
}

TEST(CpuIsa, LevelsAreNamedAsTheSwitchSpellsThem) {
  EXPECT_STREQ(isa_name(CpuIsa::kPortable), "portable");
  EXPECT_STREQ(isa_name(CpuIsa::kAvx2), "avx2");
  EXPECT_STREQ(isa_name(CpuIsa::kAvx512), "avx512");
}

TEST(CpuIsa, DeviceDescriptionNamesTheKernelsInUse) {
  tsr_device_info info;
  describe_cpu_device(&info);
  const std::string description = info.description;
  EXPECT_NE(description.find(std::string("kernels ") + isa_name(isa_in_use())), std::string::npos) << description;
  EXPECT_NE(description.find(std::string("block-format prefill on ") + quant_prefill_path()), std::string::npos)
      << description;
  EXPECT_NE(description.find(std::string("bf16 prefill on ") + bf16_prefill_path()), std::string::npos) << description;
}

}  // namespace
}  // namespace tessera::cpu::test
