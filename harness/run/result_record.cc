#include "harness/run/result_record.h"

#include <time.h>

namespace rpclab::harness {

std::string iso8601_now() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  tm utc;
  gmtime_r(&ts.tv_sec, &utc);
  char buf[64];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &utc);
  return std::string(buf) + "." + std::to_string(ts.tv_nsec / 1000000 + 1000).substr(1) + "Z";
}

void mark(CellRecord& record, const std::string& status, const std::string& reason) {
  record.status = status;
  record.reason = reason;
}

void mark(TrialRecord& record, const std::string& status, const std::string& reason) {
  record.status = status;
  record.reason = reason;
}

}  // namespace rpclab::harness
