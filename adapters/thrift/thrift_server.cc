// thrift-server: the counter of docs/adapters.md ("The server") served by
// Apache Thrift's TThreadedServer, TBinaryProtocol over TBufferedTransport
// on a TServerSocket. Written against the contract alone: no rpclab header,
// no rpclab library.
//
//   thrift-server --listen ADDR:PORT --journal PATH --ready-file PATH [--stats-file PATH]
//
// Every NEXT is one line of the lines journal, written with one write(2)
// before the reply (docs/adapters.md, "The lines journal"), with what
// Thrift lets a server tell of the request: the connection (numbered in
// accept order from 1 per start), the peer's address, and the request id:
// the binary protocol's message sequence id, which the generated processor
// reads but hands the handler only the arguments, so a protocol decorator
// keeps it for the handler (thrift-client numbers its calls 1, 2, ...).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>

#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/protocol/TProtocolDecorator.h>
#include <thrift/server/TThreadedServer.h>
#include <thrift/transport/TBufferTransports.h>
#include <thrift/transport/TServerSocket.h>
#include <thrift/transport/TSocket.h>

#include "Counter.h"
#include "flags.h"

namespace {

using apache::thrift::TProcessor;
using apache::thrift::protocol::TBinaryProtocol;
using apache::thrift::protocol::TMessageType;
using apache::thrift::protocol::TProtocol;
using apache::thrift::protocol::TProtocolDecorator;
using apache::thrift::protocol::TProtocolFactory;
using apache::thrift::transport::TSocket;
using apache::thrift::transport::TTransport;
using apache::thrift::server::TServerEventHandler;
using apache::thrift::server::TThreadedServer;
using apache::thrift::transport::TBufferedTransportFactory;
using apache::thrift::transport::TServerSocket;

constexpr const char* kProgram = "thrift-server";

[[noreturn]] void die(const std::string& why, int status = 1) {
  std::fprintf(stderr, "%s: %s\n", kProgram, why.c_str());
  std::exit(status);
}

int64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

// The counter and its journal: Levy's check exactly as the contract
// spells it, under one lock that also covers the journal line, so a
// repeat arriving on another connection waits for the first copy's line.
class Counter {
 public:
  explicit Counter(const std::string& path) {
    std::string old = read_whole(path);
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) die("--journal: cannot open " + path + ": " + std::strerror(errno), 3);
    int starts = 0;
    if (old.empty()) {
      append("{\"format\":\"rpclab-journal-lines\",\"version\":1,\"transport\":\"thrift\"}\n");
    } else {
      starts = recover(old, path);
      if (old.back() != '\n') append("\n");  // ends the line a SIGKILL tore
    }
    append("{\"start\":" + std::to_string(starts + 1) + ",\"pid\":" + std::to_string(::getpid()) + "}\n");
  }

  // `origin`: the line's optional fields, ",\"connection\":N,..." or "".
  counter::NextReply next(uint32_t client_id, uint32_t seq, const std::string& origin) {
    int64_t arrived = realtime_ns();
    std::lock_guard<std::mutex> lock(mu_);
    uint32_t& expected = expected_[client_id];
    uint32_t times = ++times_[key(client_id, seq)];
    uint32_t status = seq == expected ? 0 : 1;
    counter::NextReply reply;
    reply.status = static_cast<int32_t>(status);
    reply.expected_seq = static_cast<int32_t>(expected);
    reply.times_executed = static_cast<int32_t>(times);
    char line[200];
    int n = std::snprintf(line, sizeof line, "{\"exec\":[%u,%u,%u,%u,%u],\"realtime_ns\":%lld", client_id, seq,
                          status, expected, times, static_cast<long long>(arrived));
    expected = std::max(expected, seq + 1);
    append(std::string(line, static_cast<size_t>(n)) + origin + "}\n");  // before the reply leaves
    return reply;
  }

  // Waits for the call under way, if any, to finish its line.
  std::unique_lock<std::mutex> quiesce() { return std::unique_lock<std::mutex>(mu_); }

 private:
  static uint64_t key(uint32_t client_id, uint32_t seq) { return uint64_t{client_id} << 32 | seq; }

