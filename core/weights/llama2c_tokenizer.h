// Reader of a llama2.c tokenizer file (int32 max_token_length, then per token: f32
// score, int32 length, bytes), converted to the GGUF tokenizer.ggml.* keys the way
// the GGUF converter writes them (▁ for spaces, <unk>/<s>/</s>, token types).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "core/weights/weight_file.h"

namespace tessera {

// Reads `vocab_size` tokens from `path` and adds tokenizer.ggml.{model, tokens,
// scores, token_type, bos_token_id, eos_token_id, unknown_token_id} to `metadata`.
// Throws tessera::Error naming the file when a length runs past its end, or when
// bytes remain after the last token (a tokenizer of a different vocabulary).
void read_llama2c_tokenizer(const std::string& path, int64_t vocab_size,
                            std::map<std::string, MetaValue>& metadata);

}  // namespace tessera
