// Composition: `use "base.tsr"` right after the `model` line inherits the base's
// hyper-parameters, weights, blocks and forward section; the definition's own sections
// override and extend them. Diagnostics name the file, line and column the problem is
// in, the base's or the variant's.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../support/temp_path.h"
#include "dsl/parse.h"
#include "graph_query.h"

namespace tessera::test {
namespace {

namespace fs = std::filesystem;

const char* const kBase = R"(model base, base_alias
hparams {
  d = 8
  v = 16
  n = 2
  d_ff = d * 2
  eps = 1e-6
  require d >= 1
}
weights {
  emb [v, d] = "emb"
  layer i in 0 .. n {
    norm [d] = "blk.{i}.norm"
    w_up [d_ff, d] = "blk.{i}.up"
    w_down [d, d_ff] = "blk.{i}.down"
  }
}
block mlp(h, i) {
  return linear(silu(linear(h, w_up[i])), w_down[i])
}
block layer(x, i) {
  return x + mlp(rms_norm(x, norm[i], eps: eps), i)
}
forward {
  x = embed(emb)
  for i in 0 .. n { x = layer(x, i) }
  logits = linear(outputs(x), emb)
}
)";

// A folder of model files, removed at the end of each test.
class Composition : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_path("composition-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes `text` to `name` in the folder and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = (fs::path(dir_) / name).string();
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << text;
    return path;
  }

  CompiledModel compile(const std::string& path, std::map<std::string, std::string> overrides = {}) const {
    dsl::CompileOptions options;
    options.overrides = std::move(overrides);
    return dsl::compile_model(*dsl::parse_model_file(path), options);
  }

  // The full rendering of the error parsing and compiling `path` gives, with the
  // folder written as DIR; "accepted" when there is none.
  std::string error_of(const std::string& path) const {
    try {
      compile(path);
    } catch (const dsl::DslError& e) {
      std::string s = e.what();
      for (size_t at = s.find(dir_); at != std::string::npos; at = s.find(dir_)) s.replace(at, dir_.size(), "DIR");
      return s;
    }
    return "accepted";
  }

  std::string dir_;
};

double hparam(const CompiledModel& m, const std::string& name) {
  for (const HParam& h : m.hparams) {
    if (h.name == name) return h.value;
  }
  ADD_FAILURE() << "no hyper-parameter " << name;
  return 0;
}

// The weight the graph reads from file tensor `file_name`, or nullptr.
const GraphTensor* weight(const CompiledModel& m, const std::string& file_name) {
  for (const GraphTensor& t : m.graph.tensors()) {
    if (t.role == TensorRole::Weight && t.file_name == file_name) return &t;
  }
  return nullptr;
}

std::vector<std::string> hparam_names(const CompiledModel& m) {
  std::vector<std::string> names;
  for (const HParam& h : m.hparams) names.push_back(h.name);
  return names;
}

TEST_F(Composition, InheritsEverythingAndTakesOnlyItsOwnName) {
  write("base.tsr", kBase);
  const auto def = dsl::parse_model_file(write("variant.tsr", "model variant\nuse \"base.tsr\"\n"));
  EXPECT_EQ(def->name, "variant");
  EXPECT_TRUE(def->aliases.empty());
  const CompiledModel variant = compile(dir_ + "/variant.tsr");
  const CompiledModel base = compile(dir_ + "/base.tsr");
  EXPECT_EQ(op_sequence(variant.graph), op_sequence(base.graph));
  EXPECT_EQ(variant.arch, "variant");
  // Nodes name the statement they come from in the base.
  const auto silus = nodes_of(variant.graph, OpKind::Silu);
  ASSERT_FALSE(silus.empty());
  EXPECT_EQ(silus.front()->origin, dir_ + "/base.tsr:19:3");
}

TEST_F(Composition, AnHparamOverrideTakesTheBasesPlaceSoLaterOnesSeeIt) {
  write("base.tsr", kBase);
  const std::string path = write("variant.tsr", R"(model variant
use "base.tsr"
hparams {
  extra = d_ff + 1   # new: after all of the base's
  d = 16             # in the base's place: d_ff below sees it
}
)");
  const CompiledModel m = compile(path);
  EXPECT_EQ(hparam(m, "d"), 16);
  EXPECT_EQ(hparam(m, "d_ff"), 32);
  EXPECT_EQ(hparam(m, "extra"), 33);
  EXPECT_EQ(hparam_names(m), (std::vector<std::string>{"d", "v", "n", "d_ff", "eps", "extra"}));
  ASSERT_NE(weight(m, "blk.0.up"), nullptr);
  EXPECT_EQ(weight(m, "blk.0.up")->shape, (Shape{32, 16}));
}