  static std::string read_whole(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // The counter as the journal leaves it: every whole exec line counts;
  // a torn last line (no newline) does not. Returns the starts so far.
  int recover(const std::string& text, const std::string& path) {
    if (text.rfind("{\"format\":\"rpclab-journal-lines\"", 0) != 0) die("--journal: " + path + " is not a lines journal", 2);
    int starts = 0;
    size_t at = 0;
    for (size_t end; (end = text.find('\n', at)) != std::string::npos; at = end + 1) {
      std::string line = text.substr(at, end - at);
      if (line.rfind("{\"start\":", 0) == 0) ++starts;
      unsigned c, s, status, expected, times;
      if (std::sscanf(line.c_str(), "{\"exec\":[%u,%u,%u,%u,%u]", &c, &s, &status, &expected, &times) == 5) {
        times_[key(c, s)] = times;
        uint32_t& e = expected_[c];
        e = std::max(e, s + 1);
      }
    }
    return starts;
  }

  void append(const std::string& line) {
    ssize_t n = ::write(fd_, line.data(), line.size());
    // A journal that cannot be written breaks the contract: better no
    // server than replies with no record.
    if (n != static_cast<ssize_t>(line.size())) die(std::string("the journal cannot be written: ") + std::strerror(errno));
  }

  std::mutex mu_;
  int fd_ = -1;
  std::unordered_map<uint32_t, uint32_t> expected_;
  std::unordered_map<uint64_t, uint32_t> times_;
};

// The connection a call came on: numbered when accepted, its peer read
// from the socket on its first call. Thrift runs each connection's calls
// on one thread, so the event handler leaves it in a thread_local for
// the handler.
struct Connection {
  uint32_t number = 0;
  std::string journal_fields;  // ",\"connection\":N[,\"peer\":\"a.b.c.d:port\"]"
  bool looked = false;
};
thread_local const Connection* t_connection = nullptr;

// The sequence id of the message this thread read last: TThreadedServer
// reads a connection's requests and runs their handlers on one thread.
thread_local int64_t t_request_id = -1;

// TBinaryProtocol that keeps each request's sequence id for the journal.
class RequestIdProtocol : public TProtocolDecorator {
 public:
  using TProtocolDecorator::TProtocolDecorator;
  uint32_t readMessageBegin_virt(std::string& name, TMessageType& type, int32_t& seqid) override {
    uint32_t n = TProtocolDecorator::readMessageBegin_virt(name, type, seqid);
    t_request_id = static_cast<uint32_t>(seqid);
    return n;
  }
};

class RequestIdProtocolFactory : public TProtocolFactory {
 public:
  std::shared_ptr<TProtocol> getProtocol(std::shared_ptr<TTransport> transport) override {
    return std::make_shared<RequestIdProtocol>(std::make_shared<TBinaryProtocol>(std::move(transport)));
  }
};

// Calls served, for --stats-file.
struct Counts {
  std::atomic<uint64_t> null_calls{0}, next_calls{0}, echo_calls{0}, mismatches{0};
};

class Handler : public counter::CounterIf {
 public:
  Handler(Counter& counter, Counts& counts) : counter_(counter), counts_(counts) {}
  void ping() override { ++counts_.null_calls; }
  void next_call(counter::NextReply& reply, const int32_t client_id, const int32_t seq) override {
    std::string origin = t_connection ? t_connection->journal_fields : std::string();
    if (t_request_id >= 0) origin += ",\"request_id\":" + std::to_string(t_request_id);
    reply = counter_.next(static_cast<uint32_t>(client_id), static_cast<uint32_t>(seq), origin);
    ++counts_.next_calls;
    counts_.mismatches += reply.status == 1;
  }
  void echo(std::string& reply, const std::string& payload) override {
    reply = payload;
    ++counts_.echo_calls;
  }

