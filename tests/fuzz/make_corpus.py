#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets, tests/fuzz/corpus/NAME/, from the repository's
fixtures and models (cut down) and a few files built here. Deterministic: run it again after
a fixture changes and commit what changed. Usage: tests/fuzz/make_corpus.py [REPO_ROOT]

The handwritten seeds (chat templates and DSL definitions that reach the interpreters'
corners) live in corpus/NAME/ beside the generated ones and are left as they are.
"""
import json
import os
import shutil
import struct
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
TESTDATA = os.environ.get("TESSERA_TESTDATA") or os.path.join(ROOT, "..", "shared", "testdata")


def write(target, name, data):
    folder = os.path.join(OUT, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def read(path):
    with open(path, "rb") as f:
        return f.read()


# ---- GGUF ---------------------------------------------------------------------------------

def gguf_string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def gguf_value(kind, value):
    """kind: a GGUF value type code; arrays are (9, (elem_kind, [values]))."""
    scalar = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
    if kind == 8:
        return gguf_string(value)
    if kind == 9:
        elem_kind, items = value
        return struct.pack("<IQ", elem_kind, len(items)) + b"".join(gguf_value(elem_kind, v) for v in items)
    return struct.pack(scalar[kind], value)


# GGML type id -> (elements per block, bytes per block)
GGML_TYPES = {0: (1, 4), 1: (1, 2), 30: (1, 2), 26: (1, 4), 8: (32, 34), 2: (32, 18), 3: (32, 20), 6: (32, 22),
              7: (32, 24), 10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176), 14: (256, 210),
              20: (32, 18), 23: (256, 136)}


def gguf_file(kvs, tensors, version=3, alignment=32):
    """kvs: [(key, kind, value)]; tensors: [(name, [dims innermost first], ggml type)]."""
    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs))
    for key, kind, value in kvs:
        out += gguf_string(key) + struct.pack("<I", kind) + gguf_value(kind, value)
    offset, datas = 0, []
    for name, dims, ggml in tensors:
        elems, block_bytes = GGML_TYPES[ggml]
        count = 1
        for d in dims:
            count *= d
        size = count // elems * block_bytes
        out += gguf_string(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", ggml, offset)
        # f32 ones for the plain types (finite), zero blocks (scale 0: finite) for the rest
        data = struct.pack("<f", 1.0) * count if ggml == 0 else bytes(size)
        datas.append(data)
        offset += (size + alignment - 1) // alignment * alignment
    out += bytes(-len(out) % alignment)
    for data in datas:
        out += data + bytes(-len(data) % alignment)
    return out


def gguf_corpus():
    every_kind = [
        ("general.architecture", 8, "llama"), ("general.name", 8, "fuzz seed"),
        ("general.alignment", 4, 32), ("llama.block_count", 4, 2), ("llama.context_length", 10, 2048),
        ("llama.embedding_length", 11, 64), ("llama.rope.freq_base", 6, 10000.0),
        ("llama.attention.layer_norm_rms_epsilon", 12, 1e-5), ("u8", 0, 200), ("i8", 1, -100),
        ("u16", 2, 60000), ("i16", 3, -30000), ("i32", 5, -7), ("flag", 7, True),
        ("list.i32", 9, (5, [1, 2, 3])), ("list.str", 9, (8, ["a", "bc", ""])),
        ("list.nested", 9, (9, [(0, [1, 2]), (6, [0.5])])), ("list.empty", 9, (4, [])),
    ]
    tensors = [("f32", [4, 2], 0), ("f16", [8], 1), ("bf16", [2, 2], 30), ("i32", [3], 26), ("q8_0", [32], 8),
               ("q4_0", [32, 2], 2), ("q4_1", [32], 3), ("q5_0", [32], 6), ("q5_1", [32], 7), ("q2_k", [256], 10),
               ("q3_k", [256], 11), ("q4_k", [256], 12), ("q5_k", [256], 13), ("q6_k", [256], 14),
               ("iq4_nl", [32], 20), ("iq4_xs", [256], 23)]
    write("gguf", "every-type.gguf", gguf_file(every_kind, tensors))
    write("gguf", "v2-aligned-64.gguf", gguf_file([("general.alignment", 4, 64)], [("w", [16, 4], 0)], version=2,
                                                  alignment=64))
    write("gguf", "empty.gguf", gguf_file([], []))
    # Vocabularies (a tokenizer is built from what opens): SentencePiece and byte-level BPE.
    tok = os.path.join(FIXTURES, "tokenizer")
    write("gguf", "vocab-llama-spm-tiny.gguf", read(os.path.join(tok, "ggml-vocab-llama-spm-tiny.gguf")))
    write("gguf", "vocab-qwen2-tiny.gguf", read(os.path.join(tok, "ggml-vocab-qwen2-tiny.gguf")))
    # A real model's head: its metadata and tensor list, the data cut off.
    write("gguf", "stories260K-head.gguf", read(os.path.join(TESTDATA, "stories260K", "stories260K.gguf"))[:16384])


# ---- safetensors ---------------------------------------------------------------------------

def safetensors_file(header, data, pad_to=8):
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-(8 + len(text)) % pad_to)
    return struct.pack("<Q", len(text)) + text + data


def safetensors_corpus():
    sizes = {"F32": 4, "F16": 2, "BF16": 2, "I32": 4}
    header, data = {"__metadata__": {"format": "pt", "note": "fuzz seed"}}, b""
    for name, dtype, shape in [("a.f32", "F32", [2, 3]), ("b.f16", "F16", [4]), ("c.bf16", "BF16", [2, 2]),
                               ("d.i32", "I32", [3]), ("e.empty", "F32", [0, 5]), ("f.scalar", "F32", [])]:
        n = sizes[dtype]
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + n]}
        data += bytes(n)
    write("safetensors", "every-dtype.safetensors", safetensors_file(header, data))
    # Real headers: the small tensors of two fixtures, laid out again; and one head cut off.
    for folder in ["llama", "llama-bf16"]:
        raw = read(os.path.join(FIXTURES, "hf", folder, "model.safetensors"))
        n = struct.unpack("<Q", raw[:8])[0]
        real = json.loads(raw[8:8 + n])
        header, data = {"__metadata__": real.get("__metadata__", {})}, b""
        for name, t in sorted(real.items()):
            if name == "__metadata__" or t["data_offsets"][1] - t["data_offsets"][0] > 256:
                continue
            begin, end = t["data_offsets"]
            chunk = raw[8 + n + begin:8 + n + end]
            header[name] = {"dtype": t["dtype"], "shape": t["shape"], "data_offsets": [len(data), len(data) + len(chunk)]}
            data += chunk
        write("safetensors", folder + "-small.safetensors", safetensors_file(header, data))
    write("safetensors", "gpt2-head.safetensors", read(os.path.join(FIXTURES, "hf", "gpt2", "model.safetensors"))[:4096])


# ---- config.json ---------------------------------------------------------------------------

def hf_config_corpus():
    for folder in ["llama", "gemma3", "mpt", "qwen2-yarn", "llama3-rope", "phi2", "gpt2", "bloom"]:
        write("hf_config", folder + ".json", read(os.path.join(FIXTURES, "hf", folder, "config.json")))


# ---- chat templates ------------------------------------------------------------------------

def chat_template_corpus():
    folder = os.path.join(FIXTURES, "chat_templates")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".jinja"):
            write("chat_template", name, read(os.path.join(folder, name)))


# ---- tokenizers ----------------------------------------------------------------------------

def tokenizer_corpus():
    # Mode 0 (encode): the vocabulary test strings, a few to a seed.
    inp = read(os.path.join(FIXTURES, "tokenizer", "ggml-vocab-smollm2.gguf.inp")).decode()
    texts = [t for t in inp.split("\n__ggml_vocab_test__\n") if t]
    for i in range(0, len(texts), 6):
        write("tokenizer", "encode-%02d" % (i // 6), b"\x00" + "".join(texts[i:i + 6]).encode())
    write("tokenizer", "encode-bos", b"\x04Once upon a time, there was a little girl.")
    write("tokenizer", "encode-special", b"\x00<|im_start|>user\nHi<|im_end|>\n<s></s><unk> <0x41>")
    # Modes 1 and 2 (decode): ids in range of both vocabularies, one out of range.
    ids = [1, 403, 407, 261, 378, 316, 306, 372, 0, 2, 3, 200, 511]
    write("tokenizer", "decode-16", b"\x01" + struct.pack("<%dh" % len(ids), *ids))
    write("tokenizer", "decode-32", b"\x02" + struct.pack("<%di" % len(ids), *ids))
    write("tokenizer", "decode-out-of-range", b"\x02" + struct.pack("<3i", 5, 49152, -1))
    write("tokenizer", "token-calls", b"\x03" + struct.pack("<5i", 0, 1, 2, 511, 512))


# ---- DSL -----------------------------------------------------------------------------------

def dsl_corpus():
    models = os.path.join(ROOT, "models")
    for name in sorted(os.listdir(models)):
        if name.endswith(".tsr"):
            write("dsl", name, read(os.path.join(models, name)))
    broken = os.path.join(ROOT, "tests", "dsl", "broken")
    for name in ["block_recursion", "choice_typo", "division_not_exact", "if_branches_differ",
                 "chained_comparison", "clamp_bounds_swapped"]:
        path = os.path.join(broken, name + ".tsr")
        if os.path.exists(path):
            write("dsl", "broken-" + name + ".tsr", read(path))


if __name__ == "__main__":
    gguf_corpus()
    safetensors_corpus()
    hf_config_corpus()
    chat_template_corpus()
    tokenizer_corpus()
    dsl_corpus()
