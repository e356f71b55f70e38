#include "netem/load/load_meter.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <chrono>
#include <fstream>

namespace rpclab::netem {
namespace {

// Every 100 ms: enough samples in a 2 s trial, and a scan of /proc costs
// about a millisecond of a client CPU.
constexpr auto kSampleEvery = std::chrono::milliseconds(100);

double monotonic_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

void pin_this_thread(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

std::optional<double> opt(bool have, double v) { return have ? std::optional<double>(v) : std::nullopt; }

nlohmann::json maybe(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

}  // namespace

double loadavg_1m() {
  std::ifstream in("/proc/loadavg");
  double v = 0;
  in >> v;
  return v;
}

LoadMeter::LoadMeter(pid_t server, std::vector<int> server_cpus, std::vector<int> sampler_cpus) : server_(server) {
  if (server_cpus.size() == 1) cpu_ = server_cpus.front();
  if (cpu_) cpu_start_ = read_cpu_schedstat(*cpu_);
  started_s_ = monotonic_s();
  add_server_threads(true);
  sample();
  sampler_ = std::thread([this, sampler_cpus] {
    pin_this_thread(sampler_cpus);
    while (sampling_.load()) {
      std::this_thread::sleep_for(kSampleEvery);
      if (sampling_.load()) sample();
    }
  });
}

LoadMeter::~LoadMeter() {
  sampling_ = false;
  if (sampler_.joinable()) sampler_.join();
}

// A thread seen for the first time after the start was born in the window,
// so all its times count; one that ends between samples loses at most its
// last 100 ms.
void LoadMeter::add_server_threads(bool first) {
  std::map<pid_t, SchedTimes> now = read_thread_schedstats(server_);
  if (!first)
    for (const auto& [tid, times] : now) {
      auto before = threads_.find(tid);
      server_times_ += before == threads_.end() ? times : times - before->second;
    }
  for (const auto& [tid, times] : now) threads_[tid] = times;
}

void LoadMeter::sample() {
  machine_sum_ += procs_running();
  if (cpu_ && !cpu_start_) cpu_sum_ += runnable_on_cpu(*cpu_);
  ++samples_;
  if (samples_ > 1) add_server_threads(false);
}

MeasuredLoad LoadMeter::finish(int hogs) {
  MeasuredLoad m;
  m.hogs = hogs;
  m.loadavg_1m = loadavg_1m();  // while the hogs still run: the window's end
  sampling_ = false;
  if (sampler_.joinable()) sampler_.join();
  sample();
  m.seconds = monotonic_s() - started_s_;
  m.samples = samples_;
  m.machine_run_queue = machine_sum_ / samples_;
  m.server_cpu = cpu_;
  if (cpu_ && cpu_start_) {
    if (auto end = read_cpu_schedstat(*cpu_)) {
      SchedTimes d = *end - *cpu_start_;
      m.server_cpu_run_queue = opt(m.seconds > 0, static_cast<double>(d.run_ns + d.wait_ns) / 1e9 / m.seconds);
      m.server_cpu_method = "schedstat";
    }
  } else if (cpu_) {
    m.server_cpu_run_queue = cpu_sum_ / samples_;
    m.server_cpu_method = "sampled";
  }
  m.server_run_s = static_cast<double>(server_times_.run_ns) / 1e9;
  m.server_wait_s = static_cast<double>(server_times_.wait_ns) / 1e9;
  m.server_timeslices = server_times_.timeslices;
  m.server_wait_us_per_timeslice =
      opt(server_times_.timeslices > 0, static_cast<double>(server_times_.wait_ns) / 1e3 / static_cast<double>(server_times_.timeslices));
  return m;
}

nlohmann::json MeasuredLoad::to_json() const {
  return {{"hogs", hogs},
          {"window_s", seconds},
          {"samples", samples},
          {"server_cpu", server_cpu ? nlohmann::json(*server_cpu) : nlohmann::json(nullptr)},
          {"server_cpu_run_queue", maybe(server_cpu_run_queue)},
          {"server_cpu_method", server_cpu_run_queue ? nlohmann::json(server_cpu_method) : nlohmann::json(nullptr)},
          {"server_wait_us_per_timeslice", maybe(server_wait_us_per_timeslice)},
          {"server_run_s", server_run_s},
          {"server_wait_s", server_wait_s},
          {"server_timeslices", server_timeslices},
          {"run_queue_mean", machine_run_queue},
          {"loadavg_1m", loadavg_1m}};
}

}  // namespace rpclab::netem
