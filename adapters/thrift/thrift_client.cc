// thrift-client: the calls of docs/adapters.md ("The client") through
// Apache Thrift's generated CounterClient, TBinaryProtocol over
// TBufferedTransport on a TSocket, and the call record they leave
// (docs/results-format.md, "Call records", version 2). Written against the
// contract alone: no rpclab header, no rpclab library.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <thrift/TApplicationException.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/protocol/TProtocolDecorator.h>
#include <thrift/protocol/TProtocolException.h>
#include <thrift/transport/TBufferTransports.h>
#include <thrift/transport/TSocket.h>
#include <thrift/transport/TTransportException.h>

#include "Counter.h"
#include "flags.h"

namespace {

using apache::thrift::TApplicationException;
using apache::thrift::protocol::TBinaryProtocol;
using apache::thrift::protocol::TMessageType;
using apache::thrift::protocol::TProtocol;
using apache::thrift::protocol::TProtocolDecorator;
using apache::thrift::protocol::TProtocolException;
using apache::thrift::transport::TBufferedTransport;
using apache::thrift::transport::TSocket;
using apache::thrift::transport::TTransport;
using apache::thrift::transport::TTransportException;
using Clock = std::chrono::steady_clock;

constexpr const char* kProgram = "thrift-client";
std::atomic<bool> g_stop{false};

int64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

int64_t ns_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
}

// Numbers the requests: the generated CounterClient sends sequence id 0
// on every call, so each call here gets the next of 1, 2, ... (per
// process, across its connections; an application retry is a new call
// with a new id), which the server's journal keeps as request_id.
class NumberedProtocol : public TProtocolDecorator {
 public:
  NumberedProtocol(std::shared_ptr<TProtocol> protocol, int32_t* last) : TProtocolDecorator(std::move(protocol)), last_(last) {}
  uint32_t writeMessageBegin_virt(const std::string& name, const TMessageType type, const int32_t) override {
    return TProtocolDecorator::writeMessageBegin_virt(name, type, ++*last_);
  }

 private:
  int32_t* last_;
};

int64_t cpu_us(const timeval& tv) { return int64_t{tv.tv_sec} * 1000000 + tv.tv_usec; }

// One call's outcome in the contract's seven words.
struct Outcome {
  std::string kind = "ok";
  std::string detail;
};

Outcome of_transport(const TTransportException& e) {
  switch (e.getType()) {
    case TTransportException::TIMED_OUT: return {"timeout", e.what()};
    case TTransportException::NOT_OPEN: return {"unavailable", e.what()};
    case TTransportException::END_OF_FILE: return {"cannot_receive", e.what()};
    default: return {"cannot_receive", e.what()};
  }
}

