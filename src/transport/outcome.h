// What one call came back with, in words shared by every transport.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rpclab {

// One enum for all stacks; each adapter maps its library's status onto it
// (clnt_stat, grpc::StatusCode, errno). The words live in outcome.cc only.
enum class ErrorKind : uint8_t {
  kOk = 0,
  kTimeout,        // no reply within the deadline: the call may have run
  kUnavailable,    // refused / no route / server gone: the library could not reach it
  kCannotSend,     // the request could not be written
  kCannotReceive,  // the reply could not be read
  kCannotCode,     // the request or reply could not be encoded or decoded
  kOther,
};

inline constexpr int kErrorKindCount = 7;

std::string_view error_kind_name(ErrorKind kind);
std::optional<ErrorKind> parse_error_kind(std::string_view name);

// The result of one call: ok, or a kind plus the library's own status text.
struct CallStatus {
  ErrorKind kind = ErrorKind::kOk;
  std::string detail;

  bool ok() const { return kind == ErrorKind::kOk; }
  static CallStatus success() { return {}; }
  static CallStatus failure(ErrorKind k, std::string text) { return {k, std::move(text)}; }
};

}  // namespace rpclab
