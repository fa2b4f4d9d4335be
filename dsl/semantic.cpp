#include "dsl/semantic.h"

#include <map>
#include <set>
#include <utility>

#include "dsl/diagnostics.h"
#include "dsl/op_table.h"
#include "dsl/requirements.h"
#include "dsl/semantic_expr.h"

namespace tessera::dsl {
namespace {

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }
std::string line_of(SourceLocation loc) { return "line " + std::to_string(loc.line); }

class ModelChecker {
 public:
  explicit ModelChecker(ModelDef& model) : model_(model), exprs_(model, &used_weights_) {
    exprs_.set_block_body_check(
        [this](const BlockDef& b, const std::vector<ValueType>& types) { check_block_body(b, types); });
  }

  void run() {
    check_sections();
    check_hparams();
    check_requirements();
    check_weights();
    check_block_declarations();
    check_forward();
    check_unused_blocks();  // first: an unused block may be why weights are unused
    check_unused_weights();
  }

 private:
  [[noreturn]] void fail(SourceLocation at, std::string message) const {
    fail_at(model_.source, at, std::move(message));
  }

  // Each file may have each section once; a definition that `use`s another may have
  // sections of the same names as the base's (that is how it overrides them), and gets
  // its forward section from the base when it has none.
  void check_sections() {
    std::map<std::pair<std::string, std::string>, SourceLocation> seen;  // (file, keyword)
    bool has_forward = false;
    for (const SectionMark& s : model_.sections) {
      has_forward = has_forward || s.keyword == "forward";
      const auto [it, fresh] = seen.emplace(std::make_pair(model_.source.file_at(s.loc.offset), s.keyword), s.loc);
      if (!fresh) {
        fail(s.loc, "duplicate section " + quoted(s.keyword) + " (the first is at " +
                        line_of(it->second) + ")");
      }
    }
    if (!has_forward) fail(model_.name_loc, "the model has no forward section");
  }

  void check_hparams() {
    for (size_t i = 0; i < model_.hparams.size(); ++i) {
      HParamDecl& h = model_.hparams[i];
      if (const std::string reserved = reserved_name(h.name); !reserved.empty()) fail(h.loc, reserved);
      for (size_t j = 0; j < i; ++j) {
        if (model_.hparams[j].name == h.name) {
          fail(h.loc, "duplicate hyper-parameter " + quoted(h.name) + " (first defined at " +
                          line_of(model_.hparams[j].loc) + ")");
        }
      }
      NameScope scope{Section::HParams, i, {}, nullptr};
      exprs_.expect(*h.value, scope, ValueType::Scalar, "hyper-parameter " + quoted(h.name));
    }
  }

  // `require a, b`: numbers over any hyper-parameters of the section (each is checked
  // once they all have values), reading nothing else.
  void check_requirements() {
    for (Requirement& r : model_.requirements) {
      const NameScope scope{Section::Requirement, model_.hparams.size(), {}, nullptr};
      exprs_.expect(*r.condition, scope, ValueType::Scalar, "a condition of 'require'");
      if (names_in(*r.condition).empty()) {
        fail(r.loc, "the requirement '" + collapse_blanks(model_.source.slice(r.condition->begin, r.condition->end)) +
                        "' names no hyper-parameter, so it checks nothing");
      }
    }
  }

  // The scope of the weights section: every hyper-parameter, and the group's index.
  NameScope weights_scope(int group) const {
    NameScope scope{Section::Weights, model_.hparams.size(), {}, nullptr};
    if (group >= 0) scope.loop_vars.push_back(model_.layer_groups[static_cast<size_t>(group)].range.var);
    return scope;
  }

  void check_range(Range& r, const NameScope& outer, const std::string& what) {
    exprs_.expect(*r.begin, outer, ValueType::Scalar, "the first index of " + what);
    exprs_.expect(*r.end, outer, ValueType::Scalar, "the end index of " + what);
    check_new_name(r.var, r.var_loc, outer, "loop variable");
  }

  // A loop variable or forward variable may not hide another name.
  void check_new_name(const std::string& name, SourceLocation at, const NameScope& scope,
                      std::string_view what) const {
    std::string hidden;
    if (const HParamDecl* h = model_.find_hparam(name)) hidden = "the hyper-parameter at " + line_of(h->loc);
    else if (const WeightDecl* w = model_.find_weight(name)) hidden = "the weight at " + line_of(w->loc);
    else if (scope.has_loop_var(name)) hidden = "an enclosing loop variable";
    else if (name == "arch") hidden = "the {arch} placeholder";
    else if (name == kHfFormatName) hidden = "the predefined 'hf'";
    else if (name == "true" || name == "false") hidden = "the flag " + quoted(name);
    if (!hidden.empty()) {
      fail(at, std::string(what) + " " + quoted(name) + " would hide " + hidden + "; choose another name");
    }
  }

