// The execution journal's bytes on disk, shared by the writer (journal.h)
// and the reader (journal_reader.h). docs/results-format.md documents the
// same layout field by field; keep the two in step.
//
// A 4096-byte header, then fixed 64-byte records, one per NEXT the server
// answered. Integers are little-endian: the structs below are the file's
// bytes as this (little-endian) machine lays them out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rpclab::journal {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the journal is mapped as little-endian structs");

inline constexpr std::string_view kMagic = "RPCLJRN1";
inline constexpr uint32_t kVersion = 1;
inline constexpr uint32_t kHeaderBytes = 4096;  // records start page-aligned
inline constexpr uint32_t kRecordBytes = 64;

// What the server did with one NEXT.
enum class RecordKind : uint8_t {
  kExecuted = 1,           // ran: Levy's check, one more execution in the ledger
  kAnsweredFromTable = 2,  // at-most-once: a repeat of the last completed seq, answered without running
  kRefusedStale = 3,       // at-most-once: a seq older than the last completed one, not run
};

// Bits of Record::known: which of the request's identity fields the
// transport could tell (docs/architecture.md, "Request identity").
enum KnownField : uint8_t {
  kKnowsRequestId = 1,   // Sun RPC XID, raw frame call id
  kKnowsAttempt = 2,     // gRPC attempt (grpc-previous-rpc-attempts)
  kKnowsConnection = 4,  // stream transports: the server's number for the connection
  kKnowsPeer = 8,        // the sender's IPv4 address and port
  kKnowsKernelArrival = 16,  // realtime_ns is the kernel's receive time of the datagram, not the core's clock
};

struct Header {
  char magic[8];          // "RPCLJRN1"
  uint32_t version;       // kVersion
  uint32_t header_bytes;  // kHeaderBytes
  uint32_t record_bytes;  // kRecordBytes
  uint32_t starts;        // server starts on this file: 1, then +1 per restart
  uint64_t capacity;      // records the file may ever hold (the cap, fixed at creation)
  uint64_t reserved;      // slots handed out so far, sealed or not
  uint64_t unrecorded;    // executions past the cap (in no record)
  uint64_t unlogged;      // answers without execution past the cap (in no record)
  char transport[32];     // the server's transport, NUL-padded
};
static_assert(sizeof(Header) == 88 && offsetof(Header, reserved) == 32, "header layout is documented");

struct Record {
  uint32_t seal;            // written last; 0 = never completed (a kill mid-record)
  uint8_t kind;             // RecordKind
  uint8_t known;            // KnownField bits
  uint16_t peer_port;
  uint32_t client_id;
  uint32_t seq;
  uint32_t status;          // the reply's NextStatus
  uint32_t expected_seq;    // the reply's expected_seq
  uint32_t times_executed;  // the reply's times_executed
  uint32_t request_id;      // XID / call id when known
  int64_t realtime_ns;      // CLOCK_REALTIME when the core took the call, or (kKnowsKernelArrival) when
                            // the datagram reached the server's network stack
  int64_t monotonic_ns;     // CLOCK_MONOTONIC, same instant
  uint32_t connection;      // when known; numbered per server start from 1
  uint32_t peer_ipv4;       // a.b.c.d as (a << 24 | b << 16 | c << 8 | d)
  uint16_t attempt;         // gRPC attempt: 0 = first, when known
  uint16_t start;           // Header::starts of the server that wrote it
  uint32_t index;           // the slot's own number, 0-based
};
static_assert(sizeof(Record) == kRecordBytes, "record layout is documented");
static_assert(offsetof(Record, index) == 60, "record layout is documented");

// The seal: CRC-32 of bytes 4..63 of the record, never 0 (0 becomes 1), so
// a reader tells a completed record from a slot a kill left half written
// (seal 0) and from damage (a seal that does not match).
uint32_t seal_of(const Record& record);

}  // namespace rpclab::journal
