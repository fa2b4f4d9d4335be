// Pre-tokenization of byte-level BPE: cutting text into the words that are merged
// separately, with the splitting rules llama.cpp applies for each `tokenizer.ggml.pre`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tessera {

enum class PreTokenizer {
  Gpt2,           // gpt-2, mpt, olmo, jais
  DigitsApart,    // starcoder, refact, command-r, smollm, codeshell, exaone: GPT-2, one digit a word
  Falcon,         // punctuation runs, GPT-2, then digits in threes
  DeepseekLlm,
  DeepseekCoder,
  Llama3,         // llama-bpe (Llama 3) and its aliases, dbrx, smaug-bpe: digits in threes
  Qwen2,          // qwen2, deepseek-r1-qwen, stablelm2, ...: Llama 3's rules, one digit a word
  Default,        // no tokenizer.ggml.pre: llama.cpp's fallback rules
};

// What a `tokenizer.ggml.pre` value stands for: the splitting rules, and the two other
// choices llama.cpp ties to the name.
struct PreTokenizerSpec {
  PreTokenizer kind = PreTokenizer::Default;
  // A word that is itself a token becomes that token without merging (Llama 3's
  // ignore_merges; its vocabulary has tokens no merge sequence reaches).
  bool ignore_merges = false;
  // Whether prompts get a BOS when the file has no tokenizer.ggml.add_bos_token.
  bool add_bos = false;
};

// The spec named by a `tokenizer.ggml.pre` value ("" and "default" give Default).
// Throws tessera::Error naming the value and the supported ones.
PreTokenizerSpec pre_tokenizer_spec(const std::string& name);
// pre_tokenizer_spec(name).kind.
PreTokenizer pre_tokenizer_from_name(const std::string& name);

// Splits `text` into words: byte ranges of `text` that cover it exactly, in order.
// Each rule of the recipe cuts every current word into its matches and the text between
// them, as llama.cpp's regex splitting does. Invalid UTF-8 bytes stay in their word.
std::vector<std::string_view> pre_tokenize(PreTokenizer kind, std::string_view text);

}  // namespace tessera