 private:
  Counter& counter_;
  Counts& counts_;
};

int64_t cpu_us(const timeval& tv) { return int64_t{tv.tv_sec} * 1000000 + tv.tv_usec; }

// docs/results-format.md, "Server ready and stats files": on SIGUSR1.
void write_stats(const std::string& path, const Counts& c, int generation) {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::string tmp = path + ".tmp";
  std::ofstream out(tmp);
  out << "{\"generation\":" << generation << ",\"null_calls\":" << c.null_calls << ",\"next_calls\":" << c.next_calls
      << ",\"echo_calls\":" << c.echo_calls << ",\"allman_calls\":0,\"record_calls\":0,\"mismatches\":" << c.mismatches
      << ",\"answered_from_table\":0,\"refused_stale\":0,\"cpu_user_us\":" << cpu_us(ru.ru_utime)
      << ",\"cpu_sys_us\":" << cpu_us(ru.ru_stime) << "}\n";
  out.close();
  if (out) ::rename(tmp.c_str(), path.c_str());
}

// Writes the ready file once the socket listens (TServerFramework calls
// preServe after listen()): a temporary file, then rename. Numbers the
// connections and tells the handler which one a call came on.
class Events : public TServerEventHandler {
 public:
  Events(std::shared_ptr<TServerSocket> socket, std::string path) : socket_(std::move(socket)), path_(std::move(path)) {}
  void* createContext(std::shared_ptr<TProtocol>, std::shared_ptr<TProtocol>) override {
    auto* c = new Connection;
    c->number = ++connections_;
    c->journal_fields = ",\"connection\":" + std::to_string(c->number);
    return c;
  }
  void deleteContext(void* context, std::shared_ptr<TProtocol>, std::shared_ptr<TProtocol>) override {
    delete static_cast<Connection*>(context);
  }
  void processContext(void* context, std::shared_ptr<TTransport> transport) override {
    auto* c = static_cast<Connection*>(context);
    if (!c->looked) {
      c->looked = true;
      in_addr ipv4{};
      auto socket = std::dynamic_pointer_cast<TSocket>(transport);
      if (socket && ::inet_pton(AF_INET, socket->getPeerAddress().c_str(), &ipv4) == 1)
        c->journal_fields += ",\"peer\":\"" + socket->getPeerAddress() + ":" + std::to_string(socket->getPeerPort()) + "\"";
    }
    t_connection = c;
  }
  void preServe() override {
    int port = socket_->getPort();
    std::fprintf(stderr, "%s: serving on port %d (pid %d)\n", kProgram, port, ::getpid());
    std::string tmp = path_ + ".tmp";
    std::ofstream out(tmp);
    out << "{\"port\":" << port << ",\"pid\":" << ::getpid() << "}\n";
    out.close();
    if (!out || ::rename(tmp.c_str(), path_.c_str()) != 0) die("cannot write the ready file " + path_);
  }

 private:
  std::shared_ptr<TServerSocket> socket_;
  std::string path_;
  std::atomic<uint32_t> connections_{0};
};

// Whether ADDR:PORT can be bound (Thrift's own error does not say
// "in use" in so many words, and the harness tries the next port on it).
void check_free(const std::string& host, int port) {
  if (port == 0) return;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1) return;  // a name: Thrift resolves it
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  bool taken = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 && errno == EADDRINUSE;
  ::close(fd);
  if (taken) die(host + ":" + std::to_string(port) + ": address in use", 3);
}

}  // namespace

int main(int argc, char** argv) {
  Flags f(argc, argv, {"--listen", "--journal", "--ready-file", "--stats-file"}, {"--at-most-once"}, kProgram);
  if (f.has("--at-most-once")) f.usage("--at-most-once: this adapter does not implement it (its manifest says so)");
  std::string host;
  int port = 0;
  split_host_port(f, "--listen", &host, &port);
  std::string journal = f.required("--journal"), ready = f.required("--ready-file"), stats = f.text("--stats-file");
  check_free(host, port);

  // SIGTERM and SIGINT are taken by a thread of their own (blocked here,
  // before Thrift starts any thread, so every thread inherits the mask).
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  Counter counter(journal);
  Counts counts;
  auto socket = std::make_shared<TServerSocket>(host, port);
  TThreadedServer server(std::make_shared<counter::CounterProcessor>(std::make_shared<Handler>(counter, counts)), socket,
                         std::make_shared<TBufferedTransportFactory>(), std::make_shared<RequestIdProtocolFactory>());
  server.setServerEventHandler(std::make_shared<Events>(socket, ready));
  // The journal holds every answered call the moment it is answered, so a
  // stop needs no more than that no line is half written: wait for the
  // call under way, then leave (TThreadedServer::stop would wait for every
  // connected client to hang up).
  std::thread([&counter, &counts, stop_signals, stats] {
    int sig = 0;
    for (int generation = 1; sigwait(&stop_signals, &sig) == 0 && sig == SIGUSR1; ++generation)
      if (!stats.empty()) write_stats(stats, counts, generation);
    auto held = counter.quiesce();
    std::fprintf(stderr, "%s: stopped by signal %d\n", kProgram, sig);
    std::_Exit(0);
  }).detach();
  try {
    server.serve();
  } catch (const std::exception& e) {
    die(std::string("cannot serve: ") + e.what(), 3);
  }
  return 0;
}
