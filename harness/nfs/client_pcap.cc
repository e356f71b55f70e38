#include "harness/nfs/client_pcap.h"

#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace rpclab::harness::nfs {

namespace {

constexpr const char* kTcpdump = "/usr/bin/tcpdump";

}  // namespace

std::string tcpdump_missing() {
  if (::access(kTcpdump, X_OK) != 0) return std::string(kTcpdump) + " is missing (apt-get install tcpdump)";
  return "";
}

ClientPcap::ClientPcap(const netem::Host& client, const std::string& path, process::CommandLog& log,
                       std::chrono::milliseconds ready_within)
    : path_(path), stderr_path_(path + ".tcpdump.err") {
  if (std::string why = tcpdump_missing(); !why.empty()) throw std::runtime_error("--pcap: " + why);
  if (client.netns.empty() || client.ifname.empty())
    throw std::runtime_error("--pcap: the client has no namespace and link of its own to capture on");
  process::SpawnOptions spawn;
  spawn.netns = client.netns;
  spawn.stderr_path = stderr_path_;
  // --immediate-mode: each packet reaches tcpdump as it comes (without it,
  // libpcap hands over whole ring blocks, and a cell shorter than the
  // block timeout ended with "0 packets captured"); -U: each is written
  // as it is captured; -Z root: tcpdump
  // keeps root's rights, so it can write where the cell's root-owned
  // folder is.
  tcpdump_ = std::make_unique<process::ChildProcess>(
      std::vector<std::string>{kTcpdump, "-i", client.ifname, "-n", "-s", "0", "--immediate-mode", "-U", "-Z", "root", "-w", path}, spawn,
      log);
  auto deadline = std::chrono::steady_clock::now() + ready_within;
  while (stderr_text().find("listening on") == std::string::npos) {
    if (!tcpdump_->running()) throw std::runtime_error("--pcap: tcpdump ended before it listened: " + stderr_text());
    if (std::chrono::steady_clock::now() > deadline) {
      tcpdump_->stop(std::chrono::seconds(1));
      throw std::runtime_error("--pcap: tcpdump did not listen within " + std::to_string(ready_within.count()) +
                               " ms: " + stderr_text());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

ClientPcap::~ClientPcap() {
  if (tcpdump_) stop();
}

std::string ClientPcap::stderr_text() const {
  std::ifstream in(stderr_path_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string ClientPcap::stop() {
  if (!tcpdump_) return summary_;
  tcpdump_->signal(SIGINT);
  auto status = tcpdump_->wait_for(std::chrono::seconds(5));
  if (!status) {
    tcpdump_->stop(std::chrono::seconds(1));
    summary_ = "tcpdump did not end within 5 s of SIGINT (killed; the file may lack its last packets)";
  } else {
    std::string text = stderr_text();
    size_t at = text.find("packets captured");
    size_t line = at == std::string::npos ? std::string::npos : text.rfind('\n', at);
    summary_ = at == std::string::npos ? "tcpdump: " + process::describe_wait_status(*status) + ": " + text
                                       : text.substr(line == std::string::npos ? 0 : line + 1);
    while (!summary_.empty() && summary_.back() == '\n') summary_.pop_back();
    for (char& c : summary_)
      if (c == '\n') c = ';';
  }
  tcpdump_.reset();
  return summary_;
}

}  // namespace rpclab::harness::nfs
