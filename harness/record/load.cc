#include "harness/record/load.h"

#include "harness/record/json_fields.h"

namespace rpclab::harness {

using nlohmann::json;

TrialLoad TrialLoad::measured(const netem::MeasuredLoad& m) {
  TrialLoad l;
  l.hogs = m.hogs;
  l.window_s = m.seconds;
  l.samples = m.samples;
  l.server_cpu = MaybeNull<int>::of(m.server_cpu);
  l.server_cpu_run_queue = MaybeNull<double>::of(m.server_cpu_run_queue);
  l.server_cpu_method =
      m.server_cpu_run_queue ? MaybeNull<std::string>::of(m.server_cpu_method) : MaybeNull<std::string>::null();
  l.server_wait_us_per_timeslice = MaybeNull<double>::of(m.server_wait_us_per_timeslice);
  l.server_run_s = m.server_run_s;
  l.server_wait_s = m.server_wait_s;
  l.server_timeslices = m.server_timeslices;
  l.run_queue_mean = m.machine_run_queue;
  l.loadavg_1m = m.loadavg_1m;
  return l;
}

namespace {

template <typename Io, typename L>
void describe_trial(Io& io, L& l) {
  io("hogs", l.hogs);
  io("measured", l.not_measured);
  io("window_s", l.window_s);
  io("samples", l.samples);
  io("server_cpu", l.server_cpu);
  io("server_cpu_run_queue", l.server_cpu_run_queue);
  io("server_cpu_method", l.server_cpu_method);
  io("server_wait_us_per_timeslice", l.server_wait_us_per_timeslice);
  io("server_run_s", l.server_run_s);
  io("server_wait_s", l.server_wait_s);
  io("server_timeslices", l.server_timeslices);
  io("run_queue_mean", l.run_queue_mean);
  io("loadavg_1m", l.loadavg_1m);
  io("settle_s", l.settle_s);
  io("settled", l.settled);
  io("server_cpus", l.server_cpus);
  io("client_cpus", l.client_cpus);
}

template <typename Io, typename L>
void describe_cell(Io& io, L& l) {
  io("hogs", l.hogs);
  io("server_cpu_run_queue", l.server_cpu_run_queue);
  io("server_cpu_run_queue_range", l.server_cpu_run_queue_range);
  io("server_cpu_method", l.server_cpu_method);
  io("server_wait_us_per_timeslice", l.server_wait_us_per_timeslice);
  io("run_queue_mean", l.run_queue_mean);
  io("loadavg_1m", l.loadavg_1m);
  io("samples", l.samples);
  io("server_cpus", l.server_cpus);
  io("client_cpus", l.client_cpus);
}

}  // namespace

void to_json(json& j, const TrialLoad& l) {
  fields::ObjectWriter out(j);
  describe_trial(out, l);
}

void from_json(const json& j, TrialLoad& l) {
  l = TrialLoad{};
  fields::ObjectReader in(j);
  describe_trial(in, l);
}

void to_json(json& j, const CellLoad& l) {
  fields::ObjectWriter out(j);
  describe_cell(out, l);
}

void from_json(const json& j, CellLoad& l) {
  l = CellLoad{};
  fields::ObjectReader in(j);
  describe_cell(in, l);
}

}  // namespace rpclab::harness
