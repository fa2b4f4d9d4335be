// The golden stories260K continuation, read from testdata's golden.md (not copied into
// the tests), and its float32 logits.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/testdata.h"

namespace tessera::test {

struct Golden {
  std::string prompt;
  std::vector<int32_t> prompt_ids;     // BOS first
  std::vector<int32_t> generated_ids;  // 64
  std::string text;                    // prompt + continuation
};

inline std::vector<int32_t> parse_ids(const std::string& s) {
  std::vector<int32_t> ids;
  std::istringstream in(s);
  for (int32_t v; in >> v;) ids.push_back(v);
  return ids;
}

// The text between the first pair of backticks on the first line after `marker`.
inline std::string backticked_after(const std::string& doc, const std::string& marker) {
  const size_t at = doc.find(marker);
  if (at == std::string::npos) throw std::runtime_error("golden.md: no '" + marker + "'");
  const size_t open = doc.find('`', at + marker.size());
  const size_t close = doc.find('`', open + 1);
  return doc.substr(open + 1, close - open - 1);
}

inline Golden load_golden() {
  std::ifstream in(testdata_path("stories260K/golden.md"));
  if (!in) throw std::runtime_error("cannot read " + testdata_path("stories260K/golden.md"));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  Golden g;
  g.prompt = backticked_after(doc, "prompt:");
  g.prompt_ids = parse_ids(backticked_after(doc, "prompt ids (BOS first):"));
  g.generated_ids = parse_ids(backticked_after(doc, "generated ids (64):"));
  const std::string fence = "```\n";
  const size_t text_start = doc.find(fence, doc.find("text (prompt + continuation")) + fence.size();
  const size_t text_end = doc.find("\n```", text_start);
  g.text = doc.substr(text_start, text_end - text_start);
  return g;
}

// The tokens whose logits golden_logits.f32 holds: the prompt and every generated id
// but the last (68 rows for 5 + 64 tokens).
inline std::vector<int32_t> golden_logit_tokens() {
  const Golden g = load_golden();
  std::vector<int32_t> seq = g.prompt_ids;
  seq.insert(seq.end(), g.generated_ids.begin(), g.generated_ids.end() - 1);
  return seq;
}

// [rows, 512] float32 logits, row p after feeding token p of prompt_ids + generated_ids.
inline std::vector<float> load_golden_logits() {
  std::ifstream in(testdata_path("stories260K/golden_logits.f32"), std::ios::binary);
  if (!in) throw std::runtime_error("cannot read golden_logits.f32");
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

}  // namespace tessera::test
