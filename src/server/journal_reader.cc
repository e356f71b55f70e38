#include "server/journal_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ops/next_reply.h"
#include "server/journal_lines.h"

namespace rpclab {
namespace {

using journal::Header;
using journal::Record;
using journal::kHeaderBytes;
using journal::kRecordBytes;

std::string slot_name(uint64_t i) { return "slot " + std::to_string(i); }

Header check_header(std::string_view bytes) {
  if (bytes.size() < kHeaderBytes)
    throw JournalError("truncated: " + std::to_string(bytes.size()) + " bytes, and a journal starts with a " +
                       std::to_string(kHeaderBytes) + "-byte header");
  Header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  if (std::string_view(h.magic, sizeof h.magic) != journal::kMagic)
    throw JournalError("not an rpclab journal (bad magic)");
  if (h.version != journal::kVersion)
    throw JournalError("journal version " + std::to_string(h.version) + ", and this rpclab reads version " +
                       std::to_string(journal::kVersion));
  if (h.header_bytes != kHeaderBytes || h.record_bytes != kRecordBytes)
    throw JournalError("header of " + std::to_string(h.header_bytes) + " bytes and records of " +
                       std::to_string(h.record_bytes) + " bytes; version 1 has 4096 and 64");
  if (std::memchr(h.transport, '\0', sizeof h.transport) == nullptr)
    throw JournalError("damaged header: the transport name is not terminated");
  if (h.capacity > UINT32_MAX || h.reserved > h.capacity)
    throw JournalError("damaged header: " + std::to_string(h.reserved) + " slots handed out of a capacity of " +
                       std::to_string(h.capacity));
  if (h.starts == 0 && h.reserved != 0) throw JournalError("damaged header: records, but no server start");
  uint64_t held = (bytes.size() - kHeaderBytes) / kRecordBytes;
  if (held < h.reserved)
    throw JournalError("truncated: the header counts " + std::to_string(h.reserved) +
                       " slots, and the file holds " + std::to_string(held));
  return h;
}

// A copy: the bytes may come from anywhere (a fuzzer's buffer) and need not
// be aligned for the record's 64-bit fields.
Record slot(std::string_view bytes, uint64_t i) {
  Record r;
  std::memcpy(&r, bytes.data() + kHeaderBytes + i * kRecordBytes, sizeof r);
  return r;
}

// Whether a sealed record says what a writer could have written.
void check_record(const Record& r, uint64_t i, const Header& h) {
  if (r.seal != journal::seal_of(r))
    throw JournalError(slot_name(i) + ": its seal does not match its contents (damaged)");
  if (r.index != i) throw JournalError(slot_name(i) + ": holds the record of slot " + std::to_string(r.index));
  if (r.kind < static_cast<uint8_t>(journal::RecordKind::kExecuted) ||
      r.kind > static_cast<uint8_t>(journal::RecordKind::kRefusedStale))
    throw JournalError(slot_name(i) + ": unknown kind " + std::to_string(r.kind));
  if (r.status > kLastNextStatus) throw JournalError(slot_name(i) + ": unknown status " + std::to_string(r.status));
  if (r.start == 0 || r.start > h.starts)
    throw JournalError(slot_name(i) + ": written by server start " + std::to_string(r.start) + " of " +
                       std::to_string(h.starts));
}

}  // namespace

JournalSummary check_journal(std::string_view bytes) {
  JournalSummary s;
  s.header = check_header(bytes);
  for (uint64_t i = 0; i < s.header.reserved; ++i) {
    Record r = slot(bytes, i);
    if (r.seal == 0) {
      ++s.holes;
      continue;
    }
    check_record(r, i, s.header);
    ++s.sealed;
  }
  // One call at a time is between reserve and seal (ServerCore's lock), so
  // each start can leave at most one slot unsealed.
  if (s.holes > s.header.starts)
    throw JournalError(std::to_string(s.holes) + " unsealed slots, and " + std::to_string(s.header.starts) +
                       " server starts can leave at most one each (damaged)");
  uint64_t held = (bytes.size() - kHeaderBytes) / kRecordBytes;
  for (uint64_t i = s.header.reserved; i < held; ++i)
    if (slot(bytes, i).seal != 0)
      throw JournalError(slot_name(i) + " is sealed, but only " + std::to_string(s.header.reserved) +
                         " slots were handed out (damaged)");
  return s;
}

void for_each_record(std::string_view bytes, const std::function<void(const Record&)>& visit) {
  Header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  for (uint64_t i = 0; i < h.reserved; ++i) {
    Record r = slot(bytes, i);
    if (r.seal != 0) visit(r);
  }
}

namespace {

// One more record into the ledger the journal implies; `where` names it in
// errors.
void count_record(Ledger& ledger, const Record& r, const std::string& where) {
  if (r.kind != static_cast<uint8_t>(journal::RecordKind::kExecuted)) return;
  uint32_t n = ledger.record(r.client_id, r.seq);
  if (n == 0) throw LedgerError("the journal holds more executions than the ledger's memory cap allows");
  if (n != r.times_executed)
    throw JournalError(where + ": says execution " + std::to_string(r.times_executed) + " of client " +
                       std::to_string(r.client_id) + " seq " + std::to_string(r.seq) + ", but it is execution " +
                       std::to_string(n) + " in the journal (damaged)");
  if (r.status == static_cast<uint32_t>(NextStatus::kOutOfOrder)) ledger.add_mismatch(r.client_id);
}

}  // namespace

Ledger ledger_from_journal(std::string_view bytes, size_t ledger_max_bytes) {
  Ledger ledger(ledger_max_bytes);
  if (is_journal_lines(bytes)) {
    JournalLines lines = parse_journal_lines(bytes);
    for (const Record& r : lines.records) count_record(ledger, r, "record " + std::to_string(r.index));
    return ledger;
  }
  JournalSummary summary = check_journal(bytes);
  for_each_record(bytes, [&](const Record& r) { count_record(ledger, r, slot_name(r.index)); });
  ledger.add_unrecorded(summary.header.unrecorded);
  return ledger;
}

std::vector<Record> journal_records(std::string_view bytes) {
  if (is_journal_lines(bytes)) return parse_journal_lines(bytes).records;
  check_journal(bytes);
  std::vector<Record> out;
  for_each_record(bytes, [&](const Record& r) { out.push_back(r); });
  return out;
}

JournalFile::JournalFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw JournalError("cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw JournalError(path + " is not a regular file");
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    void* map = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd, 0);
    int err = errno;
    ::close(fd);
    if (map == MAP_FAILED) throw JournalError("cannot map " + path + ": " + std::strerror(err));
    data_ = static_cast<const char*>(map);
  } else {
    ::close(fd);
  }
}

