// Reading a whole text input (a model definition, a prompts file, a JSON document) the
// safe way: only a regular file, and at most a stated size, so a FIFO, a device such as
// /dev/zero or a directory given by mistake is an error naming it, never a hang or an
// unbounded read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tessera {

// The contents of `path`. Throws tessera::Error "<path>: <cause>" when it cannot be
// opened, is not a regular file ("is a directory", "is not a regular file (a FIFO)"),
// or is larger than `max_bytes` ("is 3.0 GiB, more than the 4.0 MiB a model definition
// may be"); `what` names the input in that message.
std::string read_text_file(const std::string& path, uint64_t max_bytes, std::string_view what);

// Throws the same errors as read_text_file for a path that is not a regular file
// (checked without blocking, even on a FIFO).
void require_regular_file(const std::string& path);

}  // namespace tessera
