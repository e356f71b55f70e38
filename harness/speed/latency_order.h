// The order of transports by mean call latency, saying only what Welch's
// t-test on the trial means supports. Significance is not transitive (A may
// not differ from B, nor B from C, while A differs from C), so the order is
// drawn as groups: a '<' between groups means every transport before it is
// significantly faster than every transport after it.
#pragma once

#include <string>
#include <vector>

namespace rpclab::harness {

struct TimedTransport {
  std::string name;
  double mean_us = 0;
  std::vector<double> trial_means_us;
};

// "raw-udp < raw-tcp, sunrpc-udp < grpc", then any significant pairs inside
// a group: "raw-tcp, sunrpc-tcp, grpc (within a group: raw-tcp < grpc)".
std::string latency_order(std::vector<TimedTransport> transports, double alpha);

}  // namespace rpclab::harness
