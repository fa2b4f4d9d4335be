// What of the weights file the definition leaves unread, as the CLI says it: a warning
// on stderr from every command that loads a model, an error with --strict, and a line
// of `tessera check`. The files are stories260K.gguf with a tensor or a key added.
#include <gtest/gtest.h>

#include <memory>

#include "core/weights/gguf_values.h"
#include "core/weights/gguf_writer.h"
#include "core/weights/weight_file.h"
#include "support/run_command.h"
#include "support/temp_path.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

std::string tessera(const std::string& args) { return shell_quote(tessera_exe()) + " " + args; }

std::string llama_tsr() { return source_path("models/llama.tsr"); }

// stories260K.gguf with a q bias llama.tsr does not declare (when `with_bias`) and
// `extra` metadata; written as `name`.
std::string stories_with(const std::string& name, bool with_bias,
                         const std::vector<std::pair<std::string, MetaValue>>& extra = {}) {
  const auto source = open_weight_file(testdata_path("stories260K/stories260K.gguf"));
  GgufWriter writer;
  writer.copy_meta(*source);
  for (const auto& [key, value] : extra) writer.set_meta(key, value);
  for (const TensorView& t : source->tensors()) writer.add_tensor(t.name, t.dtype, t.shape, t.data, t.n_bytes);
  if (with_bias) writer.add_tensor("blk.0.attn_q.bias", DType::F32, {64}, std::vector<uint8_t>(64 * 4, 0));
  const std::string path = temp_path(name);
  writer.write(path);
  return path;
}

std::string generate(const std::string& path, const std::string& flags = "") {
  return tessera("generate -m " + shell_quote(path) + " -p 'Once upon a time' -n 4 --temp 0 " + flags);
}

TEST(Coverage, GenerateWarnsAboutAnUnusedTensor) {
  const std::string path = stories_with("extra_tensor.gguf", true);
  const auto r = run_command(generate(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("tessera: warning: 1 tensor(s) of " + path + " are not used by " + llama_tsr() +
                       ": blk.0.attn_q.bias\n"),
            std::string::npos)
      << r.err;
}

TEST(Coverage, StrictRefusesAnUnusedTensor) {
  const std::string path = stories_with("extra_tensor_strict.gguf", true);
  const auto r = run_command(generate(path, "--strict"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "tessera generate: error: 1 tensor(s) of " + path + " are not used by " + llama_tsr() +
                       ": blk.0.attn_q.bias (--strict)\n");
  EXPECT_EQ(r.out, "");
}

TEST(Coverage, GenerateWarnsAboutAnUnreadArchitecturalKey) {
  const std::string path = stories_with("softcap.gguf", false, {{"llama.attn_logit_softcapping", gguf::make_f32(30)}});
  const auto r = run_command(generate(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("tessera: warning: 1 metadata key(s) of " + path +
                       " that change the computation are not read by " + llama_tsr() +
                       ": llama.attn_logit_softcapping = 30\n"),
            std::string::npos)
      << r.err;
}

TEST(Coverage, StrictRefusesAnUnreadArchitecturalKeyInEveryModelCommand) {
  const std::string path = stories_with("softcap_strict.gguf", false, {{"llama.attn_logit_softcapping", gguf::make_f32(30)}});
  const std::string m = " -m " + shell_quote(path) + " --strict";
  for (const std::string& cmd : {"generate -p hi -n 1" + m, "bench -p 4 -n 1 -r 1 --no-bandwidth" + m,
                                "check " + shell_quote(llama_tsr()) + m, "check -b cpu" + m}) {
    const auto r = run_command("echo hi | " + tessera(cmd));
    EXPECT_EQ(r.exit_code, 1) << cmd << "\n" << r.err;
    EXPECT_NE(r.err.find(": error: 1 metadata key(s) of " + path), std::string::npos) << cmd << "\n" << r.err;
  }
  const auto chat = run_command("echo hi | " + tessera("chat --chat-template chatml -n 1" + m));
  EXPECT_EQ(chat.exit_code, 1) << chat.err;
}

TEST(Coverage, AHarmlessValueOfAnUnreadKeyIsNotReported) {
  const std::string path = stories_with("softcap_off.gguf", false, {{"llama.attn_logit_softcapping", gguf::make_f32(0)}});
  const auto r = run_command(generate(path, "--strict"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
}

TEST(Coverage, CheckCountsTheTensorsUsedAndListsWhatIsNot) {
  const std::string path = stories_with("check_extra.gguf", true, {{"llama.attn_logit_softcapping", gguf::make_f32(30)}});
  const auto r = run_command(tessera("check " + shell_quote(llama_tsr()) + " -m " + shell_quote(path)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\ntensors: 48 of 49 in the file used; not used: blk.0.attn_q.bias\n"
                       "metadata not read: llama.attn_logit_softcapping = 30\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("tessera: warning: 1 tensor(s) of " + path), std::string::npos) << r.err;
}

TEST(Coverage, StoriesGgufIsReadWhole) {
  const auto r = run_command(tessera("check " + shell_quote(llama_tsr()) + " -m " +
                                     shell_quote(testdata_path("stories260K/stories260K.gguf")) + " --strict"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\ntensors: 48 of 48 in the file used\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
}

}  // namespace
}  // namespace tessera::test
