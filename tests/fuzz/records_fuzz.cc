// Targets call_record and result_records: the files the harness reads back
// after a cell. A client's call record (CallRecord::parse, versions 1 and
// 2) is accepted or refused with RecordError, and an accepted one survives
// format/parse, its calls, start times and attempts unchanged. A
// results.jsonl (harness::read_cell_records) never fails but to refuse a
// record of a newer version: lines that are not records are skipped with
// one warning each, and a record read is written back as it was read.
#include <sys/mman.h>
#include <unistd.h>

#include <string>
#include <string_view>

#include "client/call_record.h"
#include "fuzz_targets.h"
#include "harness/record/records_file.h"

namespace rpclab::fuzz {

int fuzz_call_record(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  CallRecord record;
  try {
    record = CallRecord::parse(text);
  } catch (const RecordError&) {
    return 0;
  }
  CallRecord again = CallRecord::parse(record.format());
  RPCLAB_FUZZ_CHECK(again.calls.size() == record.calls.size(), "call count changed");
  for (size_t i = 0; i < record.calls.size(); ++i) {
    const CallEntry &a = record.calls[i], &b = again.calls[i];
    RPCLAB_FUZZ_CHECK(a.seq == b.seq && a.kind == b.kind && a.latency_ns == b.latency_ns &&
                          a.start_ns == b.start_ns && a.attempts == b.attempts,
                      "call " + std::to_string(i) + " changed");
    RPCLAB_FUZZ_CHECK(a.detail == 0 ? b.detail == 0 : b.detail != 0, "a status text appeared or vanished");
  }
  RPCLAB_FUZZ_CHECK(again.attempts.size() == record.attempts.size(), "attempt count changed");
  for (size_t i = 0; i < record.attempts.size(); ++i) {
    const AttemptEntry &a = record.attempts[i], &b = again.attempts[i];
    RPCLAB_FUZZ_CHECK(a.call == b.call && a.number == b.number && a.kind == b.kind && a.latency_ns == b.latency_ns &&
                          a.start_ns == b.start_ns,
                      "attempt " + std::to_string(i) + " changed");
  }
  return 0;
}

// read_records takes a path; the input goes into a memory file, once per run.
int fuzz_result_records(const uint8_t* data, size_t size) {
  static int fd = ::memfd_create("rpclab-fuzz-results", 0);
  static std::string path = "/proc/self/fd/" + std::to_string(fd);
  RPCLAB_FUZZ_CHECK(fd >= 0, "memfd_create failed");
  RPCLAB_FUZZ_CHECK(::ftruncate(fd, 0) == 0 && ::pwrite(fd, data, size, 0) == static_cast<ssize_t>(size),
                    "cannot write the memory file");
  std::vector<std::string> warnings;
  std::vector<harness::CellRecord> records;
  try {
    records = harness::read_cell_records(path, &warnings);
  } catch (const harness::RecordVersionError&) {
    return 0;
  }
  size_t lines = 0;
  for (size_t i = 0; i < size; ++i) lines += data[i] == '\n';
  RPCLAB_FUZZ_CHECK(records.size() + warnings.size() <= lines + 1, "more records and warnings than lines");
  for (const harness::CellRecord& r : records) {
    nlohmann::json again = r;
    RPCLAB_FUZZ_CHECK(nlohmann::json(again.get<harness::CellRecord>()) == again,
                      "a record read back from what it wrote says something else");
  }
  return 0;
}

}  // namespace rpclab::fuzz
