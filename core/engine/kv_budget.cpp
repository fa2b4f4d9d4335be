#include "core/engine/kv_budget.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/kv/kv_cache.h"
#include "core/util/error.h"

namespace tessera {
namespace {

[[noreturn]] void bad_budget(std::string_view text, const std::string& why) {
  throw Error("KV memory '" + std::string(text) + "': " + why +
              "; give bytes (512M, 2G, 1.5GiB, 1048576) or a fraction of the device memory (0.5, 50%)");
}

// 1024^k for the unit letter, 0 for none, -1 for an unknown suffix.
double unit_multiplier(std::string_view suffix) {
  if (suffix.empty()) return 0;
  const char letter = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0])));
  std::string_view rest = suffix.substr(1);
  if (letter == 'B' && rest.empty()) return 1;
  if (rest != "" && rest != "B" && rest != "iB" && rest != "ib" && rest != "b") return -1;
  switch (letter) {
    case 'K': return 1024.0;
    case 'M': return 1024.0 * 1024;
    case 'G': return 1024.0 * 1024 * 1024;
    case 'T': return 1024.0 * 1024 * 1024 * 1024;
    default: return -1;
  }
}

}  // namespace

KvBudget parse_kv_budget(std::string_view text) {
  const std::string s(text);
  if (s.empty()) bad_budget(text, "empty");
  char* end = nullptr;
  const double number = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !std::isfinite(number) || number <= 0) bad_budget(text, "not a positive number");
  const std::string_view suffix(end);
  if (suffix == "%") {
    if (number > 100) bad_budget(text, "a percentage above 100");
    return KvBudget::device_fraction(number / 100);
  }
  const double unit = unit_multiplier(suffix);
  if (unit < 0) bad_budget(text, "unknown unit '" + std::string(suffix) + "'");
  // A bare number below 1 is a fraction; 1 itself could mean all of the memory or one
  // byte, and neither is what anyone should get by accident.
  if (unit == 0 && number == 1) bad_budget(text, "ambiguous: write 100% for all of the device memory, or 1B for bytes");
  if (unit == 0 && number < 1) return KvBudget::device_fraction(number);
  const double bytes = number * (unit == 0 ? 1 : unit);
  if (bytes != std::floor(bytes)) bad_budget(text, "not a whole number of bytes");
  if (bytes >= 18446744073709551616.0) bad_budget(text, "too large");
  return KvBudget::bytes(static_cast<uint64_t>(bytes));
}

int64_t resolve_kv_blocks(const KvBudget& budget, const KvBudgetContext& c) {
  if (c.block_size <= 0) throw Error("KV block size must be positive, got " + std::to_string(c.block_size));
  const uint64_t block_bytes = c.bytes_per_token * static_cast<uint64_t>(c.block_size);
  auto from_bytes = [&](double bytes, const std::string& what) {
    if (c.bytes_per_token == 0) throw Error("the model has no KV cache to size");
    const int64_t blocks = kv_blocks_for_budget(static_cast<uint64_t>(bytes), c.block_size, c.bytes_per_token);
    if (blocks <= 0) {
      throw Error("KV memory of " + what + " holds no block: one block of " + std::to_string(c.block_size) +
                  " tokens takes " + format_bytes(static_cast<double>(block_bytes)) + " (raise --kv-mem)");
    }
    return blocks;
  };
  switch (budget.kind) {
    case KvBudget::Kind::Tokens: {
      const auto tokens = static_cast<int64_t>(budget.value > 0 ? budget.value : static_cast<double>(c.default_tokens));
      if (tokens <= 0) throw Error("KV cache budget of " + std::to_string(tokens) + " tokens holds no block");
      return (tokens + c.block_size - 1) / c.block_size;
    }
    case KvBudget::Kind::Bytes:
      return from_bytes(budget.value, format_bytes(budget.value));
    case KvBudget::Kind::DeviceFraction: {
      if (c.device_memory_bytes == 0) {
        throw Error("--kv-mem " + std::to_string(budget.value) +
                    " asks for a fraction of the device memory, which this device does not report; give bytes "
                    "(e.g. 512M)");
      }
      const double left = c.device_memory_bytes > c.weight_bytes
                              ? static_cast<double>(c.device_memory_bytes - c.weight_bytes)
                              : 0.0;
      return from_bytes(budget.value * left, std::to_string(budget.value) + " x " + format_bytes(left) +
                                                  " free after the weights");
    }
  }
  throw Error("unknown KV budget kind");
}

}  // namespace tessera
