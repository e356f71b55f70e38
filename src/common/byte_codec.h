// Little-endian integers in and out of byte strings, for rpclab's own
// binary files and frames. Reads past the end throw TruncatedInput.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace rpclab {

class TruncatedInput : public std::runtime_error {
 public:
  TruncatedInput() : std::runtime_error("input ends early") {}
};

class ByteWriter {
 public:
  void u32(uint32_t v) { put(v, 4); }
  void u64(uint64_t v) { put(v, 8); }
  void bytes(std::string_view b) { out_.append(b); }
  std::string take() { return std::move(out_); }

 private:
  void put(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  std::string out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}
  uint32_t u32() { return static_cast<uint32_t>(get(4)); }
  uint64_t u64() { return get(8); }
  std::string_view bytes(size_t n) {
    if (in_.size() - pos_ < n) throw TruncatedInput();
    std::string_view b = in_.substr(pos_, n);
    pos_ += n;
    return b;
  }
  bool at_end() const { return pos_ == in_.size(); }

 private:
  uint64_t get(int n) {
    std::string_view b = bytes(n);
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[i]);
    return v;
  }
  std::string_view in_;
  size_t pos_ = 0;
};

}  // namespace rpclab