// Whether the connection is gone (then it is made again before the next
// call); a timeout keeps it, late replies and all, as the library leaves it.
// The start gate of docs/adapters.md: open start-go first, say ready on
// start-ready, wait (in slices, so SIGTERM is seen) for one byte. An error
// is printed and the program exits 3 (it could not be set up).
void wait_at_start_gate(const std::string& dir) {
  auto fail = [&](const std::string& what) {
    std::fprintf(stderr, "%s: start gate %s: %s\n", kProgram, dir.c_str(), what.c_str());
    std::exit(3);
  };
  int go = ::open((dir + "/start-go").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (go < 0) fail(std::string("cannot open start-go: ") + std::strerror(errno));
  int ready = ::open((dir + "/start-ready").c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  char byte = 'r';
  if (ready < 0 || ::write(ready, &byte, 1) != 1) fail(std::string("cannot say ready: ") + std::strerror(errno));
  ::close(ready);
  const Clock::time_point deadline = Clock::now() + std::chrono::minutes(10);
  while (!g_stop) {
    if (Clock::now() > deadline) fail("not opened within 10 minutes");
    pollfd p{go, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    ssize_t got = ::read(go, &byte, 1);
    if (got == 1) break;
    if (got == 0) fail("closed without letting the client go");
  }
  ::close(go);
}

bool breaks(const Outcome& o) { return o.kind == "unavailable" || o.kind == "cannot_send" || o.kind == "cannot_receive"; }
bool retried_after(const Outcome& o) { return breaks(o) || o.kind == "timeout"; }

class Connection {
 public:
  Connection(std::string host, int port, int timeout_ms) : host_(std::move(host)), port_(port), timeout_ms_(timeout_ms) {}

  // One call of `op`; `seq` numbers NEXT.
  Outcome call(const std::string& op, uint32_t client_id, uint32_t seq, const std::string& payload) {
    try {
      if (!client_) open();
    } catch (const TTransportException& e) {
      client_.reset();
      return {"unavailable", e.what()};
    }
    Outcome o;
    try {
      if (op == "next") {
        counter::NextReply reply;
        client_->next_call(reply, static_cast<int32_t>(client_id), static_cast<int32_t>(seq));
      } else if (op == "echo") {
        std::string back;
        client_->echo(back, payload);
        if (back != payload) o = {"other", "the ECHO reply differs from the request"};
      } else {
        client_->ping();
      }
    } catch (const TTransportException& e) {
      o = of_transport(e);
    } catch (const TProtocolException& e) {
      o = {"cannot_code", e.what()};
    } catch (const TApplicationException& e) {
      o = {"other", e.what()};
    } catch (const std::exception& e) {
      o = {"other", e.what()};
    }
    if (breaks(o)) close();
    return o;
  }
  void close() {
    if (transport_) {
      try {
        transport_->close();
      } catch (const std::exception&) {
        // already gone
      }
    }
    client_.reset();
    transport_.reset();
  }

 private:
  void open() {
    auto socket = std::make_shared<TSocket>(host_, port_);
    if (timeout_ms_ > 0) {
      socket->setConnTimeout(timeout_ms_);
      socket->setRecvTimeout(timeout_ms_);
      socket->setSendTimeout(timeout_ms_);
    }
    transport_ = std::make_shared<TBufferedTransport>(socket);
    transport_->open();
    client_ = std::make_unique<counter::CounterClient>(
        std::make_shared<NumberedProtocol>(std::make_shared<TBinaryProtocol>(transport_), &last_request_id_));
  }

  std::string host_;
  int port_;
  int timeout_ms_;
  std::shared_ptr<TTransport> transport_;
  std::unique_ptr<counter::CounterClient> client_;
  int32_t last_request_id_ = 0;
};

struct Attempt {
  Outcome outcome;
  int64_t latency_ns = 0, start_ns = 0;
};

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return text;
}

std::string json_text(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  Flags f(argc, argv,
          {"--server", "--calls", "--client-id", "--first-seq", "--op", "--size", "--warmup", "--connect", "--record",
           "--timeout", "--retry-policy", "--app-retries", "--app-backoff", "--app-backoff-max", "--duration",
           "--start-at", "--start-gate"},
          {}, kProgram);
  std::string host;
  int port = 0;
  split_host_port(f, "--server", &host, &port);
  const long long calls = f.number("--calls", 1000), warmup = f.number("--warmup", 0);
  const uint32_t client_id = static_cast<uint32_t>(f.number("--client-id", 1));
  const uint32_t first_seq = static_cast<uint32_t>(f.number("--first-seq", 0));
  const std::string op = f.text("--op", "next"), connect = f.text("--connect", "persistent");
  const std::string policy = f.text("--retry-policy", "none"), record_path = f.required("--record");
  const long long size = f.number("--size", 0), timeout_ms = f.number("--timeout", 0);
  const long long duration_ms = f.number("--duration", 0), start_at = f.number("--start-at", 0);
  const std::string start_gate = f.text("--start-gate", "");
  const int retries = static_cast<int>(f.number("--app-retries", 3));
  const long long backoff_ms = f.number("--app-backoff", 50), backoff_max_ms = f.number("--app-backoff-max", 1000);
  if (op != "next" && op != "echo" && op != "null") f.usage("--op: this adapter carries next, echo and null");
  if (connect != "persistent" && connect != "per-call") f.usage("--connect: persistent or per-call");
  if (policy != "none" && policy != "app") f.usage("--retry-policy: none or app (Thrift's C++ library has no retry)");
  if (calls < 1 || size < 0 || size > (16 << 20) || timeout_ms < 0) f.usage("a value out of range");

  struct sigaction sa{};
  sa.sa_handler = [](int) { g_stop = true; };
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  Connection conn(host, port, static_cast<int>(timeout_ms));
  const bool per_call = connect == "per-call";
  const std::string payload(op == "echo" ? static_cast<size_t>(size) : 0, 'x');
  for (long long i = 0; i < warmup && !g_stop; ++i) {  // NULL for NEXT: warm-ups stay out of the ledger
    conn.call(op == "next" ? "null" : op, client_id, first_seq, payload);
    if (per_call) conn.close();
  }
  if (start_at) {
    int64_t wait = start_at - realtime_ns();
    if (wait > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(wait));
  }
  if (!start_gate.empty()) wait_at_start_gate(start_gate);

  std::string lines;
  std::map<std::string, uint64_t> outcomes;
  uint64_t made = 0, ok = 0;
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  const int64_t started = realtime_ns();
  const Clock::time_point t0 = Clock::now();
  for (long long i = 0; i < calls && !g_stop; ++i) {
    if (duration_ms && Clock::now() - t0 >= std::chrono::milliseconds(duration_ms)) break;
    uint32_t seq = op == "next" ? first_seq + static_cast<uint32_t>(i) : static_cast<uint32_t>(i);
    std::vector<Attempt> attempts;
    long long wait_ms = backoff_ms;
    for (int a = 0;; ++a) {
      Clock::time_point s = Clock::now();
      Outcome o = conn.call(op, client_id, seq, payload);
      if (per_call) conn.close();
      attempts.push_back({o, ns_between(s, Clock::now()), ns_between(t0, s)});
      if (policy != "app" || !retried_after(o) || a >= retries || g_stop) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
      wait_ms = std::min(wait_ms * 2, backoff_max_ms);
      conn.close();  // the application's loop: a new connection, the same call again
    }
    const Attempt& first = attempts.front();
    const Attempt& last = attempts.back();
    ++made;
    ++outcomes[last.outcome.kind];
    ok += last.outcome.kind == "ok";
    lines += std::to_string(seq) + '\t' + last.outcome.kind + '\t' +
             std::to_string(last.start_ns + last.latency_ns - first.start_ns) + '\t' + std::to_string(first.start_ns) +
             '\t' + std::to_string(attempts.size());
    if (!last.outcome.detail.empty()) lines += '\t' + one_line(last.outcome.detail);
    lines += '\n';
    if (attempts.size() > 1)
      for (size_t n = 0; n < attempts.size(); ++n) {
        const Attempt& at = attempts[n];
        lines += '+' + std::to_string(n + 1) + '\t' + at.outcome.kind + '\t' + std::to_string(at.latency_ns) + '\t' +
                 std::to_string(at.start_ns);
        if (!at.outcome.detail.empty()) lines += '\t' + one_line(at.outcome.detail);
        lines += '\n';
      }
  }
  const int64_t wall_ns = ns_between(t0, Clock::now());
  getrusage(RUSAGE_SELF, &after);

  std::string counts;
  for (const auto& [kind, n] : outcomes) counts += (counts.empty() ? "" : ",") + json_text(kind) + ":" + std::to_string(n);
  std::string header = "{\"format\":\"rpclab-call-record\",\"version\":2,\"transport\":\"thrift\"";
  header += ",\"server\":" + json_text(f.text("--server")) + ",\"connect\":" + json_text(connect) +
            ",\"op\":" + json_text(op) + ",\"client_id\":" + std::to_string(client_id) +
            ",\"size\":" + std::to_string(size) + ",\"calls_planned\":" + std::to_string(calls) +
            ",\"calls_made\":" + std::to_string(made) + ",\"warmup\":" + std::to_string(warmup) +
            ",\"interrupted\":" + (g_stop && made < static_cast<uint64_t>(calls) ? "true" : "false") +
            (duration_ms ? ",\"duration_ms\":" + std::to_string(duration_ms) : "") +
            ",\"start_realtime_ns\":" + std::to_string(started) +
            ",\"end_realtime_ns\":" + std::to_string(started + wall_ns) + ",\"wall_ns\":" + std::to_string(wall_ns) +
            ",\"cpu_user_us\":" + std::to_string(cpu_us(after.ru_utime) - cpu_us(before.ru_utime)) +
            ",\"cpu_sys_us\":" + std::to_string(cpu_us(after.ru_stime) - cpu_us(before.ru_stime)) +
            ",\"outcomes\":{" + counts + "}" +
            ",\"retry\":{\"policy\":" + json_text(policy) +
            ",\"library\":\"TSocket never sends a call again; TCP retransmits segments\"}" +
            ",\"settings\":{\"timeout_ms\":" + std::to_string(timeout_ms) +
            ",\"timeout_is_default\":" + (timeout_ms ? "false" : "true") +
            ",\"retry_timeout_ms\":-1,\"retry_is_default\":true,\"max_payload\":16777216"
            ",\"library\":\"Apache Thrift 0.17.0\"},\"pid\":" + std::to_string(::getpid()) + "}\n";

  std::string tmp = record_path + ".tmp";
  std::ofstream out(tmp, std::ios::binary);
  out << header << lines;
  out.close();
  if (!out || std::rename(tmp.c_str(), record_path.c_str()) != 0) {
    std::fprintf(stderr, "%s: cannot write the record %s\n", kProgram, record_path.c_str());
    return 1;
  }
  std::fprintf(stderr, "%s: %s x%llu, %llu ok\n", kProgram, op.c_str(), static_cast<unsigned long long>(made),
               static_cast<unsigned long long>(ok));
  return ok ? 0 : 1;
}
