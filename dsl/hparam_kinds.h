// The kind of number a hyper-parameter is meant to be, known from how its definition is
// written, and the reading of a metadata value as that kind: what keeps a `true` or a
// `32.5` in a config.json from becoming a layer count, and a string from becoming the
// default.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/weights/weight_file.h"
#include "dsl/ast.h"
#include "dsl/scalar_eval.h"

namespace tessera::dsl {

enum class NumberKind {
  Integer,  // a whole number, a count or a size: 8, d_model / n_heads, shape(), round()
  Real,     // a number that may have a fraction: 1e-5, 10000.0, sqrt(), 1.0 * a
  Flag,     // true or false (1 or 0): true, a comparison, has(), hf
  Any,      // left open by the definition: if(c, 1, 0.5)
};

// What a value of `kind` is, for messages: "a whole number", "a number", "true or false".
std::string_view describe(NumberKind kind);

// The kind of the number `e` gives; `kind_of_name` gives the kind of the hyper-parameter
// (or `hf`) a name refers to. meta(key, default) is of its default's kind, and without
// a default reads a whole number.
NumberKind kind_of(const Expr& e, const std::function<NumberKind(std::string_view)>& kind_of_name);

// The metadata value `m` as a number of `kind`, or nullopt when it is none; then
// *found says what it is instead ("true", "32.5", "a string, \"32\"").
//   Integer: an integer, or a float with no fraction (32.0), within 64 bits.
//   Real:    a finite float, or an integer (made a float).
//   Flag:    a bool, or the integer 0 or 1.
//   Any:     a finite float or an integer within 64 bits, as it is.
std::optional<Scalar> meta_as(const MetaValue& m, NumberKind kind, std::string* found);

}  // namespace tessera::dsl
