// Diagnostics: rendering (location, source line, caret), the DslError fields, and the
// "did you mean" hints.
#include <gtest/gtest.h>

#include "dsl/model_definition.h"

namespace tessera::dsl {
namespace {

TEST(EditDistance, CountsASwapOfNeighboursAsOneEdit) { EXPECT_EQ(edit_distance("rms_nrom", "rms_norm"), 1u); }

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", "abc"), 0u);
}

TEST(NearestMatch, FindsTheCandidateAFewEditsAway) {
  EXPECT_EQ(nearest_match("n_layer", {"n_heads", "n_layers", "d_model"}), "n_layers");
}

TEST(NearestMatch, FindsAShortenedName) { EXPECT_EQ(nearest_match("epsilon", {"theta", "eps"}), "eps"); }

TEST(NearestMatch, GivesNothingWhenNoCandidateIsClose) {
  EXPECT_EQ(nearest_match("attention", {"rms_norm", "linear"}), "");
  EXPECT_EQ(did_you_mean("attention", {"rms_norm", "linear"}), "");
}

TEST(RenderDiagnostic, ShowsTheSourceLineWithACaretUnderTheColumn) {
  const SourceText source{"m.tsr", "model m\nforward {\n  h = rms_nrom(x)\n}\n"};
  EXPECT_EQ(render_diagnostic(source, SourceLocation{3, 7, 0}, "unknown op"),
            "m.tsr:3:7: error: unknown op\n"
            "  h = rms_nrom(x)\n"
            "      ^\n");
}

TEST(RenderDiagnostic, KeepsTabsSoTheCaretLinesUp) {
  const SourceText source{"m.tsr", "model m\n\tx = y\n"};
  EXPECT_EQ(render_diagnostic(source, SourceLocation{2, 6, 0}, "bad"),
            "m.tsr:2:6: error: bad\n"
            "\tx = y\n"
            "\t    ^\n");
}

TEST(RenderDiagnostic, WithoutALineNamesOnlyTheFile) {
  EXPECT_EQ(render_diagnostic(SourceText{"m.tsr", ""}, SourceLocation{}, "cannot read"),
            "m.tsr: error: cannot read\n");
}

TEST(DslError, CarriesFileLineColumnAndMessage) {
  const SourceText source{"m.tsr", "model m\nforward {\n}\n"};
  const DslError e = make_error(source, SourceLocation{2, 1, 8}, "no logits");
  EXPECT_EQ(e.file(), "m.tsr");
  EXPECT_EQ(e.line(), 2);
  EXPECT_EQ(e.column(), 1);
  EXPECT_EQ(e.message(), "no logits");
  EXPECT_STREQ(e.what(), "m.tsr:2:1: error: no logits\nforward {\n^\n");
}

TEST(DslError, IsATesseraError) {
  try {
    parse_model("model m\nforward {\n}\n", "m.tsr");
    FAIL() << "accepted a model without logits";
  } catch (const tessera::Error& e) {
    EXPECT_NE(dynamic_cast<const DslError*>(&e), nullptr);
  }
}

TEST(ParseModelFile, RefusesAFileThatCannotBeRead) {
  try {
    parse_model_file("/nonexistent/model.tsr");
    FAIL() << "read a file that does not exist";
  } catch (const DslError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/model.tsr: error: cannot read the model file: No such file or directory\n");
    EXPECT_EQ(e.line(), 0);
  }
}

TEST(ParseModelFile, RefusesADeviceOrADirectoryWithoutReadingIt) {
  const auto message_of = [](const std::string& path) {
    try {
      parse_model_file(path);
    } catch (const DslError& e) {
      return std::string(e.what());
    }
    return std::string("parsed");
  };
  EXPECT_EQ(message_of("/dev/zero"),
            "/dev/zero: error: cannot read the model file: is not a regular file (a character device)\n");
  EXPECT_EQ(message_of("/tmp"), "/tmp: error: cannot read the model file: is a directory\n");
}

}  // namespace
}  // namespace tessera::dsl
