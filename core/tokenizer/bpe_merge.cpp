// Rank-ordered pair merging over a linked list of symbols with a priority queue; queue
// entries go stale when a neighbour merges and are then skipped.
#include "core/tokenizer/bpe_merge.h"

#include <queue>

#include "core/tokenizer/utf8.h"

namespace tessera {
namespace {

struct Symbol {
  size_t start;  // byte offset in the word
  size_t size;   // 0 once merged into its left neighbour
  int prev;
  int next;      // -1 at the ends
};

struct Candidate {
  int32_t rank;
  int left;
  int right;
  size_t left_size;   // the sizes when queued: a change means the entry is stale
  size_t right_size;
};

// Lowest rank first, then the leftmost pair.
struct LaterFirst {
  bool operator()(const Candidate& a, const Candidate& b) const {
    return a.rank != b.rank ? a.rank > b.rank : a.left > b.left;
  }
};

class MergeQueue {
 public:
  MergeQueue(std::string_view word, const BpeRanks& ranks, std::vector<Symbol>& symbols)
      : word_(word), ranks_(ranks), symbols_(symbols) {}

  void offer(int left, int right) {
    if (left < 0 || right < 0) return;
    const Symbol& l = symbols_[left];
    const Symbol& r = symbols_[right];
    const int32_t rank = ranks_.find(word_.substr(l.start, l.size), word_.substr(r.start, r.size));
    if (rank >= 0) queue_.push({rank, left, right, l.size, r.size});
  }

  void run() {
    while (!queue_.empty()) {
      const Candidate c = queue_.top();
      queue_.pop();
      Symbol& l = symbols_[c.left];
      Symbol& r = symbols_[c.right];
      if (l.size != c.left_size || r.size != c.right_size || l.next != c.right) continue;
      l.size += r.size;
      r.size = 0;
      l.next = r.next;
      if (r.next >= 0) symbols_[r.next].prev = c.left;
      offer(l.prev, c.left);
      offer(c.left, l.next);
    }
  }

 private:
  std::string_view word_;
  const BpeRanks& ranks_;
  std::vector<Symbol>& symbols_;
  std::priority_queue<Candidate, std::vector<Candidate>, LaterFirst> queue_;
};

}  // namespace

BpeRanks::BpeRanks(const std::vector<std::string>& merges) {
  ranks_.reserve(merges.size());
  for (size_t i = 0; i < merges.size(); ++i)
    ranks_.emplace(merges[i], static_cast<int32_t>(i));
}

int32_t BpeRanks::find(std::string_view left, std::string_view right) const {
  std::string key;
  key.reserve(left.size() + right.size() + 1);
  key.append(left).append(1, ' ').append(right);
  auto it = ranks_.find(std::string_view(key));
  return it == ranks_.end() ? -1 : it->second;
}

std::vector<std::string_view> bpe_merge(std::string_view word, const BpeRanks& ranks) {
  std::vector<Symbol> symbols;
  for (size_t pos = 0; pos < word.size();) {
    const size_t len = std::min(word.size() - pos,
                                utf8_sequence_length(static_cast<unsigned char>(word[pos])));
    const int index = static_cast<int>(symbols.size());
    symbols.push_back({pos, len, index - 1, pos + len == word.size() ? -1 : index + 1});
    pos += len;
  }
  MergeQueue queue(word, ranks, symbols);
  for (int i = 1; i < static_cast<int>(symbols.size()); ++i) queue.offer(i - 1, i);
  queue.run();

  std::vector<std::string_view> pieces;
  for (const Symbol& s : symbols)
    if (s.size > 0) pieces.push_back(word.substr(s.start, s.size));
  return pieces;
}

}  // namespace tessera
