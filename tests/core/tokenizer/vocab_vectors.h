// Reads llama.cpp's tokenizer reference vectors: NAME.gguf.inp holds the test strings,
// each followed by "\n__ggml_vocab_test__\n"; NAME.gguf.out one line of ids per string.
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::test {

struct VocabVector {
  std::string text;
  std::vector<int32_t> ids;
};

// Ids as "1 2 3", for readable test failures.
inline std::string ids_to_string(const std::vector<int32_t>& ids) {
  std::string s;
  for (int32_t id : ids) s += (s.empty() ? "" : " ") + std::to_string(id);
  return s;
}

inline std::string read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// The vectors of `gguf_path` (.inp/.out next to it), in file order.
inline std::vector<VocabVector> read_vocab_vectors(const std::string& gguf_path) {
  const std::string inputs = read_whole_file(gguf_path + ".inp");
  const std::string separator = "\n__ggml_vocab_test__\n";
  std::vector<VocabVector> vectors;
  for (size_t pos = 0, hit; (hit = inputs.find(separator, pos)) != std::string::npos;
       pos = hit + separator.size())
    vectors.push_back({inputs.substr(pos, hit - pos), {}});

  std::istringstream outputs(read_whole_file(gguf_path + ".out"));
  std::string line;
  size_t i = 0;
  for (; std::getline(outputs, line); ++i) {
    if (i >= vectors.size()) throw std::runtime_error(gguf_path + ".out has more lines than tests");
    std::istringstream numbers(line);
    for (int32_t id; numbers >> id;) vectors[i].ids.push_back(id);
  }
  if (i != vectors.size()) throw std::runtime_error(gguf_path + ".out has fewer lines than tests");
  return vectors;
}

}  // namespace tessera::test
