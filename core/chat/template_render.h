// Rendering a parsed chat template: expressions with Python's semantics (truthiness,
// `and`/`or` returning an operand, `+` on strings and lists), loops with `loop.*`,
// Jinja2's scoping (a `set` inside a loop stays in it; namespaces carry values out),
// the filters, tests, string and dict methods real templates call, and
// raise_exception. Errors name the template position.
#pragma once

#include <string>

#include "core/chat/template_ast.h"

namespace tessera::chat {

// Renders `nodes` with the variables of `context` (a dict: messages, bos_token, ...).
// Throws TemplateError (template_parser.h) for an error the template makes or raises,
// and when rendering runs past `max_output_bytes` or `max_steps` loop iterations (a
// template that loops), holds a value over 16 MiB (Value::footprint: a string or list
// grown in a loop) or nested over 64 deep, builds and compares values over 256 MiB in
// all (quadratic work: one grown a little at a time), or computes an integer past 64
// bits (Python's have no bound).
std::string render_template(const NodeList& nodes, const Value& context, const std::string& name,
                            size_t max_output_bytes = size_t{64} << 20, size_t max_steps = size_t{1} << 22);

}  // namespace tessera::chat
