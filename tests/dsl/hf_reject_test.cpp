// Mistakes with Hugging Face names, keys and the predefined hf, and model aliases:
// syntax, semantic and compile errors, each with its exact diagnostic.
#include "fake_weight_file.h"
#include "reject_case.h"

namespace tessera::test {
namespace {

const RejectCase kHfRejects[] = {
    {"MisspelledHfKeyword",
     R"(model tiny
hparams { d = 4  v = 8 }
weights {
  emb [v, d] = "token_embd.weight", hg: "model.embed_tokens.weight"
}
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:4:37: error: expected 'hf:' and the tensor's Hugging Face name after ',', found 'hg'\n"
     "  emb [v, d] = \"token_embd.weight\", hg: \"model.embed_tokens.weight\"\n"
     "                                    ^\n"},
    {"HfWithoutColon",
     R"(model tiny
hparams { d = 4  v = 8 }
weights {
  emb [v, d] = "token_embd.weight", hf "model.embed_tokens.weight"
}
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:4:40: error: expected ':' after 'hf', found '\"'\n"
     "  emb [v, d] = \"token_embd.weight\", hf \"model.embed_tokens.weight\"\n"
     "                                       ^\n"},
    {"HfNameNotAString",
     R"(model tiny
hparams { d = 4  v = 8 }
weights {
  emb [v, d] = "token_embd.weight", hf: model.embed_tokens.weight
}
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:4:41: error: expected the tensor's Hugging Face name as a string, or transposed(\"name\"), found 'model.embed_tokens.weight'\n"
     "  emb [v, d] = \"token_embd.weight\", hf: model.embed_tokens.weight\n"
     "                                        ^\n"},
    {"TransposedWithoutParentheses",
     R"(model tiny
hparams { d = 4  v = 8 }
weights {
  emb [v, d] = "emb"
  w [d, d] = "blk.0.attn_qkv.weight", hf: transposed "h.0.attn.c_attn.weight"
}
forward { logits = linear(outputs(linear(embed(emb), w)), emb) }
)",
     "bad.tsr:5:54: error: expected '(' after 'transposed', found '\"'\n"
     "  w [d, d] = \"blk.0.attn_qkv.weight\", hf: transposed \"h.0.attn.c_attn.weight\"\n"
     "                                                     ^\n"},
    {"TransposedWithoutClosingParenthesis",
     R"(model tiny
hparams { d = 4  v = 8 }
weights {
  emb [v, d] = "emb"
  w [d, d] = "blk.0.attn_qkv.weight", hf: transposed("h.0.attn.c_attn.weight"
}
forward { logits = linear(outputs(linear(embed(emb), w)), emb) }
)",
     "bad.tsr:6:1: error: expected ')' after the name, found '}'\n"
     "}\n"
     "^\n"},
    {"HfKeyOnSqrt",
     R"(model tiny
hparams {
  d = 4
  v = 8
  scale = 1.0 / sqrt(d, hf: "head_dim")
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:5:25: error: sqrt() takes no named arguments\n"
     "  scale = 1.0 / sqrt(d, hf: \"head_dim\")\n"
     "                        ^\n"},
    {"HfKeyGivenTwice",
     R"(model tiny
hparams {
  d = meta("{arch}.embedding_length", 4, hf: "hidden_size", hf: "n_embd")
  v = 8
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:3:61: error: hf: is given twice\n"
     "  d = meta(\"{arch}.embedding_length\", 4, hf: \"hidden_size\", hf: \"n_embd\")\n"
     "                                                            ^\n"},
    {"HfKeyNotAStringLiteral",
     R"(model tiny
hparams {
  d = meta("{arch}.embedding_length", 4, hf: hidden_size)
  v = 8
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:3:46: error: hf: must be a string literal\n"
     "  d = meta(\"{arch}.embedding_length\", 4, hf: hidden_size)\n"
     "                                             ^\n"},
    {"OtherNamedArgumentOfMeta",
     R"(model tiny
hparams {
  d = meta("{arch}.embedding_length", 4, gguf: "llama.embedding_length")
  v = 8
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:3:42: error: meta() takes the named arguments hf: \"key\" and null: value, not 'gguf'\n"
     "  d = meta(\"{arch}.embedding_length\", 4, gguf: \"llama.embedding_length\")\n"
     "                                         ^\n"},
    {"ReservedHfHyperParameter",
     R"(model tiny
hparams {
  d = 4
  v = 8
  hf = 0
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:5:3: error: 'hf' is reserved: it is 1 when the weights are a Hugging Face folder\n"
     "  hf = 0\n"
     "  ^\n"},
    {"VariableNamedHf",
     R"(model tiny
hparams { d = 4  v = 8 }
weights { emb [v, d] = "emb" }
forward {
  hf = embed(emb)
  logits = linear(outputs(hf), emb)
}
)",
     "bad.tsr:5:3: error: variable 'hf' would hide the predefined 'hf'; choose another name\n"
     "  hf = embed(emb)\n"
     "  ^\n"},
    {"WeightNamedHf",
     R"(model tiny
hparams { d = 4  v = 8 }
weights {
  emb [v, d] = "emb"
  hf [d] = "hf_gain"
}
forward {
  x = rms_norm(embed(emb), hf, gain: if(hf, one_plus_weight, weight))
  logits = linear(outputs(x), emb)
}
)",
     "bad.tsr:5:3: error: 'hf' is reserved: it is 1 when the weights are a Hugging Face folder\n"
     "  hf [d] = \"hf_gain\"\n"
     "  ^\n"},
    {"AliasNotAName",
     R"(model llama, 7b
hparams { d = 4  v = 8 }
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:1:14: error: expected another architecture name after ',' (a name, or in quotes: \"command-r\"), "
     "found '7b'\n"
     "model llama, 7b\n"
     "             ^\n"},
    {"QuotedAliasWithABlank",
     R"(model command_r, "command r"
hparams { d = 4  v = 8 }
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:1:18: error: architecture name \"command r\" may only hold letters, digits, '_', '-' and '.', "
     "not ' '\n"
     "model command_r, \"command r\"\n"
     "                 ^\n"},
    {"EmptyQuotedAlias",
     R"(model command_r, ""
hparams { d = 4  v = 8 }
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:1:18: error: an architecture name in quotes must not be empty\n"
     "model command_r, \"\"\n"
     "                 ^\n"},
    {"TrailingCommaAfterModelName",
     R"(model llama,
hparams { d = 4  v = 8 }
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:2:1: error: expected another architecture name after ',' (a name, or in quotes: \"command-r\"), "
     "found 'hparams'\n"
     "hparams { d = 4  v = 8 }\n"
     "^\n"},
};

class HfReject : public ::testing::TestWithParam<RejectCase> {};

TEST_P(HfReject, GivesTheExactDiagnostic) { EXPECT_EQ(diagnose(GetParam()), GetParam().diagnostic); }

INSTANTIATE_TEST_SUITE_P(Dsl, HfReject, ::testing::ValuesIn(kHfRejects), case_name);

// Against a Hugging Face folder with hidden_size 4 and one tensor, the embedding.
const RejectCase kHfFolderRejects[] = {
    {"WeightWithoutHfName",
     R"(model tiny
hparams {
  d = meta("{arch}.embedding_length", hf: "hidden_size")
  v = 8
}
weights {
  emb  [v, d] = "token_embd.weight", hf: "model.embed_tokens.weight"
  norm [d]    = "output_norm.weight"
}
forward { logits = linear(outputs(rms_norm(embed(emb), norm)), emb) }
)",
     "bad.tsr:8:17: error: weight 'norm' has no hf: name, so the model cannot read the Hugging Face folder "
     "tiny-hf; add , hf: \"name\" after its GGUF name\n"
     "  norm [d]    = \"output_norm.weight\"\n"
     "                ^\n"},
    {"MetaWithoutHfKeyOrDefault",
     R"(model tiny
hparams {
  d = meta("{arch}.embedding_length")
  v = 8
}
weights { emb [v, d] = "token_embd.weight", hf: "model.embed_tokens.weight" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:3:7: error: hyper-parameter 'd' has no value: tiny-hf is a Hugging Face folder and meta() gives "
     "no hf: key and no default; add hf: \"key\" or pass --set d=N\n"
     "  d = meta(\"{arch}.embedding_length\")\n"
     "      ^\n"},
    {"TransposedTensorStoredUntransposed",
     R"(model tiny
hparams {
  d = meta("{arch}.embedding_length", hf: "hidden_size")
  v = 8
}
weights { emb [v, d] = "token_embd.weight", hf: transposed("model.embed_tokens.weight") }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:6:60: error: weight 'model.embed_tokens.weight' has shape [8, 4] in the file but the model "
     "declares [4, 8] (v, d) transposed\n"
     "weights { emb [v, d] = \"token_embd.weight\", hf: transposed(\"model.embed_tokens.weight\") }\n"
     "                                                           ^\n"},
};

class HfFolderReject : public ::testing::TestWithParam<RejectCase> {};

TEST_P(HfFolderReject, GivesTheExactDiagnostic) {
  FakeWeightFile folder("tiny-hf", "hf");
  folder.set_string("model_type", "tiny");
  folder.set_int("hidden_size", 4);
  folder.add_tensor("model.embed_tokens.weight", {8, 4});
  EXPECT_EQ(diagnose(GetParam(), &folder), GetParam().diagnostic);
}

INSTANTIATE_TEST_SUITE_P(Dsl, HfFolderReject, ::testing::ValuesIn(kHfFolderRejects), case_name);

}  // namespace
}  // namespace tessera::test
