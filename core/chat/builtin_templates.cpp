// The built-in chat templates: the conversation formats of the common model families,
// written for this interpreter, for models whose own template is missing or fails.
#include <array>

#include "core/chat/template_source.h"

namespace tessera::chat {
namespace {

struct Builtin {
  std::string_view name;
  std::string_view text;
};

// ChatML (SmolLM, Qwen, ...): <|im_start|>role\ncontent<|im_end|>\n per message.
constexpr std::string_view kChatml =
    "{%- for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{%- endif %}";

// Llama 3: a header per message, each ended by <|eot_id|>.
constexpr std::string_view kLlama3 =
    "{{ bos_token }}"
    "{%- for message in messages %}"
    "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + "
    "'<|eot_id|>' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{%- endif %}";

// Llama 2: [INST] turns, the system prompt inside the first one between <<SYS>> marks.
constexpr std::string_view kLlama2 =
    "{%- if messages and messages[0]['role'] == 'system' %}"
    "{%- set system = '<<SYS>>\\n' + messages[0]['content'] | trim + '\\n<</SYS>>\\n\\n' %}"
    "{%- set turns = messages[1:] %}"
    "{%- else %}{%- set system = '' %}{%- set turns = messages %}{%- endif %}"
    "{%- for message in turns %}"
    "{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('llama2 conversations alternate user and assistant turns, starting with the user') }}"
    "{%- endif %}"
    "{%- if message['role'] == 'user' %}"
    "{{ bos_token + '[INST] ' + (system if loop.first else '') + message['content'] | trim + ' [/INST]' }}"
    "{%- else %}{{ ' ' + message['content'] | trim + ' ' + eos_token }}{%- endif %}"
    "{%- endfor %}";

// Mistral: like Llama 2 without <<SYS>>: the system prompt opens the first user turn.
constexpr std::string_view kMistral =
    "{%- if messages and messages[0]['role'] == 'system' %}"
    "{%- set system = messages[0]['content'] | trim + '\\n\\n' %}{%- set turns = messages[1:] %}"
    "{%- else %}{%- set system = '' %}{%- set turns = messages %}{%- endif %}"
    "{{ bos_token }}"
    "{%- for message in turns %}"
    "{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('mistral conversations alternate user and assistant turns, starting with the user') }}"
    "{%- endif %}"
    "{%- if message['role'] == 'user' %}"
    "{{ '[INST] ' + (system if loop.first else '') + message['content'] | trim + ' [/INST]' }}"
    "{%- else %}{{ ' ' + message['content'] | trim + eos_token }}{%- endif %}"
    "{%- endfor %}";

// Gemma: <start_of_turn>user|model, the system prompt opening the first user turn.
constexpr std::string_view kGemma =
    "{{ bos_token }}"
    "{%- if messages and messages[0]['role'] == 'system' %}"
    "{%- set system = messages[0]['content'] | trim + '\\n\\n' %}{%- set turns = messages[1:] %}"
    "{%- else %}{%- set system = '' %}{%- set turns = messages %}{%- endif %}"
    "{%- for message in turns %}"
    "{%- set role = 'model' if message['role'] == 'assistant' else message['role'] %}"
    "{{ '<start_of_turn>' + role + '\\n' + (system if loop.first else '') + message['content'] | trim + "
    "'<end_of_turn>\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{ '<start_of_turn>model\\n' }}{%- endif %}";

// Phi-3: <|role|>\ncontent<|end|>\n per message.
constexpr std::string_view kPhi3 =
    "{%- for message in messages %}"
    "{{ '<|' + message['role'] + '|>\\n' + message['content'] + '<|end|>\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{ '<|assistant|>\\n' }}{%- else %}{{ eos_token }}{%- endif %}";

constexpr std::array<Builtin, 6> kBuiltins = {{
    {"chatml", kChatml},
    {"llama2", kLlama2},
    {"llama3", kLlama3},
    {"gemma", kGemma},
    {"mistral", kMistral},
    {"phi3", kPhi3},
}};

}  // namespace

std::vector<std::string> builtin_template_names() {
  std::vector<std::string> names;
  for (const Builtin& b : kBuiltins) names.emplace_back(b.name);
  return names;
}

std::optional<TemplateSource> builtin_template(std::string_view name) {
  for (const Builtin& b : kBuiltins) {
    if (b.name == name) return TemplateSource{std::string(b.text), std::string(b.name) + " (built-in)"};
  }
  return std::nullopt;
}

}  // namespace tessera::chat
