// The floor's frame codec: frames survive any split of the byte stream,
// lengths are never trusted, datagrams must be exactly one frame, and
// random input never does anything but refuse.
#include <gtest/gtest.h>

#include <random>

#include "raw/raw_frame.h"
#include "raw/raw_service.h"

namespace rpclab::raw {
namespace {

struct Expected {
  uint32_t call_id;
  Proc proc;
  std::string body;
};

std::vector<Expected> samples() {
  return {{1, Proc::kNull, ""},
          {2, Proc::kNext, encode_next_request(7, 41)},
          {3, Proc::kEcho, std::string(1000, 'x')},
          {0xfffffffe, Proc::kEcho, std::string("\0\1\2\xff", 4)},
          {5, Proc::kError, "why"}};
}

std::string stream_of(const std::vector<Expected>& frames) {
  std::string bytes;
  for (const Expected& f : frames) bytes += encode_frame(f.call_id, f.proc, f.body);
  return bytes;
}

// Feeds `bytes` in pieces cut at `cuts` and collects every frame decoded.
std::vector<Expected> decode_in_pieces(const std::string& bytes, const std::vector<size_t>& cuts) {
  FrameDecoder decoder;
  std::vector<Expected> out;
  size_t from = 0;
  auto take = [&](size_t to) {
    decoder.feed(std::string_view(bytes).substr(from, to - from));
    from = to;
    FrameView frame;
    while (decoder.next(&frame) == DecodeResult::kFrame)
      out.push_back({frame.call_id, static_cast<Proc>(frame.proc), std::string(frame.body)});
  };
  for (size_t cut : cuts) take(cut);
  take(bytes.size());
  return out;
}

void expect_same(const std::vector<Expected>& got, const std::vector<Expected>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].call_id, want[i].call_id);
    EXPECT_EQ(got[i].proc, want[i].proc);
    EXPECT_EQ(got[i].body, want[i].body);
  }
}

TEST(RawFrame, HeaderIsNineBytesBigEndian) {
  std::string frame = encode_frame(0x01020304, Proc::kEcho, "ab");
  EXPECT_EQ(frame, std::string("\0\0\0\2\1\2\3\4\2ab", 11));
}

TEST(RawFrame, EverySplitInTwoGivesTheSameFrames) {
  std::string bytes = stream_of(samples());
  for (size_t cut = 0; cut <= bytes.size(); ++cut) expect_same(decode_in_pieces(bytes, {cut}), samples());
}

TEST(RawFrame, ByteAtATimeGivesTheSameFrames) {
  std::string bytes = stream_of(samples());
  std::vector<size_t> cuts;
  for (size_t i = 1; i < bytes.size(); ++i) cuts.push_back(i);
  expect_same(decode_in_pieces(bytes, cuts), samples());
}

TEST(RawFrame, RandomSplitsGiveTheSameFrames) {
  std::mt19937 rng(2015);
  std::string bytes = stream_of(samples());
  for (int round = 0; round < 500; ++round) {
    std::vector<size_t> cuts;
    for (size_t at = rng() % 64; at < bytes.size(); at += 1 + rng() % 300) cuts.push_back(at);
    expect_same(decode_in_pieces(bytes, cuts), samples());
  }
}

TEST(RawFrame, PartialFrameWaitsForMore) {
  std::string frame = encode_frame(9, Proc::kEcho, "hello");
  FrameDecoder decoder;
  FrameView view;
  decoder.feed(std::string_view(frame).substr(0, frame.size() - 1));
  EXPECT_EQ(decoder.next(&view), DecodeResult::kNeedMore);
  EXPECT_EQ(decoder.buffered(), frame.size() - 1);
  decoder.feed(std::string_view(frame).substr(frame.size() - 1));
  ASSERT_EQ(decoder.next(&view), DecodeResult::kFrame);
  EXPECT_EQ(view.body, "hello");
  EXPECT_EQ(decoder.buffered(), 0u);
}

TEST(RawFrame, LengthsPastTheBoundAreRefusedAtTheHeader) {
  FrameHeader header;
  auto at_bound = encode_header(1, Proc::kEcho, kMaxBody);
  EXPECT_EQ(decode_header({at_bound.data(), at_bound.size()}, &header), DecodeResult::kFrame);
  EXPECT_EQ(header.body_length, kMaxBody);
  auto past = encode_header(1, Proc::kEcho, kMaxBody + 1);
  EXPECT_EQ(decode_header({past.data(), past.size()}, &header), DecodeResult::kTooLong);
  FrameDecoder decoder;
  decoder.feed(std::string("\xff\xff\xff\xff\0\0\0\1\2", 9));  // 4 GiB claimed, nothing allocated
  FrameView view;
  EXPECT_EQ(decoder.next(&view), DecodeResult::kTooLong);
  EXPECT_EQ(decoder.buffered(), 9u);
}

