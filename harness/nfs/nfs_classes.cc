#include "harness/nfs/nfs_classes.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace rpclab::harness::nfs {

using rpclab::nfs::NfsCall;
using rpclab::nfs::NfsCallRecord;
using rpclab::nfs::NfsEffect;
using rpclab::nfs::Presence;

namespace {

bool exists_after(Presence p) { return p != Presence::kGone; }

bool holds(const NfsEffect& e, const NfsExportListing& end) {
  auto it = end.find(e.name);
  switch (e.presence) {
    case Presence::kThere: return it != end.end();
    case Presence::kGone: return it == end.end();
    case Presence::kWritten:
      return it != end.end() && it->second.kind == "file" &&
             it->second.size == rpclab::nfs::kWriteOffset + rpclab::nfs::kWriteBytes;
  }
  return false;
}

std::vector<NfsEffect> effects_of(const NfsCall& c) { return rpclab::nfs::effects(c.op, c.name); }

bool same_step(const NfsCall& a, const NfsCall& b) { return a.seq == b.seq && a.name == b.name; }

// Another call of the step (earlier or later) makes `e`'s name exist where
// `e` has it gone, or the other way: then a late copy of that call can undo
// `e` after it ran (a duplicated CREATE run after its step's RENAME re-makes
// the name the RENAME moved), and the end cannot tell whether `e` held.
bool contested(const std::vector<NfsCall>& calls, size_t i, const NfsEffect& e) {
  size_t first = i, last = i;
  while (first > 0 && same_step(calls[first - 1], calls[i])) --first;
  while (last + 1 < calls.size() && same_step(calls[last + 1], calls[i])) ++last;
  for (size_t j = first; j <= last; ++j)
    if (j != i)
      for (const NfsEffect& other : effects_of(calls[j]))
        if (other.name == e.name && exists_after(other.presence) != exists_after(e.presence)) return true;
  return false;
}

// The effects that show whether call i ran: those no other call of its
// step contests; all of them when every one is contested (then the end is
// read as before: RMDIR after MKDIR has only its name to show).
std::vector<NfsEffect> telling_effects(const std::vector<NfsCall>& calls, size_t i) {
  std::vector<NfsEffect> all = effects_of(calls[i]), telling;
  for (const NfsEffect& e : all)
    if (!contested(calls, i, e)) telling.push_back(e);
  return telling.empty() ? all : telling;
}

// A later call of the step changes whether one of `c`'s names exists.
bool undone_later(const std::vector<NfsCall>& calls, size_t i) {
  std::vector<NfsEffect> mine = effects_of(calls[i]);
  for (size_t j = i + 1; j < calls.size() && same_step(calls[j], calls[i]); ++j)
    for (const NfsEffect& later : effects_of(calls[j]))
      for (const NfsEffect& e : mine)
        if (later.name == e.name && exists_after(later.presence) != exists_after(e.presence)) return true;
  return false;
}

// What the call acted on was there: every earlier call of its step told
// NFS3_OK, and one of them made the step's name when it needs it.
bool acted_on_what_was_there(const std::vector<NfsCall>& calls, size_t i) {
  bool made = false;
  for (size_t j = i; j-- > 0 && same_step(calls[j], calls[i]);) {
    if (calls[j].nfs != "NFS3_OK") return false;
    for (const NfsEffect& e : effects_of(calls[j]))
      if (e.name == calls[i].name && exists_after(e.presence)) made = true;
  }
  return made || !rpclab::nfs::needs_step_name(calls[i].op);
}

}  // namespace

NfsClass class_of(const NfsCall& call, bool effect_there) {
  if (call.nfs == "NFS3_OK") return effect_there ? NfsClass::kCorrect : NfsClass::kLost;
  auto replay = rpclab::nfs::replay_status(call.op);
  if (replay && call.nfs == *replay && effect_there) return NfsClass::kReplayedToldFailure;
  return effect_there ? NfsClass::kIndeterminate : NfsClass::kCleanFailure;
}

bool effect_there(const NfsCall& call, const NfsExportListing& end) {
  for (const NfsEffect& e : effects_of(call))
    if (!holds(e, end)) return false;
  return true;
}

namespace {
bool all_hold(const std::vector<NfsEffect>& effects, const NfsExportListing& end) {
  for (const NfsEffect& e : effects)
    if (!holds(e, end)) return false;
  return true;
}
}  // namespace

std::optional<bool> effect_at_end(const NfsCallRecord& record, size_t index, const NfsExportListing& end) {
  if (index >= record.calls.size()) throw std::out_of_range("no call " + std::to_string(index) + " in the record");
  if (undone_later(record.calls, index)) return std::nullopt;
  return all_hold(telling_effects(record.calls, index), end);
}

bool ran_again_after_undone(const NfsCallRecord& record, size_t index, const NfsExportListing& end) {
  const auto& calls = record.calls;
  if (calls[index].nfs != "NFS3_OK") return false;
  std::vector<NfsEffect> mine = effects_of(calls[index]);
  for (size_t j = index + 1; j < calls.size() && same_step(calls[j], calls[index]); ++j) {
    if (calls[j].nfs != "NFS3_OK") return false;
    // The later call ran (what only it can show is there) and undid one
    // of this call's names, yet that name is as this call left it.
    std::vector<NfsEffect> later = effects_of(calls[j]), telling = telling_effects(calls, j);
    if (telling.size() == later.size() || !all_hold(telling, end)) continue;
    for (const NfsEffect& undo : later)
      for (const NfsEffect& e : mine)
        if (undo.name == e.name && exists_after(undo.presence) != exists_after(e.presence) && holds(e, end))
          return true;
  }
  return false;
}

RecordClasses classify(const NfsCallRecord& record, const NfsExportListing& end) {
  RecordClasses out;
  const auto& calls = record.calls;
  for (size_t i = 0; i < calls.size(); ++i) {
    const NfsCall& c = calls[i];
    NfsClass k = NfsClass::kNotJudged;
    // A call whose effect the end state cannot show (GETATTR) is not judged.
    if (!effects_of(c).empty() && acted_on_what_was_there(calls, i)) {
      if (auto there = effect_at_end(record, i, end))
        k = class_of(c, *there);
      else if (ran_again_after_undone(record, i, end))
        k = NfsClass::kReplayedToldSuccess;
    }
    out.all.add(k);
    out.by_op[rpclab::nfs::op_name(c.op)].add(k);
  }
  return out;
}

NfsExportListing list_export(const std::string& dir) {
  NfsExportListing names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    struct stat st {};
    if (::lstat(entry.path().c_str(), &st) != 0)
      throw std::runtime_error("cannot stat " + entry.path().string() + ": " + std::strerror(errno));
    NfsExportEntry e;
    e.kind = S_ISDIR(st.st_mode) ? "dir" : S_ISREG(st.st_mode) ? "file" : "other";
    e.size = static_cast<uint64_t>(st.st_size);
    e.links = static_cast<uint64_t>(st.st_nlink);
    names[entry.path().filename().string()] = e;
  }
  return names;
}

}  // namespace rpclab::harness::nfs
