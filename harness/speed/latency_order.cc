#include "harness/speed/latency_order.h"

#include <fmt/format.h>

#include <algorithm>

#include "harness/kit/stats.h"

namespace rpclab::harness {
namespace {

// Where a '<' may stand: after position i when each of 0..i differs
// significantly from each of i+1..n-1. Neighbours alone would not do: the
// reader takes "A = B = C" to say A = C, which Welch may deny.
std::vector<bool> cuts(const std::vector<TimedTransport>& t, double alpha) {
  auto differ = [&](size_t a, size_t b) {
    return welch_t_test(t[a].trial_means_us, t[b].trial_means_us).significant(alpha);
  };
  std::vector<bool> cut(t.size(), false);
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    bool all = true;
    for (size_t a = 0; a <= i && all; ++a)
      for (size_t b = i + 1; b < t.size() && all; ++b) all = differ(a, b);
    cut[i] = all;
  }
  return cut;
}

// Significant pairs among positions first..last, which the group's commas
// would otherwise hide.
void pairs_within(const std::vector<TimedTransport>& t, size_t first, size_t last, double alpha,
                  std::vector<std::string>* out) {
  for (size_t a = first; a <= last; ++a)
    for (size_t b = a + 1; b <= last; ++b)
      if (welch_t_test(t[a].trial_means_us, t[b].trial_means_us).significant(alpha))
        out->push_back(t[a].name + " < " + t[b].name);
}

}  // namespace

std::string latency_order(std::vector<TimedTransport> t, double alpha) {
  std::stable_sort(t.begin(), t.end(),
                   [](const TimedTransport& a, const TimedTransport& b) { return a.mean_us < b.mean_us; });
  std::vector<bool> cut = cuts(t, alpha);
  std::string out;
  std::vector<std::string> within;
  size_t group = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (i) out += cut[i - 1] ? " < " : ", ";
    out += t[i].name;
    if (i + 1 == t.size() || cut[i]) {
      pairs_within(t, group, i, alpha, &within);
      group = i + 1;
    }
  }
  if (!within.empty()) out += fmt::format(" (within a group: {})", fmt::join(within, ", "));
  return out;
}

}  // namespace rpclab::harness
