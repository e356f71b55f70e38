#include "harness/record/causes.h"

#include <algorithm>

#include "harness/record/json_fields.h"

namespace rpclab::harness {

using nlohmann::json;

const std::array<CauseRow, kCauseCount>& cause_rows() {
  static const std::array<CauseRow, kCauseCount> rows = {{
      {Cause::kNetworkCopy, "network_copy", "copy"},
      {Cause::kRetransmitTimeout, "retransmit_timeout", "rexmit"},
      {Cause::kStaleReplyResend, "stale_reply_resend", "stale"},
      {Cause::kLibraryRetry, "library_retry", "lib"},
      {Cause::kAppRetry, "app_retry", "app"},
      {Cause::kProxyRetry, "proxy_retry", "proxy", true},
      {Cause::kClientElsewhere, "client_elsewhere", "cli-else", true},
      {Cause::kBalancerElsewhere, "balancer_elsewhere", "lb-else", true},
      {Cause::kUnexplained, "unexplained", "unexpl"},
  }};
  return rows;
}

uint64_t CauseCounts::total() const {
  uint64_t t = 0;
  for (uint64_t k : n) t += k;
  return t;
}

CauseCounts& CauseCounts::operator+=(const CauseCounts& o) {
  for (size_t i = 0; i < n.size(); ++i) n[i] += o.n[i];
  return *this;
}

namespace {

// Every cause's key, from the one table of them.
template <typename Io, typename Counts>
void describe_counts(Io& io, Counts& c) {
  for (const CauseRow& r : cause_rows()) io(std::string(r.key).c_str(), c[r.cause]);
}

template <typename Io, typename C>
void describe_cascades(Io& io, C& c) {
  io("cascades", c.count);
  io("cascade_starts", c.started_by);
  io("longest_cascade", c.longest);
}

template <typename Io, typename C>
void describe_capture(Io& io, C& c) {
  io("capture", c.capture);
  io("capture_packets", c.capture_packets);
  io("capture_drops", c.capture_drops);
}

// A path-only cause that counted nothing is left out (absent reads 0).
void drop_unseen_path_causes(json& j, const CauseCounts& c) {
  for (const CauseRow& r : cause_rows())
    if (r.path_only && c[r.cause] == 0) j.erase(std::string(r.key));
}

}  // namespace

void to_json(json& j, const CauseCounts& c) {
  fields::ObjectWriter out(j);
  describe_counts(out, c);
  drop_unseen_path_causes(j, c);
}

void from_json(const json& j, CauseCounts& c) {
  c = CauseCounts{};
  fields::ObjectReader in(j);
  describe_counts(in, c);
}

Cascades& Cascades::operator+=(const Cascades& o) {
  count += o.count;
  started_by += o.started_by;
  longest = std::max(longest, o.longest);
  return *this;
}

void to_json(json& j, const CausesRecord& c) {
  fields::ObjectWriter out(j);
  describe_counts(out, c.counts);
  drop_unseen_path_causes(j, c.counts);
  if (c.cascades) describe_cascades(out, *c.cascades);
  describe_capture(out, c);
}

void from_json(const json& j, CausesRecord& c) {
  c = CausesRecord{};
  fields::ObjectReader in(j);
  describe_counts(in, c.counts);
  Cascades cascades;
  fields::ObjectReader cascade_fields(j);
  describe_cascades(cascade_fields, cascades);
  if (cascade_fields.found()) c.cascades = cascades;  // none in records before cascades were counted
  describe_capture(in, c);
}

}  // namespace rpclab::harness
