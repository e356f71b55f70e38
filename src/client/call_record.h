// A client's record of every call it made: what the library told it and how
// long the call took. Written once at the end of a run (or on SIGTERM), read
// by the harness to join against the server's ledger. Format:
// docs/results-format.md ("Call records").
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "transport/outcome.h"

namespace rpclab {

class RecordError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CallEntry {
  uint32_t seq = 0;
  ErrorKind kind = ErrorKind::kOk;  // what the application was told: the last attempt's outcome
  uint32_t detail = 0;              // index into CallRecord::details; 0 = none
  int64_t latency_ns = 0;           // from the first attempt's start to the last one's end
  int64_t start_ns = 0;             // when the call began, from the record's start (monotonic clock)
  uint32_t attempts = 1;            // the application's attempts (more than 1 only with --retry-policy app)
};

// Open loop: call i of a run at `rate_per_s` calls a second is due this
// many ns after the first (i * 1e9 / rate, to the ns below). The client
// schedules by it and a reader of the record computes it the same way.
int64_t schedule_ns(uint64_t i, double rate_per_s);

// One attempt of a call the application made more than once.
struct AttemptEntry {
  uint64_t call = 0;    // index into CallRecord::calls
  uint32_t number = 1;  // 1 for the first attempt
  ErrorKind kind = ErrorKind::kOk;
  uint32_t detail = 0;
  int64_t latency_ns = 0;
  int64_t start_ns = 0;  // from the record's start
};

class CallRecord {
 public:
  static constexpr int kVersion = 2;  // 1: no start times, no attempts (still read)

  nlohmann::json header = nlohmann::json::object();
  // The header's `settings`: the client's resolved transport settings.
  nlohmann::json settings() const { return header.value("settings", nlohmann::json::object()); }
  // The header's `rate_per_s`: the calls of an open-loop run were due on a
  // fixed schedule (rpclab-client --rate); unset for a closed loop.
  std::optional<double> rate_per_s() const;
  // When call i was due, in ns from the record's start (the calls'
  // start_ns clock): i * 1e9 / rate, to the ns below. 0 without a rate.
  int64_t due_ns(size_t i) const;
  // The servers called, "HOST:PORT" each: the header's `servers` (a list,
  // rpclab-client --server A:P,B:P), else its one `server` (every record
  // before lists, and every one-server record); empty when it has neither.
  std::vector<std::string> servers() const;
  std::vector<CallEntry> calls;
  std::vector<AttemptEntry> attempts;  // every attempt of the calls with attempts > 1, in call order

  CallRecord() : details_{""} {}
  // Stores a status text once and returns its index.
  uint32_t intern(const std::string& detail);
  const std::string& detail(const CallEntry& e) const { return details_.at(e.detail); }
  const std::string& detail(const AttemptEntry& e) const { return details_.at(e.detail); }

  std::string format() const;
  static CallRecord parse(std::string_view text);  // throws RecordError
  void write_file(const std::string& path, Sync sync = Sync::kEach) const;
  static CallRecord read_file(const std::string& path);

 private:
  std::vector<std::string> details_;
  std::unordered_map<std::string, uint32_t> index_;

  void parse_calls(std::string_view text, int version);
  void estimate_start_times();  // version 1 records had none
};

}  // namespace rpclab
