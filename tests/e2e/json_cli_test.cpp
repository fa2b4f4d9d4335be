// `tessera generate --json` prints valid UTF-8 whatever bytes the text holds: a model
// whose tokens are single bytes generates the lead byte of a three-byte character
// again and again, so its text is partial characters only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "core/weights/gguf_writer.h"
#include "core/weights/weight_file.h"
#include "support/json_fields.h"
#include "support/run_command.h"
#include "support/temp_path.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

std::string tessera(const std::string& args) { return shell_quote(tessera_exe()) + " " + args; }

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF), checked by decoding it.
bool is_valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : c >= 0xc2 && c < 0xe0 ? 2 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xf0 && c < 0xf5 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : c & (0xff >> (n + 1));
    for (size_t k = 1; k < n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xc0) != 0x80) return false;
      cp = cp << 6 | (b & 0x3f);
    }
    const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) return false;
    i += n;
  }
  return true;
}

// A one-layer llama (tessera init's byte vocabulary: token 3 + b is byte b) whose
// logits always peak at `byte`'s token: every embedding is ones, every layer adds
// zeros, and only that token's output row is non-zero.
std::string model_generating_byte(uint8_t byte) {
  const std::string random = temp_path("byte_model_random.gguf");
  const auto init = run_command(tessera("init --arch " + shell_quote(source_path("models/llama.tsr")) +
                                        " --set d_model=32 --set n_layers=1 --set n_heads=4 --set n_kv_heads=2"
                                        " --set d_ff=64 --set n_vocab=260 --dtype f32 -o " + shell_quote(random)));
  EXPECT_EQ(init.exit_code, 0) << init.err;
  const auto source = open_weight_file(random);
  GgufWriter writer;
  writer.copy_meta(*source);
  for (const TensorView& t : source->tensors()) {
    std::vector<float> values(static_cast<size_t>(t.n_elements()), 0.0f);
    if (t.name == "token_embd.weight" || t.name.find("norm") != std::string::npos) {
      std::fill(values.begin(), values.end(), 1.0f);
    } else if (t.name == "output.weight") {
      std::fill_n(values.begin() + (3 + byte) * t.shape[1], t.shape[1], 1.0f);
    }
    std::vector<uint8_t> bytes(values.size() * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    writer.add_tensor(t.name, DType::F32, t.shape, std::move(bytes));
  }
  const std::string path = temp_path("byte_model.gguf");
  writer.write(path);
  return path;
}

TEST(GenerateJson, TextOfPartialCharactersIsValidUtf8) {
  const std::string model = model_generating_byte(0xe2);  // the lead byte of U+20AC
  const auto r = run_command(tessera("generate -m " + shell_quote(model) + " -p hi -n 3 --temp 0 --ignore-eos --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json_ids(r.out, "generated_ids"), (std::vector<int32_t>{3 + 0xe2, 3 + 0xe2, 3 + 0xe2})) << r.out;
  EXPECT_TRUE(is_valid_utf8(r.out)) << r.out;
  EXPECT_EQ(json_text(r.out, "text"), "\\ufffd\\ufffd\\ufffd") << r.out;
}

TEST(GenerateJson, PromptOfIllFormedBytesIsValidUtf8) {
  const std::string model = model_generating_byte('a');
  // A surrogate (ED A0 80) and an overlong '/' (C0 AF): each byte one replacement.
  const auto r = run_command(tessera("generate -m " + shell_quote(model) + " -p " +
                                     shell_quote("x\xed\xa0\x80\xc0\xaf") + " -n 1 --temp 0 --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(is_valid_utf8(r.out)) << r.out;
  EXPECT_EQ(json_text(r.out, "prompt"), "x\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd") << r.out;
  EXPECT_EQ(json_text(r.out, "text"), "a") << r.out;
}

}  // namespace
}  // namespace tessera::test
