// Stop texts for streamed generation: holds back text that may be the start of a stop
// text, so nothing streamed ever includes (part of) one, and reports when one appears.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tessera {

class StopTextFilter {
 public:
  // Empty stop texts are ignored.
  explicit StopTextFilter(std::vector<std::string> stops = {});

  // Adds generated text; returns the text that is safe to emit now. Once a stop text
  // appears, stopped() turns true, the result ends right before it and later pushes
  // return nothing.
  std::string push(std::string_view piece);
  // The text held back at the end of the generation (nothing once stopped).
  std::string finish();
  bool stopped() const { return stopped_; }

 private:
  // Bytes at the end of held_ that could begin a stop text.
  size_t partial_match_length() const;

  std::vector<std::string> stops_;
  std::string held_;
  bool stopped_ = false;
};

}  // namespace tessera
