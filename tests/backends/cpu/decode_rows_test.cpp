// Decode's row order for the 32-element block formats and its read-ahead distance
// (decode_rows.h): what TESSERA_CPU_DECODE_ROWS and TESSERA_CPU_DECODE_READ_AHEAD ask for,
// else far and 3072 bytes on Intel processors, near and 1024 bytes on AMD Zen 3, near and
// none on the others, here told from /proc/cpuinfo rather than cpuid.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "backends/cpu/decode_rows.h"
#include "backends/cpu/device.h"

namespace tessera::cpu::test {
namespace {

// The value of the first line of /proc/cpuinfo that starts with `key` followed by blanks
// and a colon ("vendor_id": "GenuineIntel", "AuthenticAMD"; "cpu family": "25"), or "".
std::string cpuinfo_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (line.rfind(key, 0) != 0 || colon == std::string::npos) continue;
    if (line.find_first_not_of(" \t", key.size()) != colon) continue;
    return colon + 2 <= line.size() ? line.substr(colon + 2) : "";
  }
  return "";
}

std::string cpuinfo_vendor() { return cpuinfo_field("vendor_id"); }

// Family 25 (19h), models 0-15 and 32-95, in /proc/cpuinfo's decimal.
bool cpuinfo_amd_zen3() {
  if (cpuinfo_vendor() != "AuthenticAMD") return false;
  const int family = std::atoi(cpuinfo_field("cpu family").c_str());
  const int model = std::atoi(cpuinfo_field("model").c_str());
  return family == 25 && (model <= 15 || (model >= 32 && model <= 95));
}

int64_t default_read_ahead() {
  if (cpuinfo_vendor() == "GenuineIntel") return 3072;
  return cpuinfo_amd_zen3() ? 1024 : 0;
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

// What TESSERA_CPU_DECODE_READ_AHEAD asks for: bytes, 0 for "off", -1 where it is unset or
// not a count in 0 .. 65536 (then the processor's default holds).
int64_t read_ahead_request() {
  const char* env = std::getenv("TESSERA_CPU_DECODE_READ_AHEAD");
  const std::string request = env == nullptr ? "" : env;
  if (request == "off") return 0;
  if (request.empty() || request.find_first_not_of("0123456789") != std::string::npos || request.size() > 6) return -1;
  const int64_t bytes = std::stoll(request);
  return bytes <= 65536 ? bytes : -1;
}

TEST(DecodeReadAhead, FollowsTheRequestElseTheProcessor) {
  const int64_t request = read_ahead_request();
  const int64_t want = request >= 0 ? request : default_read_ahead();
  const char* env = std::getenv("TESSERA_CPU_DECODE_READ_AHEAD");
  EXPECT_EQ(decode_read_ahead(), want) << "request '" << (env == nullptr ? "" : env) << "', vendor '"
                                       << cpuinfo_vendor() << "', family " << cpuinfo_field("cpu family")
                                       << ", model " << cpuinfo_field("model");
}

TEST(DecodeReadAhead, DeviceDescriptionNamesTheDistance) {
  tsr_device_info info;
  describe_cpu_device(&info);
  const std::string description = info.description;
  const std::string named = "read ahead " + std::to_string(decode_read_ahead()) + " bytes";
  if (decode_read_ahead() > 0) {
    EXPECT_NE(description.find(named), std::string::npos) << description;
  } else {
    EXPECT_EQ(description.find("read ahead"), std::string::npos) << description;
  }
}

}  // namespace
}  // namespace tessera::cpu::test
