#include "server/shared_at_most_once.h"

#include <hiredis/hiredis.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "common/setup_error.h"

namespace rpclab {
namespace {

// KEYS[1] the client's hash; ARGV: seq, owner, lease in ms. Returns {1,
// status, expected_seq, times_executed} for a repeat, {2} stale, {3} wait
// (another owner's claim on this seq or a newer one is live), {0} claimed,
// {4} claimed after another owner's lease ran out. Times are Redis's
// (TIME), in ms: 13 digits, exact in Lua's doubles and in its %.14g.
constexpr char kClaim[] = R"lua(
local seq = tonumber(ARGV[1])
local h = redis.call('HMGET', KEYS[1], 'seq', 'status', 'expected', 'times', 'claim_seq', 'claim_owner', 'claim_until')
if h[1] then
  local last = tonumber(h[1])
  if seq == last then return {1, tonumber(h[2]), tonumber(h[3]), tonumber(h[4])} end
  if seq < last then return {2} end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local verdict = 0
if h[5] and h[6] ~= ARGV[2] and tonumber(h[5]) >= seq then
  if tonumber(h[7]) > now then return {3} end
  verdict = 4
end
redis.call('HSET', KEYS[1], 'claim_seq', ARGV[1], 'claim_owner', ARGV[2], 'claim_until', now + tonumber(ARGV[3]))
return {verdict}
)lua";

// ARGV: seq, owner, then status, expected_seq, times_executed, or nothing
// to release the claim without an entry. Only a newer seq replaces the
// entry; the claim goes only if it is still this owner's.
constexpr char kComplete[] = R"lua(
if #ARGV == 5 then
  local last = redis.call('HGET', KEYS[1], 'seq')
  if not last or tonumber(ARGV[1]) > tonumber(last) then
    redis.call('HSET', KEYS[1], 'seq', ARGV[1], 'status', ARGV[3], 'expected', ARGV[4], 'times', ARGV[5])
  end
end
local claim = redis.call('HMGET', KEYS[1], 'claim_seq', 'claim_owner')
if claim[1] == ARGV[1] and claim[2] == ARGV[2] then
  redis.call('HDEL', KEYS[1], 'claim_seq', 'claim_owner', 'claim_until')
end
return 1
)lua";

constexpr timeval kTimeout{SharedAtMostOnceTable::kTimeoutMs / 1000, (SharedAtMostOnceTable::kTimeoutMs % 1000) * 1000};

// host:pid:n, so two tables in one process (the tests' two replicas) are
// two owners too.
std::string unique_instance() {
  static std::atomic<unsigned> made{0};
  char host[256] = "";
  ::gethostname(host, sizeof host - 1);
  return std::string(host) + ":" + std::to_string(::getpid()) + ":" + std::to_string(made.fetch_add(1));
}

int64_t integer_at(const redisReply* r, size_t i) {
  return r->element[i]->type == REDIS_REPLY_INTEGER ? r->element[i]->integer : -1;
}

}  // namespace

void SharedAtMostOnceTable::ReplyFree::operator()(redisReply* r) const { freeReplyObject(r); }

SharedAtMostOnceTable::SharedAtMostOnceTable(const std::string& host, uint16_t port, int lease_ms, std::string instance)
    : host_(host),
      port_(port),
      address_(host + ":" + std::to_string(port)),
      lease_ms_(lease_ms),
      instance_(instance.empty() ? unique_instance() : std::move(instance)),
      claim_{kClaim, ""},
      complete_{kComplete, ""} {
  // A constructor that throws runs no destructor: the context goes first.
  auto give_up = [this](const std::string& message) {
    if (ctx_) redisFree(ctx_);
    ctx_ = nullptr;
    throw SetupError(message);
  };
  std::string why;
  if (!connect(&why))
    give_up("--at-most-once-shared " + address_ + ": cannot reach Redis (" + why +
            "); start redis-server there or give the address of a running one");
  for (Script* script : {&claim_, &complete_}) {
    Reply r(static_cast<redisReply*>(redisCommand(ctx_, "SCRIPT LOAD %s", script->body)));
    if (!r || r->type != REDIS_REPLY_STRING)
      give_up("--at-most-once-shared " + address_ + ": cannot load the table's scripts (" +
              (r ? std::string(r->str ? r->str : "unexpected reply") : std::string(ctx_->errstr)) +
              "); is a Redis 2.6 or newer listening there?");
    script->sha.assign(r->str, r->len);
  }
}

