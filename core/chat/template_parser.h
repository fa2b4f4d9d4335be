// Parsing a chat template: the Jinja2 syntax real templates use, with the whitespace
// rules Hugging Face renders them under (trim_blocks and lstrip_blocks on, `-` and `+`
// in tags). Errors name the template, line and column.
#pragma once

#include <stdexcept>
#include <string>

#include "core/chat/template_ast.h"

namespace tessera::chat {

// A template that does not parse or does not render; what() is
// "<name>:<line>:<col>: <message>".
class TemplateError : public std::runtime_error {
 public:
  TemplateError(const std::string& name, SourcePos pos, const std::string& message);
  SourcePos pos;
};

// Parses `source`; `name` is how errors refer to it.
NodeList parse_template(const std::string& source, const std::string& name);

}  // namespace tessera::chat
