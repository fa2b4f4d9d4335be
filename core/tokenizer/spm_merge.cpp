// SentencePiece BPE merging with a priority queue of candidate pairs: each merge pushes
// at most two new candidates, so a text of n characters costs O(n log n), not O(n^2).
#include "core/tokenizer/spm_merge.h"

#include <algorithm>
#include <cstdio>
#include <queue>
#include <string>

#include "core/tokenizer/utf8.h"
#include "core/util/error.h"

namespace tessera {
namespace {

// A piece of the text: a doubly linked list over the characters, merged in place.
// A merged-away symbol keeps len == 0.
struct Symbol {
  size_t start = 0;
  size_t len = 0;
  int prev = -1;
  int next = -1;
};

// A candidate merge of two adjacent symbols. `len` is the combined length when it was
// queued: if either side has changed since, the candidate is stale and skipped. `score`
// is the merged token's score, or minus the merge's rank when merging by rank.
struct Bigram {
  double score = 0.0;
  int left = -1;
  int right = -1;
  size_t len = 0;
};

// Highest score on top; on equal scores the leftmost pair (symbol indices follow the text).
struct BigramOrder {
  bool operator()(const Bigram& a, const Bigram& b) const {
    return a.score < b.score || (a.score == b.score && a.left > b.left);
  }
};

class Merger {
 public:
  Merger(std::string_view text, const SpmMergeTables& tables) : text_(text), tables_(tables) {}

  void run(std::vector<int32_t>& out) {
    split_characters();
    for (int i = 1; i < static_cast<int>(symbols_.size()); ++i) queue_pair(i - 1, i);
    while (!queue_.empty()) {
      const Bigram b = queue_.top();
      queue_.pop();
      Symbol& left = symbols_[b.left];
      Symbol& right = symbols_[b.right];
      if (left.len == 0 || right.len == 0 || left.len + right.len != b.len) continue;
      left.len += right.len;
      right.len = 0;
      left.next = right.next;
      if (right.next >= 0) symbols_[right.next].prev = b.left;
      queue_pair(left.prev, b.left);
      queue_pair(b.left, left.next);
    }
    emit(out);
  }

 private:
  void split_characters() {
    for (size_t offset = 0; offset < text_.size();) {
      const size_t len = std::min(utf8_sequence_length(static_cast<unsigned char>(text_[offset])),
                                  text_.size() - offset);
      const int index = static_cast<int>(symbols_.size());
      symbols_.push_back({offset, len, index - 1, -1});
      if (index > 0) symbols_[index - 1].next = index;
      offset += len;
    }
  }

  std::string_view piece(const Symbol& s, size_t len) const { return text_.substr(s.start, len); }

  void queue_pair(int left, int right) {
    if (left < 0 || right < 0) return;
    const Symbol& l = symbols_[left];
    const Symbol& r = symbols_[right];
    const size_t len = l.len + r.len;
    if (tables_.ranks) {
      const int32_t rank = tables_.ranks->find(piece(l, l.len), piece(r, r.len));
      if (rank >= 0) queue_.push({-static_cast<double>(rank), left, right, len});
      return;
    }
    const int32_t id = tables_.index.find(piece(l, len));
    if (id < 0) return;
    queue_.push({tables_.scores[id], left, right, len});
  }

  // Every merged symbol is a token (by score by construction; by rank because every merge
  // forms a token, as validate_vocab checks); only single characters may not be.
  void emit(std::vector<int32_t>& out) const {
    for (int i = symbols_.empty() ? -1 : 0; i >= 0; i = symbols_[i].next) {
      const std::string_view text = piece(symbols_[i], symbols_[i].len);
      const int32_t id = tables_.index.find(text);
      if (id >= 0) {
        out.push_back(id);
        continue;
      }
      for (size_t j = 0; j < text.size(); ++j)
        out.push_back(byte_token(static_cast<unsigned char>(text[j]), symbols_[i].start + j));
    }
  }

  // `offset`: where the byte is in the fragment, for the error message.
  int32_t byte_token(unsigned char byte, size_t offset) const {
    const int32_t id = tables_.byte_tokens[byte];
    if (id >= 0) return id;
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", byte);
    throw Error(std::string("cannot encode byte ") + hex + " at offset " + std::to_string(offset) +
                " of the escaped text: the vocabulary has no byte token <" + hex +
                "> and no unknown token");
  }

  std::string_view text_;
  const SpmMergeTables& tables_;
  std::vector<Symbol> symbols_;
  std::priority_queue<Bigram, std::vector<Bigram>, BigramOrder> queue_;
};

}  // namespace

void spm_merge_append(std::string_view text, const SpmMergeTables& tables,
                      std::vector<int32_t>& out) {
  Merger(text, tables).run(out);
}

}  // namespace tessera
