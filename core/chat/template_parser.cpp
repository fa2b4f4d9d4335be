#include "core/chat/template_parser.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <optional>

namespace tessera::chat {

TemplateError::TemplateError(const std::string& name, SourcePos p, const std::string& message)
    : std::runtime_error(name + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) + ": " + message),
      pos(p) {}

namespace {

// ---- segments: text and tags, whitespace control applied -------------------------

struct Segment {
  enum class Kind { Text, Expr, Stmt };
  Kind kind = Kind::Text;
  std::string text;  // the text, or the tag's content without delimiters and - / +
  size_t offset = 0;  // of the content in the source
};

class Source {
 public:
  Source(const std::string& text, const std::string& name) : text_(text), name_(name) {
    for (size_t i = 0; i < text_.size(); ++i) {
      if (text_[i] == '\n') line_starts_.push_back(i + 1);
    }
  }
  SourcePos pos_of(size_t offset) const {
    const auto line = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset) - line_starts_.begin();
    return {static_cast<int>(line), static_cast<int>(offset - line_starts_[static_cast<size_t>(line - 1)]) + 1};
  }
  [[noreturn]] void fail(size_t offset, const std::string& message) const {
    throw TemplateError(name_, pos_of(offset), message);
  }
  const std::string& text() const { return text_; }

