// Fuzzes the chat-template interpreter: the input is a template's source, parsed and
// rendered for a small fixed conversation, as ChatTemplate does. A template that does
// not parse, fails or raises must be a TemplateError; one that loops, grows a value,
// nests or overflows must be stopped by the renderer's limits, with a TemplateError too.
// The loop-step limit is lowered from ChatTemplate's 4M to 64K, so that a looping input
// takes a second under the sanitizers rather than a minute; the other limits are the
// ones ChatTemplate renders with.
#include <cstdint>
#include <string>

#include "core/chat/template_parser.h"
#include "core/chat/template_render.h"
#include "core/util/error.h"
#include "fuzz_support.h"

namespace {

constexpr size_t kMaxOutputBytes = size_t{64} << 20;  // ChatTemplate's (the default)
constexpr size_t kMaxSteps = size_t{1} << 16;

// What ChatTemplate::render passes a template: messages, add_generation_prompt,
// bos_token and eos_token.
const tessera::chat::Value& conversation() {
  using tessera::chat::Dict;
  using tessera::chat::List;
  using tessera::chat::Value;
  static const Value context = [] {
    List messages;
    for (const auto& [role, content] :
         {std::pair{"system", "You are terse."}, std::pair{"user", "Hi! {{ not a tag }} <|im_end|>"},
          std::pair{"assistant", "Hello.\n"}, std::pair{"user", "Caf\xC3\xA9 \xF0\x9F\x98\x80 twice?"}}) {
      messages.emplace_back(Dict{{"role", Value(role)}, {"content", Value(content)}});
    }
    return Value(Dict{{"messages", Value(std::move(messages))},
                      {"add_generation_prompt", Value(true)},
                      {"bos_token", Value("<s>")},
                      {"eos_token", Value("</s>")}});
  }();
  return context;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const tessera::chat::NodeList nodes =
        tessera::chat::parse_template(std::string(reinterpret_cast<const char*>(data), size), "fuzz.jinja");
    const std::string text = tessera::chat::render_template(nodes, conversation(), "fuzz.jinja", kMaxOutputBytes, kMaxSteps);
    tessera::fuzz::require(text.size() <= kMaxOutputBytes, "a rendering passed the output limit");
  } catch (const tessera::chat::TemplateError&) {
    // A template that does not parse, fails, raises or hits a limit, at its position.
  } catch (const tessera::Error&) {
  }
  return 0;
}
