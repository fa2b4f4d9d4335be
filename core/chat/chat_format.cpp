#include "core/chat/chat_format.h"

#include <algorithm>

#include "core/chat/template_parser.h"
#include "core/tokenizer/special_tokens.h"

namespace tessera::chat {
namespace {

// An answer no template changes: what the template writes after it ends the turn.
constexpr std::string_view kAnswerMark = "Tessera answer mark";

std::string text_of(const Tokenizer& t, int32_t id) { return id >= 0 ? t.token_text(id) : std::string(); }

}  // namespace

ChatFormat::ChatFormat(const TemplateSource& source, const Tokenizer& tokenizer, std::string bos_text,
                       std::string eos_text)
    : template_(source.text, source.name),
      name_(source.name),
      tokenizer_(tokenizer),
      bos_text_(bos_text.empty() ? text_of(tokenizer, tokenizer.bos()) : std::move(bos_text)),
      eos_text_(eos_text.empty() ? text_of(tokenizer, tokenizer.eos()) : std::move(eos_text)) {
  texts_.resize(static_cast<size_t>(tokenizer.n_vocab()));
  for (int32_t id = 0; id < tokenizer.n_vocab(); ++id) {
    texts_[static_cast<size_t>(id)] = tokenizer.token_text(id);
    if (tokenizer.is_control(id) && !texts_[static_cast<size_t>(id)].empty()) control_ids_.push_back(id);
  }
  std::stable_sort(control_ids_.begin(), control_ids_.end(), [&](int32_t a, int32_t b) {
    return texts_[static_cast<size_t>(a)].size() > texts_[static_cast<size_t>(b)].size();
  });
  stop_tokens_ = find_stop_tokens();
}

std::string ChatFormat::render(const std::vector<ChatMessage>& messages, bool add_generation_prompt) const {
  return template_.render(ChatInputs{messages, add_generation_prompt, bos_text_, eos_text_});
}

std::vector<int32_t> ChatFormat::encode(std::string_view rendered) const {
  std::vector<int32_t> ids;
  for (const TextFragment& f : split_out_tokens(rendered, control_ids_, texts_)) {
    if (f.token >= 0) {
      ids.push_back(f.token);
    } else if (!f.text.empty()) {
      const std::vector<int32_t> part = tokenizer_.encode(f.text, false);
      ids.insert(ids.end(), part.begin(), part.end());
    }
  }
  const int32_t bos = tokenizer_.bos();
  if (tokenizer_.add_bos() && bos >= 0 && (ids.empty() || ids.front() != bos)) ids.insert(ids.begin(), bos);
  return ids;
}

std::vector<int32_t> ChatFormat::prompt_ids(const std::vector<ChatMessage>& messages) const {
  return encode(render(messages, true));
}

std::vector<int32_t> ChatFormat::find_stop_tokens() const {
  std::vector<int32_t> stops;
  // Some templates want a system message first, or refuse one: try both.
  const std::vector<std::vector<ChatMessage>> probes = {
      {{"user", "Hi"}, {"assistant", std::string(kAnswerMark)}},
      {{"system", "S"}, {"user", "Hi"}, {"assistant", std::string(kAnswerMark)}},
  };
  for (const auto& probe : probes) {
    std::string text;
    try {
      text = render(probe, false);
    } catch (const TemplateError&) {
      continue;
    }
    const size_t at = text.rfind(kAnswerMark);
    if (at == std::string::npos) continue;
    // The first control token after the answer (whitespace before it aside) ends the turn.
    const std::vector<TextFragment> after =
        split_out_tokens(std::string_view(text).substr(at + kAnswerMark.size()), control_ids_, texts_);
    for (const TextFragment& f : after) {
      if (f.token >= 0) {
        stops.push_back(f.token);
        break;
      }
      if (f.text.find_first_not_of(" \n\t") != std::string_view::npos) break;
    }
    break;
  }
  const int32_t eos = tokenizer_.eos();
  if (eos >= 0 && std::find(stops.begin(), stops.end(), eos) == stops.end()) stops.push_back(eos);
  return stops;
}

}  // namespace tessera::chat