SharedAtMostOnceTable::~SharedAtMostOnceTable() {
  if (ctx_) redisFree(ctx_);
}

bool SharedAtMostOnceTable::connect(std::string* why) {
  if (ctx_) redisFree(ctx_);
  ctx_ = redisConnectWithTimeout(host_.c_str(), port_, kTimeout);
  if (!ctx_) {
    *why = "out of memory";
    return false;
  }
  if (ctx_->err || redisSetTimeout(ctx_, kTimeout) != REDIS_OK) {
    *why = ctx_->errstr;
    return false;
  }
  return true;
}

void SharedAtMostOnceTable::fail(const std::string& what) const {
  throw AtMostOnceUnavailable("the shared at-most-once table at " + address_ + ": " + what +
                              "; the call was not run");
}

// A connection that failed is made again at the next call, so calls are
// protected again once Redis is back; until then each call is refused.
SharedAtMostOnceTable::Reply SharedAtMostOnceTable::command(const std::vector<std::string>& words) {
  std::string why;
  if (ctx_->err && !connect(&why)) fail(why);
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
  for (const std::string& w : words) {
    argv.push_back(w.data());
    lengths.push_back(w.size());
  }
  Reply r(static_cast<redisReply*>(redisCommandArgv(ctx_, static_cast<int>(argv.size()), argv.data(), lengths.data())));
  if (!r) fail(ctx_->errstr);
  return r;
}

// EVALSHA, or EVAL when Redis has lost the script (restarted, SCRIPT FLUSH).
SharedAtMostOnceTable::Reply SharedAtMostOnceTable::eval(const Script& script, uint32_t client_id,
                                                         const std::vector<std::string>& args) {
  std::vector<std::string> words = {"EVALSHA", script.sha, "1", kKeyPrefix + std::to_string(client_id)};
  words.insert(words.end(), args.begin(), args.end());
  Reply r = command(words);
  if (r->type == REDIS_REPLY_ERROR && std::strncmp(r->str, "NOSCRIPT", 8) == 0) {
    words[0] = "EVAL";
    words[1] = script.body;
    r = command(words);
  }
  if (r->type == REDIS_REPLY_ERROR) fail(std::string(r->str, r->len));
  return r;
}

AtMostOnceScope::Answer SharedAtMostOnceTable::claim(uint32_t client_id, uint32_t seq,
                                                     std::unique_lock<std::mutex>& core_lock) {
  const std::vector<std::string> args = {std::to_string(seq), instance_, std::to_string(lease_ms_)};
  for (;;) {
    Reply r = eval(claim_, client_id, args);
    if (r->type != REDIS_REPLY_ARRAY || r->elements == 0) fail("unexpected reply to a claim");
    switch (integer_at(r.get(), 0)) {
      case 4:
        takeovers_.fetch_add(1);
        [[fallthrough]];
      case 0:
        return {};
      case 1: {
        int64_t status = r->elements == 4 ? integer_at(r.get(), 1) : -1;
        if (status < 0 || status > int64_t{kLastNextStatus}) fail("a stored reply that is not a NextReply");
        return {Verdict::kRepeat, {static_cast<NextStatus>(status), static_cast<uint32_t>(integer_at(r.get(), 2)),
                                   static_cast<uint32_t>(integer_at(r.get(), 3))}};
      }
      case 2:
        return {Verdict::kStale, {}};
      case 3:
        break;
      default:
        fail("unexpected reply to a claim");
    }
    // Another server runs this call: let this server's other calls go on
    // while it does. Nothing here touches the connection meanwhile.
    waits_.fetch_add(1);
    core_lock.unlock();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    core_lock.lock();
  }
}

void SharedAtMostOnceTable::complete(uint32_t client_id, uint32_t seq, const NextReply& reply) {
  eval(complete_, client_id,
       {std::to_string(seq), instance_, std::to_string(static_cast<uint32_t>(reply.status)),
        std::to_string(reply.expected_seq), std::to_string(reply.times_executed)});
}

void SharedAtMostOnceTable::release(uint32_t client_id, uint32_t seq) {
  eval(complete_, client_id, {std::to_string(seq), instance_});
}

}  // namespace rpclab
