// Base64 (RFC 4648, with padding, no line breaks) for JSON-RPC's ECHO:
// JSON has no bytes, and libjson-rpc-cpp leaves binary to the caller.
// OpenSSL's EVP block coder does the work; decoding is strict, so a
// payload that is not canonical base64 is refused, never half-read.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rpclab::jsonrpc {

std::string base64_encode(std::string_view bytes);
// The bytes, or nothing if `text` is not base64 of some bytes.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace rpclab::jsonrpc
