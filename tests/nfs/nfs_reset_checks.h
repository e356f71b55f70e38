// What every reset-column trial must show, whichever client and server:
// its one reset happened while the calls ran and struck a connection (the
// tool that made it counted a socket closed or a segment answered), and
// every call falls in exactly one class. nfs_reset_test.cc (libnfs on
// ganesha, nft) and kernel_client_test.cc (the kernel client on knfsd,
// iptables in the guest) share it.
#pragma once

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/nfs/nfs_cell.h"

namespace rpclab::harness::nfs {

inline void expect_one_reset_that_struck(const NfsTrial& r, const std::string& tool) {
  ASSERT_TRUE(r.events) << "no events in the record";
  ASSERT_EQ(r.events->size(), 1u);
  const EventOccurrence& e = r.events->front();
  EXPECT_EQ(e.kind, "reset");
  EXPECT_EQ(e.entry.at("start").at("tool"), tool) << e.entry.dump();
  EXPECT_GT(resets_seen(e), 0u) << e.entry.dump();
  EXPECT_FALSE(r.events_not_met) << *r.events_not_met;
}

inline void expect_classes_add_up(const NfsClassCounts& c, uint64_t calls) {
  EXPECT_EQ(c.calls, calls);
  EXPECT_EQ(c.correct + c.replayed_told_failure + c.replayed_told_success + c.lost + c.indeterminate +
                c.clean_failure + c.not_judged,
            c.calls)
      << nlohmann::json(c).dump();
}

}  // namespace rpclab::harness::nfs
