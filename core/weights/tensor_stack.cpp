// WeightFile::stack_tensors: the parts of a stacked weight, checked and copied into one
// tensor.
#include <cstring>

#include "core/util/error.h"
#include "core/weights/weight_file.h"

namespace tessera {
namespace {

constexpr std::string_view kIndex = "{*}";

std::string part_name(const std::string& pattern, int64_t index) {
  std::string name = pattern;
  for (size_t at = name.find(kIndex); at != std::string::npos; at = name.find(kIndex, at)) {
    name.replace(at, kIndex.size(), std::to_string(index));
  }
  return name;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

const TensorView& WeightFile::stack_tensors(const std::string& pattern, int64_t count) const {
  if (const auto it = stacks_.find(pattern); it != stacks_.end()) return it->second.view;
  if (pattern.find(kIndex) == std::string::npos || count < 1) {
    throw Error(path() + ": cannot stack '" + pattern + "' " + std::to_string(count) +
                " times: it needs {*} and a count >= 1");
  }
  std::vector<const TensorView*> parts;
  for (int64_t i = 0; i < count; ++i) {
    const std::string name = part_name(pattern, i);
    const TensorView* t = find_tensor(name);
    if (!t) throw Error(path() + ": no tensor '" + name + "' (part " + std::to_string(i) + " of " +
                        std::to_string(count) + " of '" + pattern + "')");
    if (i > 0 && (t->shape != parts[0]->shape || t->dtype != parts[0]->dtype || t->n_bytes != parts[0]->n_bytes)) {
      throw Error(path() + ": tensor '" + name + "' is " + std::string(dtype_name(t->dtype)) + " " +
                  shape_text(t->shape) + " but '" + parts[0]->name + "' is " +
                  std::string(dtype_name(parts[0]->dtype)) + " " + shape_text(parts[0]->shape) +
                  ": they cannot be stacked");
    }
    parts.push_back(t);
  }
  Stack stack;
  stack.view.name = pattern;
  stack.view.dtype = parts[0]->dtype;
  stack.view.shape.push_back(count);
  stack.view.shape.insert(stack.view.shape.end(), parts[0]->shape.begin(), parts[0]->shape.end());
  stack.view.n_bytes = parts[0]->n_bytes * static_cast<uint64_t>(count);
  stack.bytes.resize(stack.view.n_bytes);
  const uint64_t part_bytes = parts[0]->n_bytes;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (part_bytes > 0) std::memcpy(stack.bytes.data() + i * part_bytes, parts[i]->data, part_bytes);
    stacked_parts_.insert(parts[i]->name);
  }
  auto& kept = stacks_[pattern] = std::move(stack);
  kept.view.data = kept.bytes.data();
  return kept.view;
}

}  // namespace tessera
