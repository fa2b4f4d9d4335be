#include "core/engine/request.h"

namespace tessera {

std::string_view finish_reason_name(FinishReason reason) {
  switch (reason) {
    case FinishReason::Length: return "length";
    case FinishReason::Eos: return "eos";
    case FinishReason::StopToken: return "stop_token";
    case FinishReason::StopText: return "stop";
    case FinishReason::Context: return "context";
    case FinishReason::Cancelled: return "cancelled";
    case FinishReason::Error: return "error";
  }
  return "unknown";
}

double RequestResult::tpot_ms() const {
  if (generated_ids.size() < 2) return 0;
  return (total_ms - ttft_ms) / static_cast<double>(generated_ids.size() - 1);
}

}  // namespace tessera