  void check_weights() {
    for (LayerGroup& g : model_.layer_groups) {
      check_range(g.range, weights_scope(-1), "a layer group");
    }
    for (size_t i = 0; i < model_.weights.size(); ++i) {
      WeightDecl& w = model_.weights[i];
      for (size_t j = 0; j < i; ++j) {
        if (model_.weights[j].name == w.name) {
          fail(w.loc, "duplicate weight " + quoted(w.name) + " (first declared at " +
                          line_of(model_.weights[j].loc) + ")");
        }
      }
      if (w.name == kHfFormatName || w.name == "true" || w.name == "false") fail(w.loc, reserved_name(w.name));
      if (w.name == kAbsentFallback) fail(w.loc, "'none' is reserved: `else none` marks an optional weight");
      if (const HParamDecl* h = model_.find_hparam(w.name)) {
        fail(w.loc, "weight " + quoted(w.name) + " has the name of the hyper-parameter at " + line_of(h->loc));
      }
      const NameScope scope = weights_scope(w.group);
      for (ExprPtr& d : w.dims) {
        exprs_.expect(*d, scope, ValueType::Scalar, "a dimension of " + quoted(w.name));
      }
      exprs_.check_template(w.file_name, w.file_name_loc, scope);
      if (!w.hf_name.empty()) exprs_.check_template(w.hf_name, w.hf_name_loc, scope, w.dims.size() >= 2);
      if (!w.fallback.empty() && w.fallback != kAbsentFallback) check_fallback(i);
    }
  }

  // `else NAME` must name a weight declared earlier (so fallbacks cannot loop); a
  // single tensor cannot fall back to a per-layer one.
  void check_fallback(size_t index) const {
    const WeightDecl& w = model_.weights[index];
    const WeightDecl* target = nullptr;
    for (size_t j = 0; j < index; ++j) {
      if (model_.weights[j].name == w.fallback) target = &model_.weights[j];
    }
    if (!target) {
      if (model_.find_weight(w.fallback)) {
        fail(w.fallback_loc, "fallback " + quoted(w.fallback) + " must be declared before " + quoted(w.name));
      }
      std::vector<std::string> names;
      for (size_t j = 0; j < index; ++j) names.push_back(model_.weights[j].name);
      fail(w.fallback_loc, "undefined weight " + quoted(w.fallback) + did_you_mean(w.fallback, names));
    }
    if (w.group < 0 && target->group >= 0) {
      fail(w.fallback_loc, quoted(w.name) + " is one tensor but its fallback " + quoted(w.fallback) +
                               " is one per layer");
    }
  }

  // Names and shapes of blocks; their bodies are checked at their first call, when the
  // types of their parameters are known.
  void check_block_declarations() {
    for (size_t i = 0; i < model_.blocks.size(); ++i) {
      const BlockDef& b = model_.blocks[i];
      for (size_t j = 0; j < i; ++j) {
        if (model_.blocks[j].name == b.name) {
          fail(b.loc, "duplicate block " + quoted(b.name) + " (first defined at " + line_of(model_.blocks[j].loc) + ")");
        }
      }
      if (find_op(b.name) || find_scalar_function(b.name)) {
        fail(b.loc, "block " + quoted(b.name) + " has the name of a built-in op; choose another name");
      }
      const NameScope outer{Section::Forward, model_.hparams.size(), {}, nullptr};
      check_new_name(b.name, b.loc, outer, "block");
      for (size_t p = 0; p < b.params.size(); ++p) {
        check_new_name(b.params[p], b.param_locs[p], outer, "parameter");
        for (size_t q = 0; q < p; ++q) {
          if (b.params[q] == b.params[p]) fail(b.param_locs[p], "duplicate parameter " + quoted(b.params[p]));
        }
      }
      const auto is_return = [](const Statement& s) { return s.kind == Statement::Kind::Return; };
      if (b.body.empty() || !is_return(b.body.back())) {
        fail(b.loc, "block " + quoted(b.name) + " must end with 'return EXPRESSION', its value");
      }
      for (size_t k = 0; k + 1 < b.body.size(); ++k) {
        if (is_return(b.body[k])) fail(b.body[k].loc, "'return' must be the last statement of block " + quoted(b.name));
      }
    }
  }

