// Chat templates against Python's jinja2 (rendered as Hugging Face renders them, by
// tools/fixtures/make_chat_template_fixtures.py): fourteen real templates over four
// conversations, with and without the generation prompt, byte for byte; the errors a
// template raises; and the interpreter's own rules (whitespace control, scoping,
// filters, positions in errors, runaway templates).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/chat/chat_template.h"
#include "core/chat/template_render.h"
#include "support/testdata.h"

namespace tessera::chat {
namespace {

using ::testing::HasSubstr;

std::string fixture(const std::string& name) {
  std::ifstream in(test::source_path("tests/fixtures/chat_templates/" + name), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ChatTemplate, RendersRealTemplatesExactlyAsJinja2) {
  const auto doc = nlohmann::json::parse(fixture("cases.json"));
  std::vector<std::vector<ChatMessage>> conversations;
  for (const auto& c : doc["conversations"]) {
    std::vector<ChatMessage> messages;
    for (const auto& m : c) messages.push_back({m["role"], m["content"]});
    conversations.push_back(std::move(messages));
  }
  int checked = 0, errors = 0;
  for (const auto& c : doc["cases"]) {
    const std::string name = c["template"];
    const ChatTemplate t(fixture(name + ".jinja"), name);
    ChatInputs in;
    in.messages = conversations.at(c["conversation"].get<size_t>());
    in.add_generation_prompt = c["add_generation_prompt"];
    in.bos_token = doc["bos_token"];
    in.eos_token = doc["eos_token"];
    const std::string what = name + " conversation " + std::to_string(c["conversation"].get<int>()) +
                             (in.add_generation_prompt ? " +prompt" : "");
    if (c.contains("error")) {
      ++errors;
      try {
        t.render(in);
        ADD_FAILURE() << what << ": rendered, but jinja2 raised " << c["error"];
      } catch (const TemplateError& e) {
        EXPECT_THAT(e.what(), HasSubstr(c["error"].get<std::string>().substr(0, 20))) << what;
      }
      continue;
    }
    EXPECT_EQ(t.render(in), c["output"].get<std::string>()) << what;
    ++checked;
  }
  EXPECT_EQ(checked, 104);
  EXPECT_EQ(errors, 8);
}

std::string render(const std::string& source, Dict vars = {}) {
  return render_template(parse_template(source, "t"), Value(std::move(vars)), "t");
}

TEST(ChatTemplate, WhitespaceControlFollowsTrimAndLstripBlocks) {
  EXPECT_EQ(render("a\n  {% if true %}\n  b\n  {% endif %}\nc"), "a\n  b\nc");
  EXPECT_EQ(render("a  {{- ' b ' -}}  c"), "a b c");
  EXPECT_EQ(render("x {%- if true %} y{% endif -%}  z"), "x yz");
  EXPECT_EQ(render("a\n{# a comment #}\nb"), "a\nb");
  EXPECT_EQ(render("a\n  {%+ if true %}b{% endif +%}\nc"), "a\n  b\nc");
}

TEST(ChatTemplate, SetInALoopStaysInItAndANamespaceCarriesOut) {
  EXPECT_EQ(render("{% set x = 1 %}{% for i in [1, 2] %}{% set x = x + i %}{{ x }}{% endfor %}|{{ x }}"), "23|1");
  EXPECT_EQ(render("{% set ns = namespace(n=0) %}{% for i in [1, 2, 3] %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}"),
            "6");
}

TEST(ChatTemplate, LoopVariablesFiltersTestsAndMethods) {
  EXPECT_EQ(render("{% for m in ms %}{{ loop.index0 }}{{ 'F' if loop.first }}{{ 'L' if loop.last }},{% endfor %}",
                   {{"ms", Value(List{Value(1), Value(2), Value(3)})}}),
            "0F,1,2L,");
  EXPECT_EQ(render("{{ '  hi  ' | trim }}|{{ [1, 2] | length }}|{{ {'a': [1, 'x']} | tojson }}|{{ none }}|{{ true }}"),
            "hi|2|{\"a\": [1, \"x\"]}|None|True");
  EXPECT_EQ(render("{{ x is defined }}{{ y is not defined }}{{ 'ab'.upper() }}{{ 'a,b'.split(',')[-1] }}{{ 'x' in 'xyz' }}",
                   {{"x", Value(1)}}),
            "TrueTrueABbTrue");
  EXPECT_EQ(render("{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ 1 / 2 }} {{ 'a' ~ 1 }} {{ [1] + [2] }}"), "3 -4 1 0.5 a1 [1, 2]");
  EXPECT_EQ(render("{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}",
                   {{"d", Value(Dict{{"b", Value(2)}, {"a", Value(1)}})}}),
            "b=2;a=1;");
  EXPECT_EQ(render("{{ ms[1:] | length }}{{ (ms | first) }}{{ ms | join('-') }}",
                   {{"ms", Value(List{Value("p"), Value("q"), Value("r")})}}),
            "2pp-q-r");
}

TEST(ChatTemplate, ErrorsNameTheTemplateLineAndColumn) {
  EXPECT_THAT([] { ChatTemplate("ok\n{% if x %}never closed", "model.jinja"); },
              ::testing::ThrowsMessage<TemplateError>(HasSubstr("model.jinja:2:3: 'if' is never closed with 'endif'")));
  EXPECT_THAT([] { ChatTemplate("{{ 1 + }}", "m"); },
              ::testing::ThrowsMessage<TemplateError>(HasSubstr("m:1:8: expected an expression at the end of the tag")));
  EXPECT_THAT([] { ChatTemplate("{% macro f() %}{% endmacro %}", "m"); },
              ::testing::ThrowsMessage<TemplateError>(HasSubstr("m:1:3: unsupported statement 'macro'")));
  EXPECT_THAT([] { render("a\n  {{ raise_exception('roles must alternate') }}"); },
              ::testing::ThrowsMessage<TemplateError>(HasSubstr("t:2:6: the template raised: roles must alternate")));
  EXPECT_THAT([] { render("{{ x.y.z }}"); },
              ::testing::ThrowsMessage<TemplateError>(HasSubstr("'x' is undefined (reading .y)")));
}

TEST(ChatTemplate, DeepNestingIsRefusedNotACrash) {
  EXPECT_THAT([] { ChatTemplate("{{ " + std::string(100000, '(') + "1" + std::string(100000, ')') + " }}", "m"); },
              ::testing::ThrowsMessage<TemplateError>(HasSubstr("nested more than 200 deep")));
  EXPECT_THAT([] { ChatTemplate("{{ " + std::string(100000, '-') + "1 }}", "m"); },
              ::testing::ThrowsMessage<TemplateError>(HasSubstr("nested more than 200 deep")));
  std::string ifs;
  for (int i = 0; i < 5000; ++i) ifs += "{% if true %}";
  EXPECT_THAT([&] { ChatTemplate(ifs, "m"); },
              ::testing::ThrowsMessage<TemplateError>(HasSubstr("blocks nested more than 100 deep")));
}

TEST(ChatTemplate, ARunawayTemplateIsStopped) {
  const NodeList loop = parse_template("{% for i in range(1000) %}{% for j in range(1000) %}x{% endfor %}{% endfor %}", "t");
  EXPECT_THAT([&] { render_template(loop, Value(Dict{}), "t", size_t{1} << 30, 100000); },
              ::testing::ThrowsMessage<TemplateError>(HasSubstr("ran more than 100000 loop steps")));
  EXPECT_THAT([&] { render_template(loop, Value(Dict{}), "t", 1000); },
              ::testing::ThrowsMessage<TemplateError>(HasSubstr("the output passed 1000 bytes")));
}

// The limits below were found missing while fuzzing the renderer (tests/fuzz): each
// template was a crash (stack overflow, leak, out of memory) or undefined behaviour.
void expect_refused(const std::string& source, const std::string& message) {
  EXPECT_THAT([&] { render(source); }, ::testing::ThrowsMessage<TemplateError>(HasSubstr(message))) << source;
}

TEST(ChatTemplateLimits, IntegersPast64BitsAreAnError) {
  expect_refused("{{ 9223372036854775807 + 1 }}", "integer overflow: 9223372036854775807 + 1 does not fit in 64 bits");
  expect_refused("{{ -9223372036854775807 - 1 - 1 }}", "integer overflow: -9223372036854775808 - 1 does not fit");
  expect_refused("{{ 9223372036854775807 * 2 }}", "integer overflow: 9223372036854775807 * 2 does not fit");
  expect_refused("{{ (-9223372036854775807 - 1) // -1 }}", "integer overflow: -9223372036854775808 // -1 does not fit");
  expect_refused("{{ -(-9223372036854775807 - 1) }}", "integer overflow: -(-9223372036854775808) does not fit");
  expect_refused("{{ (-9223372036854775807 - 1) | abs }}", "integer overflow: abs(-9223372036854775808) does not fit");
  expect_refused("{{ 2 ** 64 }}", "integer overflow: 2 ** 64 does not fit");
  expect_refused("{{ 99999999999999999999 }}", "t:1:4: the integer 99999999999999999999 does not fit in 64 bits");
  expect_refused("{{ (10.0 ** 300 * 10.0 ** 300) | int }}", "cannot convert inf to a 64-bit integer");
}

TEST(ChatTemplateLimits, IntegersAtTheEdgesComputeAsPython) {
  EXPECT_EQ(render("{{ (-9223372036854775807 - 1) % -1 }} {{ 7 // -1 }} {{ 2 ** 62 }} {{ 2 ** -1 }} {{ 3 ** 0 }}"),
            "0 -7 4611686018427387904 0.5 1");
  // Found by the chat_template fuzz target: flooring the quotient overflowed x - q * y.
  EXPECT_EQ(render("{{ (-9223372036854775807 - 1) % 21 }} {{ (-9223372036854775807 - 1) // 21 }} {{ -7 % 3 }}"),
            "13 -439208192231179801 2");
  EXPECT_EQ(render("{{ 9 is divisibleby(-1) }} {{ (-9223372036854775807 - 1) is divisibleby(-1) }}"), "True True");
  EXPECT_EQ(render("{{ 'a,b,c'.split(',', -9223372036854775807 - 1) }} {{ 'a,b,c'.split(',', 1) }}"),
            "['a', 'b', 'c'] ['a', 'b,c']");
  EXPECT_EQ(render("{{ 'abc'[1::9223372036854775807] }}|{{ 'abc'[::-9223372036854775807 - 1] }}|{{ 'h\xc3\xa9llo'[1:3] }}"),
            "b|c|\xc3\xa9l");
  EXPECT_EQ(render("{{ range(0, 10, 3) | list }} {{ range(5, 0, -2) | list }} {{ range(3, 3) | list }}"),
            "[0, 3, 6, 9] [5, 3, 1] []");
  expect_refused("{{ range(-9223372036854775807 - 1, 9223372036854775807) }}", "range() too long");
  expect_refused("{{ range(0, 1, 0) }}", "range() step cannot be zero");
}

TEST(ChatTemplateLimits, ANamespaceCannotBeStoredInsideAValue) {
  // It could then hold itself: printing it would recurse forever, and it would never be freed.
  expect_refused("{% set ns = namespace(a=1) %}{% set ns.me = ns %}{{ ns }}",
                 "t:1:32: a namespace cannot be stored inside a list, dict or namespace");
  expect_refused("{% set ns = namespace(l=[]) %}{% set ns.l = [ns] %}", "a namespace cannot be stored inside");
  expect_refused("{% set ns = namespace() %}{{ {'k': ns} }}", "a namespace cannot be stored inside");
  expect_refused("{% set ns = namespace() %}{{ namespace(inner=ns) }}", "a namespace cannot be stored inside");
  EXPECT_EQ(render("{% set ns = namespace(n=1) %}{% set other = ns %}{% set other.n = 2 %}{{ ns.n }}"), "2");
}

TEST(ChatTemplateLimits, AValueNestedInALoopIsStopped) {
  expect_refused("{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}{% endfor %}",
                 "lists and dicts nested more than 64 deep");
}

TEST(ChatTemplateLimits, AValueGrownInALoopIsStopped) {
  expect_refused("{{ range(1000000) | length }}", "a value is larger than the limit of 16777216 bytes");
  expect_refused("{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
                 "a value is larger than the limit of 16777216 bytes");
  expect_refused("{% set ns = namespace(l=range(1000)) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}",
                 "a value is larger than the limit of 16777216 bytes");
  expect_refused("{% set ns = namespace(s='a') %}{% for i in range(40) %}{% set ns.s = ns.s.replace('a', '" +
                     std::string(1000, 'a') + "') %}{% endfor %}",
                 "a value is larger than the limit of 16777216 bytes");
  expect_refused("{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = [ns.s, ns.s] | join(ns.s) %}"
                 "{% endfor %}",
                 "a value is larger than the limit of 16777216 bytes");
  expect_refused("{{ [1] | tojson(indent=100000) }}", "tojson indent 100000 is over 1024");
}

TEST(ChatTemplateLimits, QuadraticWorkIsStopped) {
  const std::string kilobyte(1000, 'x');
  expect_refused("{% set ns = namespace(s='') %}{% for i in range(100000) %}{% set ns.s = ns.s ~ '" + kilobyte +
                     "' %}{% endfor %}",
                 "the template did more than 268435456 bytes of work");
  expect_refused("{% set ns = namespace(s='" + kilobyte + "') %}{% for i in range(10) %}{% set ns.s = ns.s ~ ns.s %}"
                     "{% endfor %}{% for i in range(100000) %}{{ 'y' in ns.s }}{% endfor %}",
                 "the template did more than 268435456 bytes of work");
}

}  // namespace
}  // namespace tessera::chat