TEST_F(Composition, RequirementsAccumulate) {
  write("base.tsr", kBase);
  const std::string path = write("variant.tsr", "model variant\nuse \"base.tsr\"\nhparams {\n  require n >= 3\n}\n");
  EXPECT_NE(error_of(path).find("variant.tsr:4:11: error: "), std::string::npos) << error_of(path);
  EXPECT_NE(error_of(write("v2.tsr", "model v2\nuse \"base.tsr\"\nhparams { d = 0 }\n")).find("DIR/base.tsr:8:11: error: "),
            std::string::npos);
}

TEST_F(Composition, AddingAWeightAndOverridingABlockChangesTheGraph) {
  write("base.tsr", kBase);
  const std::string path = write("variant.tsr", R"(model variant
use "base.tsr"
weights {
  layer i in 0 .. n {
    w_gate [d_ff, d] = "blk.{i}.gate"
  }
}
block mlp(h, i) {   # SwiGLU instead of SiLU: layer() now calls this one
  return linear(swiglu(linear(h, w_gate[i]), linear(h, w_up[i])), w_down[i])
}
)");
  const CompiledModel base = compile(dir_ + "/base.tsr");
  const CompiledModel m = compile(path);
  EXPECT_EQ(nodes_of(base.graph, OpKind::MatMul).size(), 2u * 2 + 1);
  EXPECT_EQ(nodes_of(m.graph, OpKind::MatMul).size(), 3u * 2 + 1);
  EXPECT_EQ(nodes_of(m.graph, OpKind::SwiGlu).size(), 2u);
  EXPECT_EQ(nodes_of(m.graph, OpKind::Silu).size(), 0u);
  EXPECT_NE(weight(m, "blk.1.gate"), nullptr);
}

TEST_F(Composition, AWeightOfTheSameNameReplacesTheBases) {
  write("base.tsr", kBase);
  const std::string path = write("variant.tsr", R"(model variant
use "base.tsr"
weights { emb [v, d] = "token_embd.weight" }
)");
  const CompiledModel m = compile(path);
  EXPECT_NE(weight(m, "token_embd.weight"), nullptr);
  EXPECT_EQ(weight(m, "emb"), nullptr);
}

