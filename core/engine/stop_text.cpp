#include "core/engine/stop_text.h"

#include <algorithm>

namespace tessera {

StopTextFilter::StopTextFilter(std::vector<std::string> stops) {
  for (std::string& s : stops) {
    if (!s.empty()) stops_.push_back(std::move(s));
  }
}

std::string StopTextFilter::push(std::string_view piece) {
  if (stopped_) return {};
  held_ += piece;
  size_t first_stop = std::string::npos;
  for (const std::string& stop : stops_) first_stop = std::min(first_stop, held_.find(stop));
  if (first_stop != std::string::npos) {
    stopped_ = true;
    std::string out = held_.substr(0, first_stop);
    held_.clear();
    return out;
  }
  // held_ never holds a whole stop text, so only its end can start one.
  const size_t keep = partial_match_length();
  std::string out = held_.substr(0, held_.size() - keep);
  held_.erase(0, held_.size() - keep);
  return out;
}

std::string StopTextFilter::finish() {
  std::string out = std::move(held_);
  held_.clear();
  return out;
}

size_t StopTextFilter::partial_match_length() const {
  size_t best = 0;
  for (const std::string& stop : stops_) {
    for (size_t k = std::min(stop.size() - 1, held_.size()); k > best; --k) {
      if (std::string_view(held_).substr(held_.size() - k) == std::string_view(stop).substr(0, k)) {
        best = k;
        break;
      }
    }
  }
  return best;
}

}  // namespace tessera