  // The body of `block` with number parameters as loop-like names and tensor
  // parameters as variables; it sees no variables of its callers.
  void check_block_body(const BlockDef& block, const std::vector<ValueType>& types) {
    VariableScopes saved = std::move(variables_);
    variables_.assign(1, {});
    NameScope scope{Section::Forward, model_.hparams.size(), {}, &variables_};
    scope.block_index = static_cast<int>(&block - model_.blocks.data());
    for (size_t p = 0; p < block.params.size(); ++p) {
      if (types[p] == ValueType::Scalar) scope.loop_vars.push_back(block.params[p]);
      else variables_.front().emplace(block.params[p], Variable{block.param_locs[p], ValueType::Tensor});
    }
    check_block(model_.blocks[static_cast<size_t>(scope.block_index)].body, scope);
    variables_ = std::move(saved);
  }

  // Whether `loc` is in the definition's own file, not in one it reuses (`use`): a
  // variant may leave some of a base's blocks and weights unused, having replaced
  // their callers (the experts of a family with dense and MoE models).
  bool in_own_file(const SourceLocation& loc) const {
    return model_.source.parts.empty() || loc.offset < model_.source.parts.front().begin;
  }

  void check_unused_blocks() const {
    for (const BlockDef& b : model_.blocks) {
      if (in_own_file(b.loc) && !exprs_.is_called(b)) {
        fail(b.loc, "block " + quoted(b.name) + " is defined but never used");
      }
    }
  }

  void check_forward() {
    variables_.assign(1, {});
    NameScope scope{Section::Forward, model_.hparams.size(), {}, &variables_};
    check_block(model_.forward, scope);
    const auto logits = variables_.front().find("logits");
    if (logits == variables_.front().end()) {
      fail(model_.forward_loc,
           "the forward section does not assign 'logits', the model's output");
    }
    if (logits->second.type != ValueType::Tensor) {
      fail(logits->second.loc, "'logits', the model's output, must be a tensor, but is a number");
    }
  }

  void check_block(std::vector<Statement>& block, NameScope& scope) {
    for (Statement& s : block) {
      if (s.kind == Statement::Kind::For) {
        check_range(s.range, scope, "a for loop");
        if (scope.find_variable(s.range.var)) {
          fail(s.range.var_loc, "loop variable " + quoted(s.range.var) + " would hide a variable; choose another name");
        }
        scope.loop_vars.push_back(s.range.var);
        variables_.emplace_back();
        check_block(s.body, scope);
        variables_.pop_back();
        scope.loop_vars.pop_back();
        continue;
      }
      if (s.kind == Statement::Kind::Return) {
        exprs_.expect(*s.value, scope, ValueType::Tensor, "the value of a block");
        continue;
      }
      check_assignment(s, scope);
    }
  }

  // `name = expression`: a tensor, or a number named for the statements after it. A
  // name keeps its kind: a tensor variable cannot become a number, nor the reverse.
  void check_assignment(Statement& s, const NameScope& scope) {
    const ValueType type = exprs_.check(*s.value, scope);
    if (type != ValueType::Tensor && type != ValueType::Scalar) {
      fail(s.value->loc, "the value of " + quoted(s.target) + " must be a tensor or a number, but '" +
                             std::string(model_.source.slice(s.value->begin, s.value->end)) + "' is " +
                             std::string(describe_type(type)));
    }
    const Variable* known = scope.find_variable(s.target);
    if (!known) {
      check_new_name(s.target, s.loc, scope, type == ValueType::Scalar ? "number" : "variable");
      variables_.back().emplace(s.target, Variable{s.loc, type});
    } else if (known->type != type) {
      fail(s.value->loc, quoted(s.target) + " is " + std::string(describe_type(known->type)) + " (" +
                             line_of(known->loc) + "), so it cannot be given " + std::string(describe_type(type)) +
                             "; choose another name");
    }
  }

  // A weight is used when the forward section reads it, or reads a weight that falls back to it.
  void check_unused_weights() {
    for (auto w = model_.weights.rbegin(); w != model_.weights.rend(); ++w) {
      if (used_weights_.count(w->name) && !w->fallback.empty() && w->fallback != kAbsentFallback) {
        used_weights_.insert(w->fallback);
      }
    }
    for (const WeightDecl& w : model_.weights) {
      if (in_own_file(w.loc) && !used_weights_.count(w.name)) {
        fail(w.loc, "weight " + quoted(w.name) + " is declared but never used");
      }
    }
  }

  ModelDef& model_;
  std::set<std::string> used_weights_;
  ExprChecker exprs_;
  VariableScopes variables_;
};

}  // namespace

void check_model(ModelDef& model) { ModelChecker(model).run(); }

}  // namespace tessera::dsl
