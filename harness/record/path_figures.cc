#include "harness/record/path_figures.h"

#include "harness/record/json_fields.h"

namespace rpclab::harness {
namespace {

template <typename Io, typename P>
void describe_path(Io& io, P& p) {
  io("path", p.path);
  io("proxy", p.proxy);
  io("proxy_setting", p.proxy_setting);
  io("replicas", p.replicas);
  io("executions_per_replica", p.executions);
  io("calls_on_several_replicas", p.calls_on_several);
  io("extra_executions_elsewhere", p.extra_elsewhere);
  io("proxy_requests", p.proxy_requests);
  io("proxy_retried", p.proxy_retried);
  io("store", p.store);
  io("config", p.config);
}

void add(MaybeNull<uint64_t>& to, const MaybeNull<uint64_t>& from) {
  if (from.has_value()) to = to.has_value() ? *to + *from : *from;
  else if (!to.present) to = from;
}

}  // namespace

PathFigures& PathFigures::operator+=(const PathFigures& o) {
  if (path.empty()) {
    path = o.path;
    proxy = o.proxy;
    proxy_setting = o.proxy_setting;
    replicas = o.replicas;
    store = o.store;
  }
  if (executions.size() < o.executions.size()) executions.resize(o.executions.size());
  for (size_t i = 0; i < o.executions.size(); ++i) executions[i] += o.executions[i];
  calls_on_several += o.calls_on_several;
  extra_elsewhere += o.extra_elsewhere;
  add(proxy_requests, o.proxy_requests);
  add(proxy_retried, o.proxy_retried);
  return *this;
}

void to_json(nlohmann::json& j, const PathFigures& p) {
  fields::ObjectWriter out(j);
  describe_path(out, p);
}

void from_json(const nlohmann::json& j, PathFigures& p) {
  p = PathFigures{};
  fields::ObjectReader in(j);
  describe_path(in, p);
}

}  // namespace rpclab::harness
