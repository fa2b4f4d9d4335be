// Reading model definitions: parse a .tsr text into a checked ModelDef (syntax and
// semantic checks done), or throw a DslError that points at the problem.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "dsl/ast.h"
#include "dsl/diagnostics.h"

namespace tessera::dsl {

// Parses and checks `source`; `file_name` is what diagnostics report. Throws DslError.
std::shared_ptr<const ModelDef> parse_model(std::string_view source, std::string file_name);

// Reads and parses the file at `path`. Throws DslError (line 0) when it cannot be read.
std::shared_ptr<const ModelDef> parse_model_file(const std::string& path);

// Only the syntax: the AST as written, before the semantic check (for tools and tests),
// with the definitions `use` names read (relative to the folder of `file_name`) and merged in.
std::unique_ptr<ModelDef> parse_syntax(std::string_view source, std::string file_name);

}  // namespace tessera::dsl
