// A set of small non-negative integers (a pool's worker indices) kept as a bitset: insert, erase,
// membership and "lowest member" in a few word operations, with none of std::set's per-element
// node allocations. Pools hand out their lowest idle worker first, so schedules are reproducible.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace millrace::scheduler {

class IndexSet {
 public:
  // Members are below `universe`.
  explicit IndexSet(std::size_t universe = 0) : words_((universe + 63) / 64, 0) {}

  bool contains(std::size_t i) const { return (words_[i / 64] & bit(i)) != 0; }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  void insert(std::size_t i) {
    std::uint64_t& word = words_[i / 64];
    if (word & bit(i)) return;
    word |= bit(i);
    ++size_;
    if (i / 64 < first_word_) first_word_ = i / 64;
  }

  // Returns whether `i` was a member.
  bool erase(std::size_t i) {
    std::uint64_t& word = words_[i / 64];
    if (!(word & bit(i))) return false;
    word &= ~bit(i);
    --size_;
    return true;
  }

  // The lowest member. Precondition: !empty().
  std::size_t first() const {
    while (words_[first_word_] == 0) ++first_word_;
    return first_word_ * 64 + static_cast<std::size_t>(std::countr_zero(words_[first_word_]));
  }

  void clear() {
    for (std::uint64_t& word : words_) word = 0;
    size_ = 0;
  }

 private:
  static std::uint64_t bit(std::size_t i) { return std::uint64_t{1} << (i % 64); }

  std::vector<std::uint64_t> words_;
  std::size_t size_ = 0;
  mutable std::size_t first_word_ = 0;  // no member in a word below this one
};

}  // namespace millrace::scheduler
