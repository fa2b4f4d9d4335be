// Numbers of the DSL: integer/float values and the evaluation of scalar expressions
// (hyper-parameters, shapes, attributes). Integers stay exact: '/' must divide evenly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "dsl/ast.h"

namespace tessera::dsl {

struct Scalar {
  bool is_integer = true;
  int64_t integer = 0;  // the value when is_integer
  double real = 0;      // the value otherwise

  static Scalar of_integer(int64_t v) { return Scalar{true, v, 0.0}; }
  static Scalar of_real(double v) { return Scalar{false, 0, v}; }
  double as_double() const { return is_integer ? static_cast<double>(integer) : real; }
  // "64" for integers; floats always show they are floats: "10000.0", "1e-05".
  std::string to_string() const;
};

// The scalar functions (see op_table.h); Meta, Shape and Has read the weights file.
enum class ScalarFunction { Meta, Shape, Sqrt, Pow, If, Round, Has };

// What a scalar expression can see.
class ScalarScope {
 public:
  virtual ~ScalarScope() = default;
  // The value of a hyper-parameter or loop variable named `name`; nullopt if none.
  virtual std::optional<Scalar> find(std::string_view name) const = 0;
  // Evaluates meta(...) or shape(...). Only the hparams section offers them (the
  // semantic check refuses them elsewhere), so the default throws.
  virtual Scalar read_source(const Expr& call, ScalarFunction fn) const;
  // has(name, hf: key): whether the weights file holds that tensor. The default asks
  // read_source() for shape(name, 0, -1, hf: key), so a scope that reads shapes (the
  // hparams section's) answers it the same way; the forward section's scope overrides it.
  virtual bool has_tensor(const Expr& call) const;
};

// Evaluates a scalar expression; throws DslError (division not exact, by zero,
// integer overflow, square root of a negative number) pointing into `source`.
Scalar eval_scalar(const Expr& e, const ScalarScope& scope, const SourceText& source);

// The value as an integer; throws DslError "<what> must be an integer ..." otherwise.
int64_t require_integer(const Scalar& v, const Expr& e, const SourceText& source,
                        std::string_view what);

}  // namespace tessera::dsl
