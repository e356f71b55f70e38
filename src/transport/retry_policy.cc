#include "transport/retry_policy.h"

#include <array>

namespace rpclab {
namespace {

constexpr std::array<std::string_view, 3> kNames = {"none", "library", "app"};

}  // namespace

std::string_view retry_policy_name(RetryPolicy policy) { return kNames[static_cast<size_t>(policy)]; }

std::optional<RetryPolicy> parse_retry_policy(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<RetryPolicy>(i);
  return std::nullopt;
}

bool app_retries_after(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kTimeout:
    case ErrorKind::kUnavailable:
    case ErrorKind::kCannotSend:
    case ErrorKind::kCannotReceive: return true;
    case ErrorKind::kOk:
    case ErrorKind::kCannotCode:
    case ErrorKind::kOther: return false;
  }
  return false;
}

std::optional<std::string> retry_policy_refusal(std::string_view transport, const LibraryRetryTrait& trait,
                                                RetryPolicy policy) {
  if (policy != RetryPolicy::kLibrary || trait.kind == LibraryRetry::kOnRequest) return std::nullopt;
  std::string name(transport), what(trait.what);
  if (trait.kind == LibraryRetry::kAlwaysOn)
    return "--retry-policy library: " + name + "'s library retry (" + what +
           ") is stock and always on, so library is the same as none here; use none or app";
  return "--retry-policy library: " + name + " has no library retry to turn on (" + what + "); use none or app";
}

}  // namespace rpclab
