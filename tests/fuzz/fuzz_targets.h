// rpclab's fuzz targets: one function per decoder that faces untrusted
// bytes, each taking one input the way libFuzzer hands it over.
//
// The same functions run in two places: under libFuzzer with ASan and UBSan
// (clang, `make fuzz`: one rpclab-fuzz-<name> program per row, built from
// fuzz_main.cc), and in rpclab_fuzz_replay_tests (any compiler, `make test`),
// which replays every file under corpus/<name>/ and regressions/<name>/.
//
// A target returns 0. It catches only the errors its decoder documents for
// bad input; anything else it lets escape, and a property it checks that
// does not hold throws FuzzCheckFailure: libFuzzer reports both as a crash
// and saves the input, and the replay test reports them as a failure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace rpclab::fuzz {

class FuzzCheckFailure : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

#define RPCLAB_FUZZ_CHECK(cond, what)                                                                    \
  do {                                                                                                   \
    if (!(cond))                                                                                         \
      throw ::rpclab::fuzz::FuzzCheckFailure(std::string(__FILE__ ":") + std::to_string(__LINE__) + \
                                             ": " #cond ": " + (what));                                  \
  } while (0)

int fuzz_sunrpc_call(const uint8_t* data, size_t size);
int fuzz_grpc_request(const uint8_t* data, size_t size);
int fuzz_raw_frame(const uint8_t* data, size_t size);
int fuzz_fault_profile(const uint8_t* data, size_t size);
int fuzz_fault_spec_json(const uint8_t* data, size_t size);
int fuzz_ledger(const uint8_t* data, size_t size);
int fuzz_journal(const uint8_t* data, size_t size);
int fuzz_call_record(const uint8_t* data, size_t size);
int fuzz_result_records(const uint8_t* data, size_t size);

struct FuzzTarget {
  const char* name;  // also the folder under corpus/ and regressions/
  int (*run)(const uint8_t* data, size_t size);
};

// The one list of targets. tests/fuzz/CMakeLists.txt names the same rows.
inline constexpr FuzzTarget kFuzzTargets[] = {
    {"sunrpc_call", fuzz_sunrpc_call},
    {"grpc_request", fuzz_grpc_request},
    {"raw_frame", fuzz_raw_frame},
    {"fault_profile", fuzz_fault_profile},
    {"fault_spec_json", fuzz_fault_spec_json},
    {"ledger", fuzz_ledger},
    {"journal", fuzz_journal},
    {"call_record", fuzz_call_record},
    {"result_records", fuzz_result_records},
};

}  // namespace rpclab::fuzz