TEST(RawFrame, ADatagramIsExactlyOneFrame) {
  FrameView view;
  std::string frame = encode_frame(4, Proc::kEcho, "abc");
  ASSERT_EQ(decode_datagram(frame, &view), DecodeResult::kFrame);
  EXPECT_EQ(view.call_id, 4u);
  EXPECT_EQ(view.body, "abc");
  EXPECT_EQ(decode_datagram(frame + "x", &view), DecodeResult::kMalformed);
  EXPECT_EQ(decode_datagram(frame.substr(0, frame.size() - 1), &view), DecodeResult::kMalformed);
  EXPECT_EQ(decode_datagram(frame.substr(0, 5), &view), DecodeResult::kMalformed);
  EXPECT_EQ(decode_datagram("", &view), DecodeResult::kMalformed);
  EXPECT_EQ(decode_datagram(encode_frame(1, Proc::kNull, ""), &view), DecodeResult::kFrame);
  auto too_long = encode_header(1, Proc::kEcho, kMaxUdpBody + 1);
  EXPECT_EQ(decode_datagram({too_long.data(), too_long.size()}, &view), DecodeResult::kTooLong);
}

TEST(RawFrame, NextBodies) {
  uint32_t client = 0, seq = 0;
  ASSERT_TRUE(decode_next_request(encode_next_request(0xdeadbeef, 12), &client, &seq));
  EXPECT_EQ(client, 0xdeadbeefu);
  EXPECT_EQ(seq, 12u);
  EXPECT_FALSE(decode_next_request("1234567", &client, &seq));
  EXPECT_FALSE(decode_next_request("123456789", &client, &seq));

  NextReply in{NextStatus::kOutOfOrder, 9, 2}, out;
  ASSERT_TRUE(decode_next_reply(encode_next_reply(in), &out));
  EXPECT_EQ(out.status, NextStatus::kOutOfOrder);
  EXPECT_EQ(out.expected_seq, 9u);
  EXPECT_EQ(out.times_executed, 2u);
  EXPECT_FALSE(decode_next_reply(std::string(11, '\0'), &out));
  EXPECT_FALSE(decode_next_reply(std::string("\0\0\0\7", 4) + std::string(8, '\0'), &out));  // no status 7
}

FrameView decode_one(const std::string& frame) {
  FrameView view;
  EXPECT_EQ(decode_datagram(frame, &view), DecodeResult::kFrame);
  return view;
}

TEST(RawService, AnswersTheThreeProceduresThroughTheCore) {
  ServerCore core;
  std::string out;
  std::string request = encode_frame(11, Proc::kNext, encode_next_request(3, 0));
  serve_frame(core, decode_one(request), &out);
  FrameView reply = decode_one(out);
  EXPECT_EQ(reply.call_id, 11u);
  EXPECT_EQ(reply.proc, uint8_t(Proc::kNext));
  NextReply next;
  ASSERT_TRUE(decode_next_reply(reply.body, &next));
  EXPECT_EQ(next.times_executed, 1u);

  out.clear();
  request = encode_frame(12, Proc::kEcho, "payload");
  serve_frame(core, decode_one(request), &out);
  EXPECT_EQ(out, encode_frame(12, Proc::kEcho, "payload"));

  out.clear();
  request = encode_frame(13, Proc::kNull, "");
  serve_frame(core, decode_one(request), &out);
  EXPECT_EQ(out, encode_frame(13, Proc::kNull, ""));
  EXPECT_EQ(core.counters().next_calls, 1u);
  EXPECT_EQ(core.counters().echo_calls, 1u);
  EXPECT_EQ(core.counters().null_calls, 1u);
}

TEST(RawService, RefusesWhatItCannotRunWithoutTouchingTheLedger) {
  ServerCore core;
  for (auto [proc, body, why] : {std::tuple<uint8_t, std::string, std::string>{9, "", "unknown procedure 9"},
                                 {0xff, "", "unknown procedure 255"},
                                 {1, "1234567", "NEXT body must be 8 bytes, got 7"}}) {
    std::string out;
    serve_frame(core, FrameView{77, proc, body}, &out);
    FrameView reply = decode_one(out);
    EXPECT_EQ(reply.call_id, 77u);
    EXPECT_EQ(reply.proc, uint8_t(Proc::kError));
    EXPECT_EQ(reply.body, why);
  }
  EXPECT_EQ(core.counters().next_calls, 0u);
}

// A short in-process fuzz: random bytes, cut at random, into the stream
// decoder and as datagrams. Every result must be one of the four, the
// decoder must never return a body past its bound, and nothing may crash
// (run under `make SANITIZE=address,undefined test` to catch overruns).
TEST(RawFrame, RandomInputOnlyEverRefuses) {
  std::mt19937 rng(1989);
  ServerCore core;
  for (int round = 0; round < 2000; ++round) {
    std::string bytes(rng() % 200, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    if (round % 3 == 0 && bytes.size() >= 4) bytes[0] = bytes[1] = 0;  // plausible small lengths
    FrameView view;
    if (decode_datagram(bytes, &view) == DecodeResult::kFrame) {
      std::string out;
      serve_frame(core, view, &out);
      ASSERT_GE(out.size(), kHeaderBytes);
    }
    FrameDecoder decoder(1000);
    for (size_t at = 0; at < bytes.size();) {
      size_t n = 1 + rng() % 50;
      decoder.feed(std::string_view(bytes).substr(at, n));
      at += n;
      DecodeResult r;
      while ((r = decoder.next(&view)) == DecodeResult::kFrame) ASSERT_LE(view.body.size(), 1000u);
      if (r == DecodeResult::kTooLong) break;
    }
  }
}

}  // namespace
}  // namespace rpclab::raw
