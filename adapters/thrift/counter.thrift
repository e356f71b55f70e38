// The counter of docs/adapters.md as a Thrift service: Levy's NEXT, with
// ECHO and NULL for the speed tables. Thrift has no unsigned integers: the
// 32-bit fields carry uint32 values bit for bit.
namespace cpp counter

struct NextReply {
  1: i32 status,          // 0 in order, 1 Levy's mismatch, 2 not recorded, 3 stale
  2: i32 expected_seq,    // what the server expected of this client before the call
  3: i32 times_executed,  // executions of (client_id, seq), this one included
}

service Counter {
  void ping(),
  NextReply next_call(1: i32 client_id, 2: i32 seq),  // Levy's NEXT ("next" is a keyword of some Thrift target language)
  binary echo(1: binary payload),
}
