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
  Default,        // no tokenizer.ggml.pre: llama.cpp's fallback rules
};

// The rules named by a `tokenizer.ggml.pre` value ("" and "default" give Default).
// Throws tessera::Error naming the value and the supported ones.
PreTokenizer pre_tokenizer_from_name(const std::string& name);

// Splits `text` into words: byte ranges of `text` that cover it exactly, in order.
// Each rule of the recipe cuts every current word into its matches and the text between
// them, as llama.cpp's regex splitting does. Invalid UTF-8 bytes stay in their word.
std::vector<std::string_view> pre_tokenize(PreTokenizer kind, std::string_view text);

}  // namespace tessera
