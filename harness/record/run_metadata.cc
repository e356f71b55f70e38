#include "harness/record/run_metadata.h"

#include <fstream>

#include "harness/record/json_fields.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;
using fields::ObjectReader;
using fields::ObjectWriter;

template <typename Io, typename K>
void describe_kernel(Io& io, K& k) {
  io("release", k.release);
  io("version", k.version);
  io("machine", k.machine);
}

template <typename Io, typename H>
void describe_host(Io& io, H& h) {
  io("hostname", h.hostname);
  io("os", h.os);
  io("kernel", h.kernel);
  io("cpu_model", h.cpu_model);
  io("cpu_count", h.cpu_count);
}

template <typename Io, typename B>
void describe_build(Io& io, B& b) {
  io("version", b.version);
  io("git_commit", b.git_commit);
}

template <typename Io, typename M>
void describe_metadata(Io& io, M& m) {
  io("run_id", m.run_id);
  io("experiment", m.experiment);
  io("preset", m.preset);
  io("workload", m.workload);
  io("wire_capture", m.wire_capture);
  io("invocation", m.invocation);
  io("command_line", m.command_line);
  io("matrix_digest", m.matrix_digest);
  io("started_at", m.started_at);
  io("ended_at", m.ended_at);
  io("cells", m.cells);
  io("trials", m.trials);
  io("shuffle_seed", m.shuffle_seed);
  io("title", m.title);
  io("rpclab", m.rpclab);
  io("host", m.host);
  io("capabilities", m.capabilities);
  io("server_host", m.server_host);
  io("client_host", m.client_host);
  io("summary", m.summary);
  io("latency_pinned", m.latency_pinned);
  io("latency_pin_note", m.latency_pin_note);
  io("adapters_skipped", m.adapters_skipped);
}

}  // namespace

void to_json(json& j, const HostFacts::Kernel& k) {
  ObjectWriter out(j);
  describe_kernel(out, k);
}

void from_json(const json& j, HostFacts::Kernel& k) {
  k = HostFacts::Kernel{};
  ObjectReader in(j);
  describe_kernel(in, k);
}

void to_json(json& j, const HostFacts& h) {
  ObjectWriter out(j);
  describe_host(out, h);
}

void from_json(const json& j, HostFacts& h) {
  h = HostFacts{};
  ObjectReader in(j);
  describe_host(in, h);
}

void to_json(json& j, const BuildFacts& b) {
  ObjectWriter out(j);
  describe_build(out, b);
}

void from_json(const json& j, BuildFacts& b) {
  b = BuildFacts{};
  ObjectReader in(j);
  describe_build(in, b);
}

void to_json(json& j, const RunMetadata& m) {
  j = m.other;
  ObjectWriter out(j);
  describe_metadata(out, m);
}

void from_json(const json& j, RunMetadata& m) {
  m = RunMetadata{};
  ObjectReader in(j);
  describe_metadata(in, m);
  m.other = in.rest();
}

std::optional<RunMetadata> read_run_metadata(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  try {
    return j.get<RunMetadata>();
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

}  // namespace rpclab::harness
