#include "probe.h"

#include "client/connect_mode.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace rpclab::test {

using Clock = std::chrono::steady_clock;

namespace {

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

Probe::Probe(const std::string& transport, uint16_t port, int timeout_ms, uint32_t client_id)
    : transport_(transport), client_id_(client_id) {
  ClientOptions options;
  options.transport = transport;
  options.port = port;
  options.timeout_ms = timeout_ms;
  if (find_transport(transport) && find_transport(transport)->takes(kRetryTimeout, Side::kClient))
    options.settings.set(kRetryTimeout, timeout_ms);
  client_ = connect_client(options);
}

Probe::~Probe() { stop(); }

bool Probe::call() {
  uint32_t seq;
  {
    std::lock_guard<std::mutex> lock(mu_);
    seq = static_cast<uint32_t>(ok_.size());
    if (seq == 0) last_ok_ = Clock::now();
  }
  NextReply reply;
  CallStatus status = typed_call(*client_, Operation::kNext, NextRequest{client_id_, seq}, &reply);
  // A reply that says the call ran before means something else ran it.
  if (status.ok() && reply.times_executed != 1)
    status = CallStatus::failure(ErrorKind::kOther, "seq " + std::to_string(seq) + " reports " +
                                                        std::to_string(reply.times_executed) + " executions");
  note(status.ok(), status.detail);
  return status.ok();
}

void Probe::note(bool ok, const std::string& detail) {
  std::lock_guard<std::mutex> lock(mu_);
  ok_.push_back(ok);
  if (!ok) {
    if (failures_.size() < 5) failures_.push_back("seq " + std::to_string(ok_.size() - 1) + ": " + detail);
    return;
  }
  auto now = Clock::now();
  longest_outage_ms_ = std::max(longest_outage_ms_, ms_between(last_ok_, now));
  last_ok_ = now;
}

void Probe::start(std::chrono::milliseconds interval) {
  call();  // connected before the abuse begins
  thread_ = std::thread([this, interval] {
    while (!stop_.load()) {
      call();
      std::this_thread::sleep_for(interval);  // not a wait: the pace of the valid client's calls
    }
  });
}

void Probe::stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  if (!ok_.empty()) longest_outage_ms_ = std::max(longest_outage_ms_, ms_between(last_ok_, Clock::now()));
}

uint64_t Probe::calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ok_.size();
}

uint64_t Probe::ok() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<uint64_t>(std::count(ok_.begin(), ok_.end(), true));
}

double Probe::longest_outage_ms() const {
  std::lock_guard<std::mutex> lock(mu_);
  return longest_outage_ms_;
}

std::string Probe::first_failures() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string text;
  for (const std::string& f : failures_) text += f + "; ";
  return text;
}

uint64_t Probe::expect_ledger_matches(const Ledger& ledger) const {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t probe_runs = 0;
  for (uint32_t seq = 0; seq < ok_.size(); ++seq) {
    uint32_t runs = ledger.count(client_id_, seq);
    probe_runs += runs;
    if (ok_[seq])
      EXPECT_EQ(runs, 1u) << transport_ << ": the probe's successful call " << seq << " ran " << runs << " times";
    else
      EXPECT_LE(runs, 1u) << transport_ << ": the probe's failed call " << seq << " ran " << runs << " times";
  }
  EXPECT_EQ(ledger.total_executions(client_id_), probe_runs)
      << transport_ << ": the ledger holds executions of probe sequence numbers that were never sent";
  EXPECT_EQ(ledger.unrecorded(), 0u) << transport_;
  uint64_t others = 0;
  for (const auto& [id, entry] : ledger.clients())
    if (id != client_id_) others += ledger.total_executions(id);
  return others;
}

}  // namespace rpclab::test
