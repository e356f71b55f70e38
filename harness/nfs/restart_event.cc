#include "harness/nfs/restart_event.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "harness/nfs/nfs_classes.h"
#include "netem/events/link_events.h"

namespace rpclab::harness::nfs {

namespace {

using rpclab::nfs::NfsOp;

// The procedure a step-name maker is counted under in knfsd's proc3 line
// (its operation row's); std::invalid_argument for an operation that does
// not make the step's name, naming those that do.
std::string proc3_name(NfsOp op) {
  auto makes = [](NfsOp o) {
    if (rpclab::nfs::needs_step_name(o)) return false;
    std::string step = rpclab::nfs::step_name(1, 1);
    for (const auto& e : rpclab::nfs::effects(o, step))
      if (e.name == step && e.presence == rpclab::nfs::Presence::kThere) return true;
    return false;
  };
  if (makes(op)) return rpclab::nfs::procedure(op);
  std::string makers;
  for (NfsOp o : rpclab::nfs::all_ops())
    if (makes(o)) makers += (makers.empty() ? "" : ", ") + rpclab::nfs::op_name(o);
  throw std::invalid_argument("a restart event needs a step whose first operation creates its name (" + makers +
                              "), not " + rpclab::nfs::op_name(op));
}

// The procedure's count in counters() ({} or no proc3: the server does
// not count; nullopt).
std::optional<uint64_t> proc3_count(const nlohmann::json& counters, const std::string& proc) {
  auto p = counters.find("proc3");  // not a record: the server's own counters (knfsd_server.h)
  if (p == counters.end() || !p->contains(proc)) return std::nullopt;
  return (*p)[proc].get<uint64_t>();  // not a record: knfsd's proc3 line
}

// Calls `met` every 20 ms until it holds; throws naming `what` when
// `client` ends first or `within` passes.
template <typename Met>
void wait_until(const std::string& what, process::ChildProcess& client, std::chrono::milliseconds within, Met met) {
  auto deadline = std::chrono::steady_clock::now() + within;
  for (;;) {
    if (met()) return;
    if (auto status = client.poll())
      throw std::runtime_error("restart event: the client ended (" + process::describe_wait_status(*status) +
                               ") before " + what);
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("restart event: " + what + " not seen within " + std::to_string(within.count()) + " ms");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

RestartEvent::RestartEvent(uint32_t client, uint32_t step, NfsOp op, const std::string& transport,
                           const std::string& dir, bool gate, const std::string& version)
    : op_(op), gate_(gate), version_(version) {
  proc3_name(op);  // throws for an operation that does not create its name
  if (step == 0) throw std::invalid_argument("a restart event's step counts from 1");
  restart_.client = client;
  restart_.step = step;
  restart_.name = rpclab::nfs::step_name(client, step);
  restart_.transport = transport;
  if (!gate_) return;
  fifo_ = dir + "/step-gate";
  std::filesystem::remove(fifo_);
  if (::mkfifo(fifo_.c_str(), 0600) != 0)
    throw std::runtime_error("cannot make the step gate " + fifo_ + ": " + std::strerror(errno));
}

RestartEvent::~RestartEvent() {
  std::error_code ignored;
  if (!fifo_.empty()) std::filesystem::remove(fifo_, ignored);
}

std::vector<std::string> RestartEvent::client_args() const {
  if (!gate_) return {};
  return {"--gate-step", std::to_string(restart_.step), "--gate-fifo", fifo_};
}

void RestartEvent::note(const std::string& what, Clock::time_point clients_start, NfsServer& server,
                        std::optional<nlohmann::json> link, std::optional<std::string> text) {
  NfsEventStep e;
  e.what = what;
  e.at_ms = std::chrono::duration<double, std::milli>(Clock::now() - clients_start).count();
  nlohmann::json counters = server.counters();
  if (!counters.empty()) e.server_counters = counters;
  e.link = std::move(link);
  e.note = std::move(text);
  restart_.events.push_back(std::move(e));
}

void RestartEvent::strike_in_flight(NfsServer& server, process::ChildProcess& client, Clock::time_point clients_start,
                                    std::chrono::milliseconds within, const nlohmann::json& start,
                                    const std::function<void()>& drop_replies) {
  std::string op = rpclab::nfs::op_name(op_);
  auto ran = [&]() -> uint64_t {
    auto c = server.op_count_between(start, server.counters(), version_, op_);
    if (!c)
      throw std::runtime_error("restart event: without a step gate it needs the server's own count of " + op +
                               " (NFS " + version_ + "), and this server keeps none");
    return c->count;
  };
  // 1. Armed once the server has run the steps before it.
  uint64_t before = restart_.step - 1;
  wait_until(std::to_string(before) + " " + op + " run by the server", client, within, [&] { return ran() >= before; });
  note("armed", clients_start, server, std::nullopt,
       fmt::format("the server had run {} {} (no step gate: the call in flight from here is struck)", ran(), op));
  // 2. The replies dropped: the call in flight runs (or had run) and its
  // reply is lost. The client makes one call at a time, so the count rises
  // by one at most: it rising says the call ran after the drop; it still
  // after a second (a MKDIR takes under a millisecond here, 20 ms at worst
  // in the guest) says the call had run before it, its reply dropped.
  drop_replies();
  uint64_t at_drop = ran();
  auto dropped_at = Clock::now();
  wait_until("the call in flight run by the server", client, within,
             [&] { return ran() > at_drop || Clock::now() - dropped_at > std::chrono::seconds(1); });
  uint64_t now = ran();
  note("executed", clients_start, server, std::nullopt,
       now > at_drop ? fmt::format("the server's {} count rose to {} after the replies were dropped", op, now)
                     : fmt::format("the server's {} count stayed at {} for 1 s after the replies were dropped: the "
                                   "call in flight had run, its reply lost", op, now));
}

void RestartEvent::run(NfsServer& server, netem::FaultBackend& link, process::ChildProcess& client,
                       Clock::time_point clients_start, std::chrono::milliseconds within, const nlohmann::json& start) {
  std::vector<netem::Direction> dropping;  // lifted however this ends
  auto drop = [&](netem::Direction toward, const char* what) {
    nlohmann::json did = netem::apply_one_way_drop(link, toward, netem::EventPhase::kStart);
    dropping.push_back(toward);
    note(what, clients_start, server, did);
  };
  auto lift = [&](netem::Direction toward, const char* what) {
    dropping.erase(std::find(dropping.begin(), dropping.end(), toward));
    note(what, clients_start, server, netem::apply_one_way_drop(link, toward, netem::EventPhase::kEnd));
  };
  int fd = -1;
  try {
    if (gate_) {
      // 1. The client at the gate: a reader holds the FIFO, so a non-blocking
      // open for writing succeeds (ENXIO until then).
      wait_until("the client at step " + std::to_string(restart_.step) + "'s gate", client, within, [&] {
        fd = ::open(fifo_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0 && errno != ENXIO)
          throw std::runtime_error("cannot open the step gate " + fifo_ + ": " + std::strerror(errno));
        return fd >= 0;
      });
      note("at_gate", clients_start, server);
      std::string proc = proc3_name(op_);
      std::optional<uint64_t> count_before =
          proc3_count(restart_.events.back().server_counters.value_or(nlohmann::json::object()), proc);

      // 2. Every packet to the client dropped, then the step let go.
      drop(netem::Direction::kToClient, "replies_dropped");
      char go = 'g';
      ssize_t wrote = ::write(fd, &go, 1);
      ::close(fd);
      fd = -1;
      if (wrote != 1) throw std::runtime_error(std::string("cannot let the step go: ") + std::strerror(errno));

      // 3. The server ran the call: the name is there (and its count rose).
      std::string path = server.export_dir() + "/" + restart_.name;
      wait_until(restart_.name + " made by the server", client, within, [&] {
        if (!std::filesystem::exists(path)) return false;
        if (!count_before) return true;
        std::optional<uint64_t> now = proc3_count(server.counters(), proc);
        return now && *now > *count_before;
      });
      note("executed", clients_start, server, std::nullopt,
           std::string(count_before ? "the name is in the export and proc3 " + proc + " rose"
                                    : "the name is in the export (the server counts nothing)"));
    } else {
      strike_in_flight(server, client, clients_start, within, start,
                       [&] { drop(netem::Direction::kToClient, "replies_dropped"); });
    }

    // 4. The requests dropped too, so the retransmissions that come while
    // the server restarts reach neither server (the old one would answer
    // from its cache, the new one run the call before the counters are
    // read); then restarted in place: its reply cache, in memory, is gone.
    drop(netem::Direction::kToServer, "requests_dropped");
    server.restart();
    note("restarted", clients_start, server);
    if (!gate_) {
      // The old server's last execution is the struck call: no call ran
      // after its reply was dropped, and none reached the new server yet.
      auto c = server.op_count_between(start, restart_.events.back().server_counters.value_or(nlohmann::json::object()),
                                       version_, op_);
      if (!c || c->count == 0) throw std::runtime_error("restart event: no call of the client ran before the restart");
      restart_.step = static_cast<uint32_t>(c->count);
      restart_.name = rpclab::nfs::step_name(restart_.client, restart_.step);
    }

    // 5. The link open again: the client's next retransmission meets the
    // new server's empty cache, and its answer comes back.
    lift(netem::Direction::kToClient, "replies_pass");
    lift(netem::Direction::kToServer, "requests_pass");
  } catch (...) {
    if (fd >= 0) ::close(fd);
    for (netem::Direction toward : dropping) {
      try {
        netem::apply_one_way_drop(link, toward, netem::EventPhase::kEnd);
      } catch (const std::exception&) {
        // The namespaces go with the cell; the first error is the one to tell.
      }
    }
    throw;
  }
}

NfsRestart RestartEvent::judged(const rpclab::nfs::NfsCallRecord& record, const NfsExportListing& end) const {
  NfsRestart r = restart_;
  const rpclab::nfs::NfsCall* call = nullptr;
  size_t index = 0;
  for (; index < record.calls.size(); ++index)
    if (record.calls[index].seq == r.step && record.calls[index].op == op_) {
      call = &record.calls[index];
      break;
    }
  if (!call) {
    r.why_no_replay = "the client's record has no call of step " + std::to_string(r.step);
    return r;
  }
  // A later call of the step (a RENAME) may have moved the name: then the
  // evidence that it ran is the `executed` event run() waited for.
  bool ran = effect_at_end(record, index, end).value_or(
      std::any_of(r.events.begin(), r.events.end(), [](const NfsEventStep& e) { return e.what == "executed"; }));
  r.told = call->nfs ? *call->nfs : call->rpc;
  NfsClass c = class_of(*call, ran);
  r.step_class = class_name(c);
  if (c == NfsClass::kReplayedToldFailure) {
    r.cause = "restart";
  } else if (gate_ && r.transport == "tcp" && !call->nfs) {
    r.why_no_replay = "clnt_vc does not send a call again after its connection is gone (the restart closed it); "
                      "the call ended with '" + call->rpc + (call->detail.empty() ? "" : ": " + call->detail) +
                      "' and ran once";
  } else if (call->nfs == "NFS3_OK") {
    r.why_no_replay = "told NFS3_OK: an answer the restarted server could not have given to a second execution";
  } else {
    r.why_no_replay = "told " + *r.told + (call->detail.empty() ? "" : " (" + call->detail + ")");
  }
  return r;
}

}  // namespace rpclab::harness::nfs
