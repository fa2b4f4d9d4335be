// Where a conversation's chat template comes from: the one the model carries (GGUF
// tokenizer.chat_template; a Hugging Face folder's chat_template.jinja or the
// chat_template of its tokenizer_config.json), a built-in one named on the command line
// (--chat-template chatml|llama2|llama3|gemma|mistral|phi3), or a file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {
class WeightFile;
}

namespace tessera::chat {

struct TemplateSource {
  std::string text;  // the Jinja2 source
  std::string name;  // how errors name it: "model.gguf: tokenizer.chat_template", "chatml (built-in)", a path
};

// The template `weights` carries, or nullopt when it carries none. Throws
// tessera::Error naming the file when a Hugging Face folder's tokenizer_config.json is
// not JSON or its chat_template is neither a string nor a list of {name, template}
// (the entry named "default" is used, else the first).
std::optional<TemplateSource> model_chat_template(const WeightFile& weights);

// The bos_token / eos_token texts a Hugging Face folder's tokenizer_config.json names
// (a string, or an object with "content"); "" when absent, or for a GGUF file.
struct SpecialTokenTexts {
  std::string bos, eos;
};
SpecialTokenTexts config_token_texts(const WeightFile& weights);

// The names of the built-in templates, and one of them by name (nullopt if unknown).
std::vector<std::string> builtin_template_names();
std::optional<TemplateSource> builtin_template(std::string_view name);

// --chat-template VALUE: a built-in name, else the path of a template file. Throws
// tessera::Error listing the built-in names when it is neither.
TemplateSource chosen_template(const std::string& value);

}  // namespace tessera::chat
