// Decode's row order for the 32-element block formats (decode_rows.h): what
// TESSERA_CPU_DECODE_ROWS asks for, else far on Intel processors and near on the others,
// here told from /proc/cpuinfo rather than cpuid.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "backends/cpu/decode_rows.h"
#include "backends/cpu/device.h"

namespace tessera::cpu::test {
namespace {

// The first vendor_id line of /proc/cpuinfo ("GenuineIntel", "AuthenticAMD"), or "".
std::string cpuinfo_vendor() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("vendor_id", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "";
}

TEST(DecodeRows, FollowsTheRequestElseTheProcessor) {
  const char* env = std::getenv("TESSERA_CPU_DECODE_ROWS");
  const std::string request = env == nullptr ? "" : env;
  DecodeRows want;
  if (request == "near" || request == "far") {
    want = request == "far" ? DecodeRows::kFar : DecodeRows::kNear;
  } else {
    want = cpuinfo_vendor() == "GenuineIntel" ? DecodeRows::kFar : DecodeRows::kNear;
  }
  EXPECT_EQ(decode_rows_name(decode_rows()), std::string(decode_rows_name(want)))
      << "request '" << request << "', vendor '" << cpuinfo_vendor() << "'";
}

TEST(DecodeRows, DeviceDescriptionNamesTheOrder) {
  tsr_device_info info;
  describe_cpu_device(&info);
  EXPECT_NE(std::string(info.description).find(std::string("decode rows ") + decode_rows_name(decode_rows())),
            std::string::npos)
      << info.description;
}

}  // namespace
}  // namespace tessera::cpu::test