JournalFile::~JournalFile() {
  if (data_) ::munmap(const_cast<char*>(data_), size_);
}

namespace {

// `read` on the file at `path`; errors name the file.
template <typename Read>
auto on_journal_file(const std::string& path, Read read) {
  try {
    JournalFile file(path);
    return read(file.bytes());
  } catch (const JournalError& e) {
    std::string what = e.what();
    if (what.rfind(path, 0) == 0) throw;
    throw JournalError(path + ": " + what);
  }
}

}  // namespace

Ledger read_journal_ledger(const std::string& path) {
  return on_journal_file(path, [](std::string_view bytes) { return ledger_from_journal(bytes); });
}

std::vector<Record> read_journal_records(const std::string& path) {
  return on_journal_file(path, [](std::string_view bytes) { return journal_records(bytes); });
}

std::string journal_in(const std::string& dir) {
  std::string lines = dir + "/" + std::string(kJournalLinesName);
  return ::access(lines.c_str(), F_OK) == 0 ? lines : dir + "/" + std::string(kJournalBinaryName);
}

uint64_t journal_reserved(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  Header h{};
  ssize_t n = ::pread(fd, &h, sizeof h, 0);
  ::close(fd);
  if (n != static_cast<ssize_t>(sizeof h)) return 0;
  return h.reserved;
}

}  // namespace rpclab
