#include "server/server_core.h"

#include "ops/allman.h"

#include <time.h>

#include <algorithm>

#include "common/atomic_file.h"
#include "server/journal_reader.h"
#include "common/setup_error.h"

namespace rpclab {
namespace {

int64_t now_ns(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

NextReply reply_of(const journal::Record& r) {
  return {static_cast<NextStatus>(r.status), r.expected_seq, r.times_executed};
}

}  // namespace

ServerCore::ServerCore(size_t ledger_max_bytes) : ledger_(ledger_max_bytes) {}

ServerCore::ServerCore(const ServerCoreOptions& options) : ledger_(options.ledger_max_bytes) {
  if (options.at_most_once_scope)
    table_ = options.at_most_once_scope;
  else if (options.at_most_once)
    table_ = std::make_shared<AtMostOnceTable>();
  if (options.journal_path.empty()) return;
  journal_ = std::make_unique<Journal>(options.journal_path, options.journal_max_bytes, options.transport);
  try {
    ledger_ = ledger_from_journal(journal_->bytes(), options.ledger_max_bytes);
  } catch (const LedgerError& e) {
    throw SetupError(options.journal_path + ": " + e.what() + " (raise --ledger-max-mb)");
  }
  recover();
}

ServerCore::~ServerCore() = default;

// Everything a NEXT leaves behind is in the executed records: Levy's
// expectation is one past the highest seq run, and the at-most-once table
// holds each client's last one (the per-server table: a shared one is its
// own store and takes nothing from one replica's journal). The ledger was derived the way the harness
// derives it (ledger_from_journal), so both see the same executions.
void ServerCore::recover() {
  for_each_record(journal_->bytes(), [&](const journal::Record& r) {
    if (r.kind != static_cast<uint8_t>(journal::RecordKind::kExecuted)) return;
    uint32_t& expected = expected_[r.client_id];
    expected = std::max(expected, r.seq + 1);
    if (table_) table_->recover(r.client_id, r.seq, reply_of(r));
  });
}

NextReply ServerCore::next(uint32_t client_id, uint32_t seq, const RequestOrigin& origin) {
  Arrival at;
  if (journal_) at = {now_ns(CLOCK_REALTIME), now_ns(CLOCK_MONOTONIC)};
  // The lock covers the check, the execution and the seal: a repeat that
  // arrives while its first copy runs (gRPC's threads, a retry on a new
  // connection) waits here, then finds it completed in the table. A shared
  // table's claim waits for another server's copy with the lock let go.
  std::unique_lock<std::mutex> lock(mu_);
  ++counts_.next_calls;
  if (table_) {
    AtMostOnceScope::Answer answer;
    try {
      answer = table_->claim(client_id, seq, lock);
    } catch (const AtMostOnceUnavailable&) {
      ++counts_.table_unavailable;  // refused: run unprotected, it could run twice unseen
      throw;
    }
    if (answer.verdict != AtMostOnceScope::Verdict::kExecute)
      return answer_repeat(client_id, seq, answer, origin, at);
  }
  return execute(client_id, seq, origin, at);
}

// After the seal (the seal is the execution: a table that said "done"
// before it could answer a repeat of a call no journal holds). A table that
// cannot take the completion leaves the call's claim to its lease; the call
// ran, so its reply still goes out, and the failure is counted.
void ServerCore::complete(uint32_t client_id, uint32_t seq, const NextReply* reply) {
  try {
    if (reply)
      table_->complete(client_id, seq, *reply);
    else
      table_->release(client_id, seq);
  } catch (const AtMostOnceUnavailable&) {
    ++counts_.table_unavailable;
  }
}

uint32_t ServerCore::expected_of(uint32_t client_id) const {
  auto it = expected_.find(client_id);
  return it == expected_.end() ? 0 : it->second;
}

NextReply ServerCore::answer_repeat(uint32_t client_id, uint32_t seq, const AtMostOnceScope::Answer& answer,
                                    const RequestOrigin& origin, const Arrival& at) {
  NextReply reply = answer.reply;
  auto kind = journal::RecordKind::kAnsweredFromTable;
  if (answer.verdict == AtMostOnceScope::Verdict::kStale) {
    reply = {NextStatus::kStale, expected_of(client_id), ledger_.count(client_id, seq)};
    kind = journal::RecordKind::kRefusedStale;
    ++counts_.refused_stale;
  } else {
    ++counts_.answered_from_table;
  }
  if (journal_ && journal_->has_room())
    journal_->append(make_record(kind, client_id, seq, reply, origin, at.realtime_ns, at.monotonic_ns));
  else if (journal_)
    journal_->count_unlogged();
  return reply;
}

// Past the ledger's or the journal's cap the call still runs and says
// NOT_RECORDED, but only recorded executions move Levy's expectation and
// the table, so a restart rebuilds from the journal exactly the state the
// server had. The expectation map then follows only clients the ledger
// holds, and the ledger's cap bounds it: garbage that decodes as NEXT with
// ever new client ids cannot grow it.
NextReply ServerCore::execute(uint32_t client_id, uint32_t seq, const RequestOrigin& origin, const Arrival& at) {
  NextReply reply;
  reply.expected_seq = expected_of(client_id);
  bool room = !journal_ || journal_->has_room();
  reply.times_executed = room ? ledger_.record(client_id, seq) : 0;
  if (reply.times_executed == 0) {
    if (!room) ledger_.add_unrecorded();  // record() counts its own refusals
    if (journal_) journal_->count_unrecorded();
    reply.status = NextStatus::kNotRecorded;
    if (table_) complete(client_id, seq, nullptr);
    return reply;
  }
  if (seq != reply.expected_seq) {
    reply.status = NextStatus::kOutOfOrder;
    ++counts_.mismatches;
    ledger_.add_mismatch(client_id);
  }
  // seq + 1 wraps at UINT32_MAX; a sequence that long is not a run we make.
  expected_[client_id] = std::max(reply.expected_seq, seq + 1);
  if (journal_)
    journal_->append(
        make_record(journal::RecordKind::kExecuted, client_id, seq, reply, origin, at.realtime_ns, at.monotonic_ns));
  if (table_) complete(client_id, seq, &reply);
  return reply;
}

bool ServerCore::is_prime(int32_t n) {
  allman_calls_.fetch_add(1, std::memory_order_relaxed);
  return allman_is_prime(n);
}

std::optional<std::string> ServerCore::average(const double* values, size_t n, double* mean) {
  if (auto why = allman_refuse_average(values, n)) return why;
  allman_calls_.fetch_add(1, std::memory_order_relaxed);
  *mean = allman_average(values, n);
  return std::nullopt;
}

std::optional<std::string> ServerCore::get_rand_nums(int64_t count, std::vector<double>* out) {
  if (auto why = allman_refuse_count(count)) return why;
  allman_calls_.fetch_add(1, std::memory_order_relaxed);
  out->resize(static_cast<size_t>(count));
  allman_rand_nums(out->size(), out->data());
  return std::nullopt;
}

std::optional<std::string> ServerCore::log_transform(const double* values, size_t n, std::vector<double>* out) {
  if (auto why = allman_refuse_log(values, n)) return why;
  allman_calls_.fetch_add(1, std::memory_order_relaxed);
  out->resize(n);
  allman_log_transform(values, n, out->data());
  return std::nullopt;
}

std::optional<std::string> ServerCore::get_record(int32_t id, int64_t photo_bytes,
                                              std::shared_ptr<const KiralyRecord>* out) {
  if (auto why = kiraly_refuse(photo_bytes)) return why;
  record_calls_.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(record_mu_);
  if (!last_record_ || last_record_->id != id || last_record_->photo.size() != static_cast<size_t>(photo_bytes))
    last_record_ = std::make_shared<const KiralyRecord>(kiraly_record(id, static_cast<size_t>(photo_bytes)));
  *out = last_record_;
  return std::nullopt;
}

ServerCounters ServerCore::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  ServerCounters c = counts_;
  c.null_calls = null_calls_.load(std::memory_order_relaxed);
  c.echo_calls = echo_calls_.load(std::memory_order_relaxed);
  c.allman_calls = allman_calls_.load(std::memory_order_relaxed);
  c.record_calls = record_calls_.load(std::memory_order_relaxed);
  return c;
}

void ServerCore::write_ledger(const std::string& path) const {
  std::string bytes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    bytes = ledger_.serialize();
  }
  write_file_atomically(path, bytes);
}

}  // namespace rpclab
