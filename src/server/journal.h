// The execution journal: one durable record per NEXT the server answered,
// in a file mapped MAP_SHARED, so a record is in the kernel's page cache
// the moment it is written and survives SIGKILL of the server. It does not
// survive a kernel crash or power loss: nothing is msync'd per call.
//
// A record is reserved (the header's count goes up), filled, and sealed
// last (journal_format.h); ServerCore seals it before the reply is sent, so
// a killed server leaves either a sealed record (the call ran) or an
// unsealed slot (it did not). A server started on an existing journal
// checks it, continues it, and rebuilds its state from it (ServerCore).
//
// Not thread-safe: ServerCore calls it under its own lock.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "server/journal_format.h"
#include "ops/next_reply.h"
#include "server/request_origin.h"

namespace rpclab {

class Journal {
 public:
  static constexpr size_t kDefaultMaxBytes = size_t{1} << 30;
  // The file grows a step at a time (fallocate'd, so a full disk is found
  // at growth, not as SIGBUS on a write to the mapping): first by
  // kFirstGrowthBytes (65,536 records), before the server is ready, and
  // then by kGrowthBytes, taken by the call that needs the room. A later
  // step is small because the call that takes it, and every call queued
  // behind it, waits for it. tools/journal-steps.sh (raw-udp on
  // loopback, 327,680 calls, p50 65 to 82 us), 2026-12-07: a call that
  // took a 4 MiB step took 2.1 to 7.0 ms (medians of a run 2.2 to 3.5),
  // one that took a 256 KiB step 0.3 to 0.8 ms (medians 0.31 to 0.39).
  // Handing the steps to a thread of the journal's own, ahead of need, did
  // not remove the stall (a call right after each request still took 1 to
  // 3.8 ms, and 0.5 to 3.1 ms with the pages faulted in slices, paced, or
  // not at all; why is not known): not kept.
  static constexpr size_t kFirstGrowthBytes = size_t{4} << 20;
  static constexpr size_t kGrowthBytes = size_t{256} << 10;

  // Creates `path`, or opens an existing journal, checks every record, and
  // counts one more server start. Throws JournalError on a damaged journal
  // or one written by another transport, SetupError when the file cannot
  // be created or mapped.
  Journal(const std::string& path, size_t max_bytes, std::string_view transport);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // The header and every slot handed out so far, for the recovery scan.
  std::string_view bytes() const;
  // Whether one more record fits: grows the file when needed. False at the
  // cap, or when the file cannot grow (disk full; said once on stderr).
  bool has_room();
  // Reserves the next slot, writes `record` (index and start filled in
  // here) and seals it. Call only after has_room().
  void append(journal::Record record);
  void count_unrecorded();  // an execution past the cap
  void count_unlogged();    // an answer without execution past the cap
  const journal::Header& header() const { return *header_; }

 private:
  void create(std::string_view transport, uint64_t capacity);
  bool grow(size_t bytes);

  std::string path_;
  int fd_ = -1;
  char* map_ = nullptr;
  size_t map_bytes_ = 0;
  journal::Header* header_ = nullptr;
  journal::Record* records_ = nullptr;
  uint64_t file_records_ = 0;  // slots the file holds now
  bool grow_failed_ = false;
};

// The journal's record for one answered NEXT, before it is sealed.
journal::Record make_record(journal::RecordKind kind, uint32_t client_id, uint32_t seq, const NextReply& reply,
                            const RequestOrigin& origin, int64_t realtime_ns, int64_t monotonic_ns);

}  // namespace rpclab
