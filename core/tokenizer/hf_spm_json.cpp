// tokenizer.json to Vocab for SentencePiece-style BPE (Llama 2, Gemma): the space handling
// recognised from the normalizer, byte and unknown tokens typed, the merge list kept.
#include <string>
#include <utility>

#include "core/tokenizer/hf_json_tables.h"
#include "core/tokenizer/hf_tokenizer_json.h"
#include "core/util/error.h"

namespace tessera {
namespace {

using hf_json::brief;
using hf_json::is_type;
using hf_json::json;

constexpr const char* kSpaceMark = "\xE2\x96\x81";  // U+2581, SentencePiece's space

// Replace(" ", "▁").
bool is_space_escape(const json& step) {
  if (!is_type(step, "Replace") || step.value("content", "") != kSpaceMark) return false;
  const json& pattern = step.value("pattern", json::object());
  return pattern.is_object() && pattern.value("String", json()) == " ";
}

// Whether the normalizer adds the space prefix: Sequence[Prepend("▁"), Replace(" ", "▁")]
// does (Llama 2), Replace(" ", "▁") alone (or in a one-step Sequence) does not (Gemma).
bool adds_space_prefix(const json& normalizer, const std::string& path) {
  if (is_space_escape(normalizer)) return false;
  if (is_type(normalizer, "Sequence") && normalizer.contains("normalizers")) {
    const json& steps = normalizer["normalizers"];
    if (steps.size() == 1 && is_space_escape(steps[0])) return false;
    if (steps.size() == 2 && is_type(steps[0], "Prepend") && steps[0].value("prepend", "") == kSpaceMark &&
        is_space_escape(steps[1]))
      return true;
  }
  throw Error(path + ": normalizer " + brief(normalizer) +
              " is not supported (byte-level BPE needs a ByteLevel pre-tokenizer; "
              "SentencePiece-style BPE a Replace(\" \", \"\xE2\x96\x81\") normalizer, after "
              "Prepend(\"\xE2\x96\x81\") or alone)");
}

// No pre-tokenizer, or a Split on " " (Gemma's), which finds no space once the normalizer
// has replaced them all.
void check_no_splitting(const json& pre, const std::string& path) {
  if (pre.is_null()) return;
  const json& pattern = pre.value("pattern", json::object());
  if (is_type(pre, "Split") && pattern.is_object() && pattern.value("String", json()) == " ") return;
  throw Error(path + ": pre_tokenizer " + brief(pre) +
              " is not supported (a ByteLevel one for byte-level BPE; none, or a Split on \" \", for "
              "SentencePiece-style BPE)");
}

bool is_byte_token_text(const std::string& t) {
  auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); };
  return t.size() == 6 && t.compare(0, 3, "<0x") == 0 && hex(t[3]) && hex(t[4]) && t[5] == '>';
}

}  // namespace

Vocab hf_json::sentencepiece_vocab(const json& doc, const std::string& path) {
  const json& model = bpe_model(doc, path);
  Vocab v;
  check_no_splitting(doc.value("pre_tokenizer", json()), path);
  v.add_space_prefix = adds_space_prefix(doc.value("normalizer", json()), path);
  if (!model.value("byte_fallback", false))
    throw Error(path + ": model.byte_fallback is not true; a SentencePiece-style BPE needs its "
                "byte fallback");
  if (model.value("ignore_merges", false))
    throw Error(path + ": model.ignore_merges is true, which a SentencePiece-style BPE does not use");

  TokenTable table = read_token_table(doc, path);
  const SpecialTokens special = read_special_tokens(doc, path, table);
  v.bos_id = special.bos_id;
  v.eos_id = special.eos_id;
  v.add_bos = special.add_bos;
  v.add_eos = special.add_eos;
  v.unk_id = unk_token_id(model, table);
  for (int32_t id = 0; id < table.size(); ++id)
    if (table.types[id] == TokenType::Normal && is_byte_token_text(table.texts[id]))
      table.types[id] = TokenType::Byte;
  if (v.unk_id >= 0) table.types[v.unk_id] = TokenType::Unknown;
  v.texts = std::move(table.texts);
  v.types = std::move(table.types);
  v.scores.assign(v.texts.size(), 0.0f);  // merging goes by rank
  v.merges = read_merges(model, path);
  if (v.merges.empty()) throw Error(path + ": model.merges is empty; there is nothing to merge by");
  validate_vocab(v, path);
  return v;
}

}  // namespace tessera
