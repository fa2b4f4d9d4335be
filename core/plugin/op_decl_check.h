// Validation of the ops a plugin declares (tsr_plugin.ops, ABI version 4): names,
// inputs and their shape rules, attributes, the output rule and the key input, so that
// the host and the DSL can trust every declaration they read afterwards.
#pragma once

#include <string>

#include <tessera/plugin_abi.h>

namespace tessera {

// Throws tessera::Error "<file>: op 1 ('acme.x'): <cause>" for the first declaration
// that breaks a rule of tsr_op_decl (plugin_abi.h), e.g.
//   "<file>: op 0 ('acme.x'): input 1 ('up') refers to input 3, which is not before it"
// `table` passed the table checks up to the op list (name set).
void check_op_decls(const tsr_plugin& table, const std::string& file);

// True for "[a-z_][a-z0-9_]*": an op's own name, an attribute's name.
bool is_lower_identifier(const char* text);

}  // namespace tessera
