// tokenizer.json to BpeVocab (byte-level BPE, the pre-tokenizer recognised by its
// structure), and the choice between the byte-level and the SentencePiece-style reader.
#include "core/tokenizer/hf_tokenizer_json.h"

#include "core/tokenizer/bpe_tokenizer.h"
#include "core/tokenizer/hf_json_tables.h"
#include "core/tokenizer/spm_tokenizer.h"
#include "core/util/error.h"

namespace tessera {
namespace {

using hf_json::brief;
using hf_json::is_type;
using hf_json::json;

// The regexes of Llama 3's and Qwen2's tokenizer.json, byte for byte.
constexpr const char* kLlama3Regex =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
constexpr const char* kQwen2Regex =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

// A ByteLevel step that adds no space in front; with its own GPT-2 regex or without.
bool is_plain_byte_level(const json& step, bool with_regex) {
  return is_type(step, "ByteLevel") && !step.value("add_prefix_space", false) &&
         step.value("use_regex", true) == with_regex;
}

// The regex of a Split step that isolates its matches, or "" for another step.
std::string isolating_split_regex(const json& step) {
  if (!is_type(step, "Split") || step.value("behavior", "") != "Isolated" || step.value("invert", false))
    return "";
  const json& pattern = step.value("pattern", json::object());
  return pattern.is_object() && pattern.contains("Regex") && pattern["Regex"].is_string()
             ? pattern["Regex"].get<std::string>()
             : "";
}

// The tokenizer.ggml.pre name whose rules the pre_tokenizer node describes.
std::string pre_name(const json& pre, const std::string& path) {
  if (is_plain_byte_level(pre, true)) return "gpt-2";
  if (is_type(pre, "Sequence") && pre.contains("pretokenizers") && pre["pretokenizers"].size() == 2) {
    const json& first = pre["pretokenizers"][0];
    const json& second = pre["pretokenizers"][1];
    if (is_type(first, "Digits") && first.value("individual_digits", false) &&
        is_plain_byte_level(second, true))
      return "starcoder";
    const std::string regex = isolating_split_regex(first);
    if (is_plain_byte_level(second, false) && regex == kLlama3Regex) return "llama-bpe";
    if (is_plain_byte_level(second, false) && regex == kQwen2Regex) return "qwen2";
  }
  throw Error(path + ": pre_tokenizer " + brief(pre) +
              " is not supported (ByteLevel; Digits(individual) then ByteLevel; or a Split with "
              "Llama 3's or Qwen2's regex then ByteLevel)");
}

bool ends_in_byte_level(const json& pre) {
  if (is_type(pre, "ByteLevel")) return true;
  if (!is_type(pre, "Sequence") || !pre.contains("pretokenizers")) return false;
  const json& steps = pre["pretokenizers"];
  return steps.is_array() && !steps.empty() && is_type(steps.back(), "ByteLevel");
}

BpeVocab byte_level_vocab(const json& doc, const std::string& path) {
  const json& model = hf_json::bpe_model(doc, path);
  const json normalizer = doc.value("normalizer", json());
  if (!normalizer.is_null() && !is_type(normalizer, "NFC"))
    throw Error(path + ": normalizer " + brief(normalizer) +
                " is not supported with a byte-level pre-tokenizer (none, or NFC)");
  BpeVocab v;
  v.pre = pre_name(doc.value("pre_tokenizer", json()), path);
  hf_json::TokenTable table = hf_json::read_token_table(doc, path);
  const hf_json::SpecialTokens special = hf_json::read_special_tokens(doc, path, table);
  v.bos_id = special.bos_id;
  v.eos_id = special.eos_id;
  v.add_bos = special.add_bos;
  v.unk_id = hf_json::unk_token_id(model, table);
  v.texts = std::move(table.texts);
  v.types = std::move(table.types);
  v.merges = hf_json::read_merges(model, path);
  v.ignore_merges = model.value("ignore_merges", false);
  validate_bpe_vocab(v, path);
  return v;
}

}  // namespace

BpeVocab bpe_vocab_from_tokenizer_json(const std::string& path) {
  return hf_json::with_file_context(path, [&] {
    return byte_level_vocab(hf_json::read_json_file(path), path);
  });
}

Vocab spm_vocab_from_tokenizer_json(const std::string& path) {
  return hf_json::with_file_context(path, [&] {
    return hf_json::sentencepiece_vocab(hf_json::read_json_file(path), path);
  });
}

std::unique_ptr<Tokenizer> tokenizer_from_tokenizer_json(const std::string& path) {
  return hf_json::with_file_context(path, [&]() -> std::unique_ptr<Tokenizer> {
    const json doc = hf_json::read_json_file(path);
    hf_json::bpe_model(doc, path);  // a Unigram or WordPiece model is refused whatever the rest
    if (ends_in_byte_level(doc.value("pre_tokenizer", json())))
      return std::make_unique<BpeTokenizer>(byte_level_vocab(doc, path));
    return std::make_unique<SpmTokenizer>(hf_json::sentencepiece_vocab(doc, path));
  });
}

}  // namespace tessera