 private:
  const std::string& text_;
  const std::string& name_;
  std::vector<size_t> line_starts_{0};  // offset of each line's first byte
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Where a tag's closing delimiter is, skipping string literals ({{ "}}" }} is a tag
// that prints two braces); npos when it is never closed.
size_t find_close(const std::string& s, size_t from, const std::string& close) {
  for (size_t k = from; k + 1 < s.size(); ++k) {
    if (s[k] == '\'' || s[k] == '"') {
      const char quote = s[k];
      for (++k; k < s.size() && s[k] != quote; ++k) {
        if (s[k] == '\\') ++k;
      }
      if (k >= s.size()) return std::string::npos;
      continue;
    }
    if (s.compare(k, close.size(), close) == 0) return k;
  }
  return std::string::npos;
}

std::vector<Segment> split_segments(const Source& src) {
  const std::string& s = src.text();
  std::vector<Segment> out;
  bool strip_next = false;  // the previous tag ended with '-'
  bool trim_next = false;   // the previous tag was a block tag without '+': drop one newline
  size_t i = 0;
  while (i <= s.size()) {
    size_t open = s.find('{', i);
    while (open != std::string::npos && open + 1 < s.size() && s[open + 1] != '{' && s[open + 1] != '%' &&
           s[open + 1] != '#') {
      open = s.find('{', open + 1);
    }
    if (open + 1 >= s.size()) open = std::string::npos;
    std::string text = s.substr(i, open == std::string::npos ? std::string::npos : open - i);
    if (strip_next) {
      size_t k = 0;
      while (k < text.size() && is_space(text[k])) ++k;
      text.erase(0, k);
    } else if (trim_next) {
      if (text.rfind("\r\n", 0) == 0) {
        text.erase(0, 2);
      } else if (!text.empty() && text[0] == '\n') {
        text.erase(0, 1);
      }
    }
    strip_next = trim_next = false;
    if (open == std::string::npos) {
      if (!text.empty()) out.push_back({Segment::Kind::Text, text, i});
      break;
    }
    const char type = s[open + 1];
    const std::string close = type == '{' ? "}}" : type == '%' ? "%}" : "#}";
    size_t content = open + 2;
    const bool minus_before = content < s.size() && s[content] == '-';
    const bool plus_before = content < s.size() && s[content] == '+';
    if (minus_before || plus_before) ++content;
    const size_t end = type == '#' ? s.find(close, content) : find_close(s, content, close);
    if (end == std::string::npos) {
      src.fail(open, std::string("unclosed ") + (type == '{' ? "'{{'" : type == '%' ? "'{%'" : "comment"));
    }
    size_t content_end = end;
    const bool minus_after = content_end > content && s[content_end - 1] == '-';
    const bool plus_after = content_end > content && s[content_end - 1] == '+';
    if (minus_after || plus_after) --content_end;
    const bool block = type != '{';
    if (minus_before) {
      while (!text.empty() && is_space(text.back())) text.pop_back();
    } else if (block && !plus_before) {
      // lstrip_blocks: the spaces and tabs from the start of a line to the tag go.
      size_t ws = open;
      while (ws > i && (s[ws - 1] == ' ' || s[ws - 1] == '\t')) --ws;
      if (ws == 0 || s[ws - 1] == '\n') text.erase(text.size() - std::min(text.size(), open - ws));
    }
    if (!text.empty()) out.push_back({Segment::Kind::Text, text, i});
    if (type != '#') {
      out.push_back({type == '{' ? Segment::Kind::Expr : Segment::Kind::Stmt, s.substr(content, content_end - content),
                     content});
    }
    strip_next = minus_after;
    trim_next = block && !plus_after && !minus_after;
    i = end + 2;
  }
  return out;
}

// ---- expression tokens -------------------------------------------------------------

struct Token {
  enum class Kind { Name, Int, Float, String, Op, End };
  Kind kind = Kind::End;
  std::string text;
  size_t offset = 0;
  Value value;
};

std::vector<Token> tokenize(const Source& src, const std::string& s, size_t base) {
  std::vector<Token> out;
  size_t i = 0;
  static const char* const kOps[] = {"//", "**", "==", "!=", "<=", ">=", "(", ")", "[", "]", "{", "}", ",", ":",
                                     ".",  "|",  "~",  "+",  "-",  "*",  "/", "%", "<", ">", "="};
  while (i < s.size()) {
    const char c = s[i];
    if (is_space(c)) {
      ++i;
      continue;
    }
    Token t;
    t.offset = base + i;
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      t.kind = Token::Kind::Name;
      t.text = s.substr(i, j - i);
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      bool is_float = false;
      if (j + 1 < s.size() && s[j] == '.' && std::isdigit(static_cast<unsigned char>(s[j + 1]))) {
        is_float = true;
        ++j;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      }
      const std::string text = s.substr(i, j - i);
      t.kind = is_float ? Token::Kind::Float : Token::Kind::Int;
      errno = 0;
      t.value = is_float ? Value(std::strtod(text.c_str(), nullptr))
                         : Value(static_cast<int64_t>(std::strtoll(text.c_str(), nullptr, 10)));
      if (!is_float && errno == ERANGE) src.fail(t.offset, "the integer " + text + " does not fit in 64 bits");
      i = j;
    } else if (c == '\'' || c == '"') {
      std::string v;
      size_t j = i + 1;
      for (; j < s.size() && s[j] != c; ++j) {
        if (s[j] != '\\' || j + 1 >= s.size()) {
          v += s[j];
          continue;
        }
        const char e = s[++j];
        switch (e) {
          case 'n': v += '\n'; break;
          case 't': v += '\t'; break;
          case 'r': v += '\r'; break;
          case '\\': v += '\\'; break;
          case '\'': v += '\''; break;
          case '"': v += '"'; break;
          default: v += '\\'; v += e;
        }
      }
      if (j >= s.size()) src.fail(base + i, "unterminated string");
      t.kind = Token::Kind::String;
      t.value = Value(v);
      i = j + 1;
    } else {
      bool found = false;
      for (const char* op : kOps) {
        const size_t n = std::char_traits<char>::length(op);
        if (s.compare(i, n, op) == 0) {
          t.kind = Token::Kind::Op;
          t.text = op;
          i += n;
          found = true;
          break;
        }
      }
      if (!found) src.fail(base + i, std::string("unexpected character '") + c + "'");
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.offset = base + s.size();
  out.push_back(end);
  return out;
}

// ---- the parser ---------------------------------------------------------------------

class ExprParser {
 public:
  ExprParser(const Source& src, std::vector<Token> tokens) : src_(src), t_(std::move(tokens)) {}

  bool at_end() const { return peek().kind == Token::Kind::End; }
  const Token& peek(size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  bool is_op(const char* op, size_t k = 0) const { return peek(k).kind == Token::Kind::Op && peek(k).text == op; }
  bool is_name(const char* n, size_t k = 0) const { return peek(k).kind == Token::Kind::Name && peek(k).text == n; }
  Token next() { return t_[std::min(i_++, t_.size() - 1)]; }
  void expect_op(const char* op) {
    if (!is_op(op)) fail(std::string("expected '") + op + "'");
    ++i_;
  }
  std::string expect_name() {
    if (peek().kind != Token::Kind::Name) fail("expected a name");
    return next().text;
  }
  [[noreturn]] void fail(const std::string& message) const {
    const Token& t = peek();
    src_.fail(t.offset, message + (t.kind == Token::Kind::End ? " at the end of the tag" : ", got '" + text_of(t) + "'"));
  }
  void expect_end() {
    if (!at_end()) fail("unexpected text");
  }

  ExprPtr expression() {
    const DepthGuard guard(*this);
    ExprPtr e = or_expr();
    if (is_name("if")) {
      auto c = make(Expr::Kind::Conditional, e->pos);
      next();
      ExprPtr cond = or_expr();
      ExprPtr other = is_name("else") ? (next(), expression()) : nullptr;
      c->items.push_back(std::move(e));
      c->items.push_back(std::move(cond));
      c->items.push_back(std::move(other));
      return c;
    }
    return e;
  }
  ExprPtr or_expr() { return left_assoc([this] { return and_expr(); }, {"or"}, true); }

 private:
  static std::string text_of(const Token& t) {
    if (t.kind == Token::Kind::String) return t.value.repr();
    if (t.kind == Token::Kind::Int || t.kind == Token::Kind::Float) return t.value.str();
    return t.text;
  }
  ExprPtr make(Expr::Kind k, SourcePos pos) const {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->pos = pos;
    return e;
  }
  SourcePos here() const { return src_.pos_of(peek().offset); }

  template <typename Sub>
  ExprPtr left_assoc(Sub sub, std::initializer_list<const char*> ops, bool names) {
    ExprPtr left = sub();
    for (;;) {
      const char* found = nullptr;
      for (const char* op : ops) {
        if (names ? is_name(op) : is_op(op)) found = op;
      }
      if (!found) return left;
      auto b = make(Expr::Kind::Binary, here());
      next();
      b->name = found;
      b->items.push_back(std::move(left));
      b->items.push_back(sub());
      left = std::move(b);
    }
  }
  ExprPtr and_expr() { return left_assoc([this] { return not_expr(); }, {"and"}, true); }
  ExprPtr not_expr() {
    const DepthGuard guard(*this);
    if (is_name("not")) {
      auto u = make(Expr::Kind::Unary, here());
      next();
      u->name = "not";
      u->items.push_back(not_expr());
      return u;
    }
    return compare();
  }
  ExprPtr compare() {
    ExprPtr left = math1();
    for (;;) {
      std::string op;
      if (is_op("==") || is_op("!=") || is_op("<") || is_op(">") || is_op("<=") || is_op(">=")) {
        op = peek().text;
        next();
      } else if (is_name("in")) {
        op = "in";
        next();
      } else if (is_name("not") && is_name("in", 1)) {
        op = "not in";
        next();
        next();
      } else {
        return left;
      }
      auto b = make(Expr::Kind::Binary, left->pos);
      b->name = op;
      b->items.push_back(std::move(left));
      b->items.push_back(math1());
      left = std::move(b);
    }
  }
  ExprPtr math1() { return left_assoc([this] { return concat(); }, {"+", "-"}, false); }
  ExprPtr concat() { return left_assoc([this] { return math2(); }, {"~"}, false); }
  ExprPtr math2() { return left_assoc([this] { return power(); }, {"*", "/", "//", "%"}, false); }
  ExprPtr power() { return left_assoc([this] { return unary(); }, {"**"}, false); }
  ExprPtr unary() {
    const DepthGuard guard(*this);
    if (is_op("-") || is_op("+")) {
      auto u = make(Expr::Kind::Unary, here());
      u->name = next().text;
      u->items.push_back(unary());
      return filters(std::move(u));
    }
    return filters(postfix(primary()));
  }
  void call_args(Expr& e) {
    expect_op("(");
    while (!is_op(")")) {
      if (peek().kind == Token::Kind::Name && is_op("=", 1)) {
        std::string key = next().text;
        next();
        e.keywords.emplace_back(std::move(key), expression());
      } else {
        e.items.push_back(expression());
      }
      if (!is_op(",")) break;
      next();
    }
    expect_op(")");
  }
  ExprPtr filters(ExprPtr e) {
    for (;;) {
      if (is_op("|")) {
        auto f = make(Expr::Kind::Filter, here());
        next();
        f->name = expect_name();
        f->items.push_back(std::move(e));
        if (is_op("(")) call_args(*f);
        e = std::move(f);
      } else if (is_name("is")) {
        auto t = make(Expr::Kind::Test, here());
        next();
        if (is_name("not")) {
          next();
          t->negated = true;
        }
        t->name = peek().kind == Token::Kind::Name ? next().text : "";
        if (t->name.empty()) fail("expected a test name after 'is'");
        t->items.push_back(std::move(e));
        if (is_op("(")) {
          call_args(*t);
        } else if (peek().kind == Token::Kind::String || peek().kind == Token::Kind::Int) {
          t->items.push_back(primary());  // `is divisibleby 3`, `is sameas 'x'`
        }
        e = std::move(t);
      } else {
        return e;
      }
    }
  }
  ExprPtr postfix(ExprPtr e) {
    for (;;) {
      if (is_op(".")) {
        auto a = make(Expr::Kind::Attribute, here());
        next();
        a->name = peek().kind == Token::Kind::Int ? next().value.str() : expect_name();
        a->items.push_back(std::move(e));
        e = std::move(a);
      } else if (is_op("[")) {
        const SourcePos pos = here();
        next();
        ExprPtr first = is_op(":") ? nullptr : expression();
        if (is_op(":")) {
          auto s = make(Expr::Kind::Slice, pos);
          next();
          ExprPtr second = is_op("]") || is_op(":") ? nullptr : expression();
          ExprPtr step;
          if (is_op(":")) {
            next();
            if (!is_op("]")) step = expression();
          }
          s->items.push_back(std::move(e));
          s->items.push_back(std::move(first));
          s->items.push_back(std::move(second));
          s->items.push_back(std::move(step));
          e = std::move(s);
        } else {
          auto s = make(Expr::Kind::Subscript, pos);
          s->items.push_back(std::move(e));
          s->items.push_back(std::move(first));
          e = std::move(s);
        }
        expect_op("]");
      } else if (is_op("(")) {
        auto c = make(Expr::Kind::Call, e->pos);  // errors point at the callee
        c->items.push_back(std::move(e));
        call_args(*c);
        e = std::move(c);
      } else {
        return e;
      }
    }
  }
  ExprPtr primary() {
    const Token& t = peek();
    const SourcePos pos = here();
    switch (t.kind) {
      case Token::Kind::String: {
        auto e = make(Expr::Kind::Literal, pos);
        std::string s = next().value.as_string();
        while (peek().kind == Token::Kind::String) s += next().value.as_string();  // adjacent literals join
        e->value = Value(s);
        return e;
      }
      case Token::Kind::Int:
      case Token::Kind::Float: {
        auto e = make(Expr::Kind::Literal, pos);
        e->value = next().value;
        return e;
      }
      case Token::Kind::Name: {
        const std::string n = next().text;
        auto e = make(Expr::Kind::Literal, pos);
        if (n == "true" || n == "True") {
          e->value = Value(true);
        } else if (n == "false" || n == "False") {
          e->value = Value(false);
        } else if (n == "none" || n == "None") {
          e->value = Value::none();
        } else {
          e->kind = Expr::Kind::Name;
          e->name = n;
        }
        return e;
      }
      case Token::Kind::Op:
        if (t.text == "(") {
          next();
          ExprPtr e = expression();
          if (is_op(",")) fail("tuples are not supported");
          expect_op(")");
          return e;
        }
        if (t.text == "[") {
          auto e = make(Expr::Kind::List, pos);
          next();
          while (!is_op("]")) {
            e->items.push_back(expression());
            if (!is_op(",")) break;
            next();
          }
          expect_op("]");
          return e;
        }
        if (t.text == "{") {
          auto e = make(Expr::Kind::Dict, pos);
          next();
          while (!is_op("}")) {
            e->items.push_back(expression());
            expect_op(":");
            e->items.push_back(expression());
            if (!is_op(",")) break;
            next();
          }
          expect_op("}");
          return e;
        }
        break;
      case Token::Kind::End: break;
    }
    fail("expected an expression");
  }

  // Bounds the recursion: a hostile template cannot exhaust the stack.
  struct DepthGuard {
    explicit DepthGuard(ExprParser& p) : parser(p) {
      if (++parser.depth_ > kMaxDepth) parser.fail("expression nested more than " + std::to_string(kMaxDepth) + " deep");
    }
    ~DepthGuard() { --parser.depth_; }
    ExprParser& parser;
  };
  static constexpr int kMaxDepth = 200;

  const Source& src_;
  std::vector<Token> t_;
  size_t i_ = 0;
  int depth_ = 0;
};

class TemplateParser {
 public:
  TemplateParser(const Source& src, std::vector<Segment> segments) : src_(src), seg_(std::move(segments)) {}

  NodeList parse_all() {
    NodeList body;
    const std::string stop = parse_body(body, {});
    if (!stop.empty()) src_.fail(seg_[i_ - 1].offset, "unexpected '" + stop + "'");
    return body;
  }

 private:
  ExprParser expr_parser(const Segment& s) const { return ExprParser(src_, tokenize(src_, s.text, s.offset)); }

  // Parses nodes into `out` until a statement whose keyword is in `stops` (returned,
  // its segment consumed, its parser left in `stop_parser_`), or the end ("").
  std::string parse_body(NodeList& out, std::initializer_list<const char*> stops) {
    if (++depth_ > kMaxDepth) src_.fail(seg_[i_ - 1].offset, "blocks nested more than " + std::to_string(kMaxDepth) + " deep");
    struct Leave {
      int& depth;
      ~Leave() { --depth; }
    } leave{depth_};
    while (i_ < seg_.size()) {
      const Segment& s = seg_[i_++];
      Node n;
      n.pos = src_.pos_of(s.offset);
      if (s.kind == Segment::Kind::Text) {
        n.text = s.text;
        out.push_back(std::move(n));
        continue;
      }
      ExprParser p = expr_parser(s);
      if (s.kind == Segment::Kind::Expr) {
        n.kind = Node::Kind::Output;
        n.expr = p.expression();
        p.expect_end();
        out.push_back(std::move(n));
        continue;
      }
      const std::string keyword = p.expect_name();
      for (const char* stop : stops) {
        if (keyword == stop) {
          stop_parser_.emplace(std::move(p));
          return keyword;
        }
      }
      if (keyword == "if") {
        parse_if(n, p);
      } else if (keyword == "for") {
        parse_for(n, p);
      } else if (keyword == "set") {
        parse_set(n, p);
      } else if (keyword == "break" || keyword == "continue") {
        p.expect_end();
        n.kind = keyword == "break" ? Node::Kind::Break : Node::Kind::Continue;
      } else if (keyword == "generation") {
        // Hugging Face's marker of the assistant's text (for training masks): its body
        // renders as it is.
        p.expect_end();
        NodeList body;
        if (parse_body(body, {"endgeneration"}) != "endgeneration") src_.fail(s.offset, "'generation' is never closed");
        for (Node& b : body) out.push_back(std::move(b));
        continue;
      } else {
        src_.fail(s.offset, "unsupported statement '" + keyword + "'");
      }
      out.push_back(std::move(n));
    }
    return "";
  }

  void parse_if(Node& n, ExprParser& p) {
    n.kind = Node::Kind::If;
    const size_t start = seg_[i_ - 1].offset;
    ExprPtr cond = p.expression();
    p.expect_end();
    for (;;) {
      NodeList body;
      const std::string stop = parse_body(body, {"elif", "else", "endif"});
      n.branches.emplace_back(std::move(cond), std::move(body));
      if (stop.empty()) src_.fail(start, "'if' is never closed with 'endif'");
      ExprParser& sp = *stop_parser_;
      if (stop == "endif") {
        sp.expect_end();
        return;
      }
      if (stop == "else") {
        sp.expect_end();
        NodeList else_body;
        if (parse_body(else_body, {"endif"}) != "endif") src_.fail(start, "'if' is never closed with 'endif'");
        stop_parser_->expect_end();
        n.branches.emplace_back(nullptr, std::move(else_body));
        return;
      }
      cond = sp.expression();  // elif
      sp.expect_end();
    }
  }

  void parse_for(Node& n, ExprParser& p) {
    n.kind = Node::Kind::For;
    const size_t start = seg_[i_ - 1].offset;
    n.targets.push_back(p.expect_name());
    while (p.is_op(",")) {
      p.next();
      n.targets.push_back(p.expect_name());
    }
    if (!p.is_name("in")) p.fail("expected 'in'");
    p.next();
    n.expr = p.or_expr();
    if (p.is_name("if")) {
      p.next();
      n.filter = p.or_expr();
    }
    p.expect_end();
    const std::string stop = parse_body(n.body, {"else", "endfor"});
    if (stop.empty()) src_.fail(start, "'for' is never closed with 'endfor'");
    stop_parser_->expect_end();
    if (stop == "else" && parse_body(n.else_body, {"endfor"}) != "endfor") {
      src_.fail(start, "'for' is never closed with 'endfor'");
    }
    if (stop == "else") stop_parser_->expect_end();
  }

  void parse_set(Node& n, ExprParser& p) {
    n.kind = Node::Kind::Set;
    n.targets.push_back(p.expect_name());
    if (p.is_op(".")) {
      p.next();
      n.targets.push_back(p.expect_name());
      n.set_field = true;
    }
    if (!p.is_op("=")) p.fail("expected '=' (block assignments are not supported)");
    p.next();
    n.expr = p.expression();
    p.expect_end();
  }

  static constexpr int kMaxDepth = 100;

  const Source& src_;
  std::vector<Segment> seg_;
  size_t i_ = 0;
  int depth_ = -1;  // parse_all's body is depth 0
  std::optional<ExprParser> stop_parser_;
};

}  // namespace

NodeList parse_template(const std::string& source, const std::string& name) {
  const Source src(source, name);
  TemplateParser parser(src, split_segments(src));
  return parser.parse_all();
}

}  // namespace tessera::chat