TEST_F(Composition, TheForwardSectionIsInheritedOrReplacedWhole) {
  write("base.tsr", kBase);
  const CompiledModel inherited = compile(write("inherited.tsr", "model inherited\nuse \"base.tsr\"\n"));
  EXPECT_EQ(nodes_of(inherited.graph, OpKind::RmsNorm).size(), 2u);
  const CompiledModel replaced = compile(write("replaced.tsr", R"(model replaced
use "base.tsr"
forward {
  x = embed(emb)
  for i in 0 .. n { x = layer(x, i) }
  logits = linear(rms_norm(outputs(x), norm[0], eps: eps), emb)   # a final norm
}
)"));
  EXPECT_EQ(nodes_of(replaced.graph, OpKind::RmsNorm).size(), 3u);
}

TEST_F(Composition, AChainOfTwo) {
  write("lib/base.tsr", kBase);
  write("lib/middle.tsr", "model middle\nuse \"base.tsr\"\nhparams { n = 3 }\n");  // relative to lib/
  const std::string path = write("top.tsr", "model top\nuse \"lib/middle.tsr\"\nhparams { d = 4 }\n");
  const CompiledModel m = compile(path);
  EXPECT_EQ(hparam(m, "n"), 3);
  EXPECT_EQ(hparam(m, "d"), 4);
  EXPECT_EQ(nodes_of(m.graph, OpKind::RmsNorm).size(), 3u);
  EXPECT_EQ(m.arch, "top");
}

TEST_F(Composition, AnAbsolutePath) {
  const std::string base = write("elsewhere/base.tsr", kBase);
  const std::string path = write("variant.tsr", "model variant\nuse \"" + base + "\"\n");
  EXPECT_EQ(error_of(path), "accepted");
}

TEST_F(Composition, TextWithoutAFileResolvesAgainstTheFolderOfItsName) {
  write("base.tsr", kBase);
  EXPECT_EQ(dsl::parse_model("model variant\nuse \"base.tsr\"\n", dir_ + "/variant.tsr")->name, "variant");
}

TEST_F(Composition, ACycleIsRefused) {
  write("a.tsr", "model a\nuse \"b.tsr\"\n");
  write("b.tsr", "model b\nuse \"a.tsr\"\n");
  EXPECT_EQ(error_of(dir_ + "/a.tsr"),
            "DIR/a.tsr:2:5: error: 'use' cycle: a.tsr uses b.tsr, which uses a.tsr\n"
            "use \"b.tsr\"\n"
            "    ^\n");
  write("self.tsr", "model self\n  use \"self.tsr\"\n");
  EXPECT_EQ(error_of(dir_ + "/self.tsr"),
            "DIR/self.tsr:2:7: error: 'use' cycle: self.tsr uses self.tsr\n"
            "  use \"self.tsr\"\n"
            "      ^\n");
}

TEST_F(Composition, AChainDeeperThanEightIsRefused) {
  write("d0.tsr", kBase);
  for (int i = 1; i <= 9; ++i) {
    write("d" + std::to_string(i) + ".tsr",
          "model d" + std::to_string(i) + "\nuse \"d" + std::to_string(i - 1) + ".tsr\"\n");
  }
  EXPECT_EQ(error_of(dir_ + "/d8.tsr"), "accepted");  // eight bases
  EXPECT_EQ(error_of(dir_ + "/d9.tsr"),
            "DIR/d1.tsr:2:5: error: 'use' chain too deep: DIR/d0.tsr would be base number 9, and at most 8 are "
            "allowed\n"
            "use \"d0.tsr\"\n"
            "    ^\n");
}

TEST_F(Composition, AMissingBaseIsRefusedAtTheUseLine) {
  const std::string path = write("variant.tsr", "model variant\nuse \"nowhere.tsr\"\n");
  EXPECT_EQ(error_of(path),
            "DIR/variant.tsr:2:5: error: cannot read DIR/nowhere.tsr, the definition 'use' names: "
            "No such file or directory\n"
            "use \"nowhere.tsr\"\n"
            "    ^\n");
}

TEST_F(Composition, AnErrorInTheBaseNamesTheBase) {
  std::string broken = kBase;
  broken.replace(broken.find("silu(linear"), 4, "siul");
  write("base.tsr", broken);
  const std::string path = write("variant.tsr", "model variant\nuse \"base.tsr\"\nhparams { d = 4 }\n");
  EXPECT_EQ(error_of(path),
            "DIR/base.tsr:19:17: error: unknown op 'siul'; did you mean 'silu'?\n"
            "  return linear(siul(linear(h, w_up[i])), w_down[i])\n"
            "                ^\n");
}

TEST_F(Composition, AnErrorInTheVariantNamesTheVariant) {
  write("base.tsr", kBase);
  const std::string path = write("variant.tsr", R"(model variant
use "base.tsr"

block layer(x, i) {
  return x + mlp(rms_norm(x, norm[i], eps: epz), i)
}
)");
  EXPECT_EQ(error_of(path),
            "DIR/variant.tsr:5:44: error: undefined variable 'epz'; did you mean 'eps'?\n"
            "  return x + mlp(rms_norm(x, norm[i], eps: epz), i)\n"
            "                                           ^\n");
}

TEST_F(Composition, ASyntaxErrorInTheBaseNamesTheBase) {
  std::string broken = kBase;
  broken.replace(broken.find("d_ff = d * 2"), 12, "d_ff = d * * 2");
  write("base.tsr", broken);
  const std::string path = write("variant.tsr", "model variant\nuse \"base.tsr\"\n");
  EXPECT_EQ(error_of(path),
            "DIR/base.tsr:6:14: error: expected an operand after the operator, found '*'\n"
            "  d_ff = d * * 2\n"
            "             ^\n");
  write("empty.tsr", "model empty\nhparams {\n");
  EXPECT_EQ(error_of(write("v2.tsr", "model v2\nuse \"empty.tsr\"\n")).substr(0, 31),
            "DIR/empty.tsr:2:10: error: expe");
}

TEST_F(Composition, ASectionRepeatedWithinTheVariantIsRefused) {
  write("base.tsr", kBase);
  const std::string path = write("variant.tsr", R"(model variant
use "base.tsr"
hparams { d = 4 }
hparams { v = 8 }
)");
  EXPECT_EQ(error_of(path),
            "DIR/variant.tsr:4:1: error: duplicate section 'hparams' (the first is at line 3)\n"
            "hparams { v = 8 }\n"
            "^\n");
}

TEST_F(Composition, UseNeedsAQuotedPathRightAfterTheModelLine) {
  write("base.tsr", kBase);
  EXPECT_EQ(error_of(write("v1.tsr", "model v1\nuse base.tsr\n")),
            "DIR/v1.tsr:2:5: error: expected a quoted file name after 'use', as use \"llama.tsr\", found 'base.tsr'\n"
            "use base.tsr\n"
            "    ^\n");
  EXPECT_EQ(error_of(write("v2.tsr", "model v2\nhparams { d = 4 }\nuse \"base.tsr\"\n")).substr(0, 63),
            "DIR/v2.tsr:3:1: error: expected a section: 'hparams {', 'weight");
  // Elsewhere `use` is a name like any other.
  EXPECT_EQ(error_of(write("v3.tsr", "model v3\nuse \"base.tsr\"\nhparams { use = 2  extra = use }\n")), "accepted");
}

}  // namespace
}  // namespace tessera::test
