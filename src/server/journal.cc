#include "server/journal.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/atomic_file.h"
#include "server/journal_reader.h"
#include "common/setup_error.h"

namespace rpclab {
namespace {

using journal::Header;
using journal::Record;
using journal::kHeaderBytes;
using journal::kRecordBytes;

std::string fresh_header(std::string_view transport, uint64_t capacity) {
  Header h{};
  std::memcpy(h.magic, journal::kMagic.data(), sizeof h.magic);
  h.version = journal::kVersion;
  h.header_bytes = kHeaderBytes;
  h.record_bytes = kRecordBytes;
  h.capacity = capacity;
  std::memcpy(h.transport, transport.data(), std::min(transport.size(), sizeof h.transport - 1));
  std::string bytes(kHeaderBytes, '\0');
  std::memcpy(bytes.data(), &h, sizeof h);
  return bytes;
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

// A new journal is written whole (header only) and renamed into place, so a
// kill during creation leaves no file rather than half a header. An
// existing one is checked through the same reader the harness uses.
Journal::Journal(const std::string& path, size_t max_bytes, std::string_view transport) : path_(path) {
  if (max_bytes < kHeaderBytes + kRecordBytes)
    throw SetupError("journal cap of " + std::to_string(max_bytes) + " bytes holds no record");
  uint64_t capacity = std::min<uint64_t>((max_bytes - kHeaderBytes) / kRecordBytes, UINT32_MAX);
  struct stat st {};
  bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode))
    throw SetupError("the journal " + path + " is not a regular file (give the path of a new or existing journal)");
  if (!exists || st.st_size == 0) write_file_atomically(path, fresh_header(transport, capacity));
  fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd_ < 0) throw SetupError("cannot open the journal " + path + ": " + errno_text());
  JournalSummary summary;
  uint64_t file_bytes = 0;
  try {
    JournalFile existing(path);
    summary = check_journal(existing.bytes());
    file_bytes = existing.bytes().size();
  } catch (const JournalError& e) {
    throw JournalError(path + ": " + e.what() + " (keep it for inspection, and give the server a new file)");
  }
  std::string written_by(summary.header.transport);
  if (written_by != transport)
    throw JournalError(path + ": written by a " + written_by + " server, and this one serves " +
                       std::string(transport) + " (give each server its own journal)");
  map_bytes_ = kHeaderBytes + summary.header.capacity * kRecordBytes;
  void* map = ::mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (map == MAP_FAILED) throw SetupError("cannot map the journal " + path + ": " + errno_text());
  map_ = static_cast<char*>(map);
  header_ = reinterpret_cast<Header*>(map_);
  records_ = reinterpret_cast<Record*>(map_ + kHeaderBytes);
  file_records_ = std::min<uint64_t>((file_bytes - kHeaderBytes) / kRecordBytes, header_->capacity);
  header_->starts += 1;
  // The first growth step now, before the server says it is ready: taken
  // by the first call, its fallocate and page faults (3.4 ms on a 2-core
  // VM, up to 80 ms beside 20 CPU hogs) held every call queued behind it,
  // and at a 20 or 50 ms retransmit interval that one stall started the
  // stale-reply cascades of the levy-surface run 20261207-135725
  // (docs/results/dependability.md, the surface section).
  if (header_->reserved >= file_records_ && header_->reserved < header_->capacity) grow(kFirstGrowthBytes);
}

// A server that stops cleanly gives back the growth step it did not use,
// so a cell folder holds a journal the size of its records.
Journal::~Journal() {
  uint64_t used = header_ ? kHeaderBytes + header_->reserved * kRecordBytes : 0;
  if (map_) ::munmap(map_, map_bytes_);
  if (fd_ >= 0 && used) (void)::ftruncate(fd_, static_cast<off_t>(used));
  if (fd_ >= 0) ::close(fd_);
}

std::string_view Journal::bytes() const {
  return {map_, kHeaderBytes + header_->reserved * kRecordBytes};
}

bool Journal::has_room() {
  if (header_->reserved < file_records_) return true;
  if (header_->reserved >= header_->capacity || grow_failed_) return false;
  return grow(kGrowthBytes);
}

// fallocate, not ftruncate: on a sparse file a full disk would surface as
// SIGBUS on some later store into the mapping; here it is an error code.
bool Journal::grow(size_t bytes) {
  uint64_t target = std::min<uint64_t>(header_->capacity, file_records_ + bytes / kRecordBytes);
  off_t offset = static_cast<off_t>(kHeaderBytes + file_records_ * kRecordBytes);
  off_t length = static_cast<off_t>((target - file_records_) * kRecordBytes);
  int rc = ::posix_fallocate(fd_, offset, length);
  if (rc != 0) {
    grow_failed_ = true;
    std::fprintf(stderr,
                 "rpclab-server: the journal %s cannot grow (%s): NEXT calls still run, but from now on they are "
                 "counted as unrecorded, not journaled\n",
                 path_.c_str(), std::strerror(rc));
    return false;
  }
  // Fault the new pages in now, writable, once per growth step, rather
  // than one page fault every 64 calls in the tail of the latency
  // (Linux 5.14+; an older kernel refuses and the calls take the faults).
  ::madvise(map_ + offset, static_cast<size_t>(length), MADV_POPULATE_WRITE);
  file_records_ = target;
  return true;
}

// Reserve, fill, seal: the seal is the last store, with release ordering,
// so a kill at any instruction leaves either a sealed, whole record or an
// unsealed slot, never a sealed half.
void Journal::append(Record record) {
  uint64_t index = header_->reserved;
  __atomic_store_n(&header_->reserved, index + 1, __ATOMIC_RELAXED);
  record.index = static_cast<uint32_t>(index);
  record.start = static_cast<uint16_t>(std::min<uint32_t>(header_->starts, UINT16_MAX));
  record.seal = 0;
  uint32_t seal = journal::seal_of(record);
  Record& slot = records_[index];
  std::memcpy(&slot, &record, sizeof record);
  __atomic_store_n(&slot.seal, seal, __ATOMIC_RELEASE);
}

void Journal::count_unrecorded() { __atomic_fetch_add(&header_->unrecorded, 1, __ATOMIC_RELAXED); }

void Journal::count_unlogged() { __atomic_fetch_add(&header_->unlogged, 1, __ATOMIC_RELAXED); }

Record make_record(journal::RecordKind kind, uint32_t client_id, uint32_t seq, const NextReply& reply,
                   const RequestOrigin& origin, int64_t realtime_ns, int64_t monotonic_ns) {
  Record r{};
  r.kind = static_cast<uint8_t>(kind);
  r.known = origin.known;
  r.client_id = client_id;
  r.seq = seq;
  r.status = static_cast<uint32_t>(reply.status);
  r.expected_seq = reply.expected_seq;
  r.times_executed = reply.times_executed;
  r.request_id = origin.request_id;
  r.attempt = origin.attempt;
  r.connection = origin.connection;
  r.peer_ipv4 = origin.peer_ipv4;
  r.peer_port = origin.peer_port;
  r.realtime_ns = (origin.known & journal::kKnowsKernelArrival) ? origin.kernel_arrival_ns : realtime_ns;
  r.monotonic_ns = monotonic_ns;
  return r;
}

}  // namespace rpclab
