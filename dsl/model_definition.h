// The public API of the model DSL in one include: parse a .tsr file (parse.h), compile
// it to the op graph (compiler.h), summarise the result (summary.h); errors are DslError.
#pragma once

#include "dsl/compiler.h"
#include "dsl/diagnostics.h"
#include "dsl/parse.h"
#include "dsl/summary.h"
