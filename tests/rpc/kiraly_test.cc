// Kiraly's record (ops/kiraly.h) end to end on every transport over
// loopback: the record asked for comes back field by field, with and
// without its 1 MiB photo (sunrpc-udp and raw-udp refuse the photo with
// words that say it does not fit), a photo size past the bound is refused
// without stopping the server, and the client program checks every reply.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/kiraly.h"
#include "server/server_core.h"
#include "rpc_test_util.h"
#include "support/client_process.h"
#include "support/server_process.h"

namespace rpclab::test {
namespace {

class Kiraly : public testing::TestWithParam<std::string> {
 protected:
  Kiraly() : server_(ServerSpec{GetParam(), nodelay_flag(GetParam())}) {
    ClientOptions options = client_options(GetParam(), server_.port(), 20000);
    if (row_of(GetParam()).takes(kTcpNodelay, Side::kClient)) options.settings.set_on(kTcpNodelay);
    max_payload_ = row_of(GetParam()).client_settings(options).max_payload;
    client_ = connect_client(options);
  }
  bool fits(size_t photo_bytes) const { return photo_bytes + kKiralyFieldBytes <= max_payload_; }

  ServerProcess server_;
  size_t max_payload_ = 0;
  std::unique_ptr<RpcClient> client_;
};

TEST_P(Kiraly, GetRecordReturnsTheRecordWithAndWithoutItsPhoto) {
  for (size_t photo : {size_t{0}, size_t{1000}, kKiralyPhotoBytes}) {
    for (int32_t id : {7, -3}) {
      KiralyRecord got;
      RecordRequest request{id, static_cast<uint32_t>(photo)};
      CallStatus status = typed_call(*client_, Operation::kGetRecord, request, &got);
      if (!fits(photo)) {
        EXPECT_EQ(status.kind, ErrorKind::kCannotCode) << photo << " bytes";
        EXPECT_PRED_FORMAT2(testing::IsSubstring, "does not fit", status.detail) << photo << " bytes";
        continue;
      }
      ASSERT_TRUE(status.ok()) << photo << " bytes: " << status.detail;
      EXPECT_EQ(kiraly_check(kiraly_record(id, photo), got), "") << photo << " bytes, id " << id;
    }
  }
}

// Refused on every transport (kCannotCode: the server's "invalid
// argument" where the reply could fit; on the datagram ones, whose largest
// reply is far smaller, the words that say it does not fit), and the
// server goes on serving.
TEST_P(Kiraly, APhotoPastTheBoundIsRefused) {
  KiralyRecord got;
  RecordRequest too_big{1, static_cast<uint32_t>(kKiralyMaxPhotoBytes + 1)};
  CallStatus refused = typed_call(*client_, Operation::kGetRecord, too_big, &got);
  EXPECT_EQ(refused.kind, ErrorKind::kCannotCode) << refused.detail;
  if (!fits(kKiralyMaxPhotoBytes + 1))
    EXPECT_PRED_FORMAT2(testing::IsSubstring, "does not fit", refused.detail);
  if (is_datagram(GetParam())) EXPECT_FALSE(fits(kKiralyMaxPhotoBytes + 1)) << "a datagram carries the bound's photo?";
  CallStatus status = typed_call(*client_, Operation::kGetRecord, RecordRequest{1, 10}, &got);
  ASSERT_TRUE(status.ok()) << status.detail;
  EXPECT_EQ(kiraly_check(kiraly_record(1, 10), got), "");
}

TEST_P(Kiraly, TheClientProgramChecksEveryReply) {
  TempDir dir;
  std::vector<std::string> args = {"--transport", GetParam(), "--server", server_.address(), "--op", "get-record",
                                   "--size", "2000", "--calls", "5", "--timeout", "10000"};
  for (const std::string& flag : nodelay_flag_on(GetParam(), Side::kClient)) args.push_back(flag);
  ClientRun run = run_client(args, dir);
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(run.record.header["outcomes"]["ok"], 5);
  EXPECT_EQ(run.record.header["op"], "get-record");
}

INSTANTIATE_TEST_SUITE_P(Transports, Kiraly, testing::ValuesIn(all_transports()), param_name);

TEST(KiralyCore, TheCheckCatchesEachWrongField) {
  KiralyRecord want = kiraly_record(5, 100);
  EXPECT_EQ(kiraly_check(want, kiraly_record(5, 100)), "");
  EXPECT_NE(kiraly_check(want, kiraly_record(6, 100)), "");
  EXPECT_NE(kiraly_check(want, kiraly_record(5, 99)), "");
  KiralyRecord got = want;
  got.photo[50] ^= 1;
  EXPECT_NE(kiraly_check(want, got), "");
  got = want;
  got.latitude = std::nextafter(got.latitude, 90.0f);
  EXPECT_NE(kiraly_check(want, got), "");
  got = want;
  got.last_name = "Kiraly";
  EXPECT_NE(kiraly_check(want, got), "");
}

TEST(KiralyCore, TheServerCoreRefusesAPhotoPastTheBoundAndCountsNothing) {
  ServerCore core;
  std::shared_ptr<const KiralyRecord> record;
  EXPECT_TRUE(core.get_record(1, -1, &record));
  EXPECT_TRUE(core.get_record(1, int64_t{kKiralyMaxPhotoBytes} + 1, &record));
  EXPECT_EQ(core.counters().record_calls, 0u);
  EXPECT_FALSE(core.get_record(1, 10, &record));
  ASSERT_TRUE(record);
  EXPECT_EQ(kiraly_check(kiraly_record(1, 10), *record), "");
  EXPECT_EQ(core.counters().record_calls, 1u);
}

}  // namespace
}  // namespace rpclab::test
