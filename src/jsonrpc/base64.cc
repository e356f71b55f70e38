#include "jsonrpc/base64.h"

#include <openssl/evp.h>

#include <algorithm>

namespace rpclab::jsonrpc {
namespace {

bool in_alphabet(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

// Whole 4-character groups of the alphabet, '=' only as the last one or
// two characters. (EVP_DecodeBlock alone would skip blanks at the ends and
// take '=' anywhere.)
size_t padding_if_valid(std::string_view text, bool* valid) {
  *valid = text.size() % 4 == 0;
  size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') ++padding;
  if (*valid)
    *valid = std::all_of(text.begin(), text.end() - static_cast<std::ptrdiff_t>(padding), in_alphabet);
  return padding;
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string text(4 * ((bytes.size() + 2) / 3) + 1, '\0');  // EVP writes a closing NUL
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(text.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  text.resize(static_cast<size_t>(n));
  return text;
}

std::optional<std::string> base64_decode(std::string_view text) {
  bool valid = false;
  size_t padding = padding_if_valid(text, &valid);
  if (!valid) return std::nullopt;
  std::string bytes(3 * (text.size() / 4), '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(bytes.data()),
                          reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0 || static_cast<size_t>(n) < padding) return std::nullopt;
  bytes.resize(static_cast<size_t>(n) - padding);
  // A padded last group must have its spare bits zero: one text per bytes.
  if (padding == 0) return bytes;
  std::string_view last_group = std::string_view(bytes).substr(bytes.size() - (3 - padding));
  if (base64_encode(last_group) != text.substr(text.size() - 4)) return std::nullopt;
  return bytes;
}

}  // namespace rpclab::jsonrpc
