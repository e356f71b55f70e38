// A client's record of every call it made: what the library told it and how
// long the call took. Written once at the end of a run (or on SIGTERM), read
// by the harness to join against the server's ledger. Format:
// docs/results-format.md ("Call records").
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/outcome.h"

namespace rpclab {

class RecordError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CallEntry {
  uint32_t seq = 0;
  ErrorKind kind = ErrorKind::kOk;
  uint32_t detail = 0;  // index into CallRecord::details; 0 = none
  int64_t latency_ns = 0;
};

class CallRecord {
 public:
  static constexpr int kVersion = 1;

  nlohmann::json header = nlohmann::json::object();
  std::vector<CallEntry> calls;

  CallRecord() : details_{""} {}
  // Stores a status text once and returns its index.
  uint32_t intern(const std::string& detail);
  const std::string& detail(const CallEntry& e) const { return details_.at(e.detail); }

  std::string format() const;
  static CallRecord parse(std::string_view text);  // throws RecordError
  void write_file(const std::string& path) const;
  static CallRecord read_file(const std::string& path);

 private:
  std::vector<std::string> details_;
  std::unordered_map<std::string, uint32_t> index_;
};

}  // namespace rpclab
