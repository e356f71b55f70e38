#include "harness/record/episodes.h"

#include "harness/record/json_fields.h"

// A trial's and a cell's episodes were always written whole: a reader
// refuses them without a figure (ObjectReader::kStrict), as TrialOnsets did.
namespace rpclab::harness {
namespace {

using nlohmann::json;
using fields::ObjectReader;
using fields::ObjectWriter;

template <typename Io, typename R>
void describe_rules(Io& io, R& r) {
  io("clean_calls", r.clean_calls);
  io("window_s", r.window_s);
}

template <typename Io, typename E>
void describe_episode(Io& io, E& e) {
  io("onset_s", e.onset_s);
  io("last_error_s", e.last_error_s);
  io("onset_spread_s", e.onset_spread_s);
  io("clients", e.clients);
  io("error_calls", e.error_calls);
  io("silent", e.silent);
  io("extra_executions", e.extra_executions);
}

template <typename Io, typename E>
void describe_trial(Io& io, E& e) {
  io("rules", e.rules);
  io("onsets", e.onsets);
  io("error_calls", e.error_calls);
  io("errors_per_onset", fields::absent_ok(e.errors_per_onset));
  io("first_onset_s", fields::or_null(e.first_onset_s));
  io("episodes", fields::absent_ok(e.listed));
  io("episodes_listed", fields::written(e.listed.size()));
}

template <typename Io, typename E>
void describe_cell(Io& io, E& e) {
  io("rules", e.rules);
  io("onsets_per_trial", e.onsets_per_trial);
  io("first_onset_s_per_trial", e.first_onset_s_per_trial);
  io("note", fields::absent_ok(e.note));
}

}  // namespace

void to_json(json& j, const EpisodeRules& r) {
  ObjectWriter out(j);
  describe_rules(out, r);
}

void from_json(const json& j, EpisodeRules& r) {
  ObjectReader in(j, ObjectReader::kStrict);
  describe_rules(in, r);
}

void to_json(json& j, const Episode& e) {
  ObjectWriter out(j);
  describe_episode(out, e);
}

void from_json(const json& j, Episode& e) {
  ObjectReader in(j, ObjectReader::kStrict);
  describe_episode(in, e);
}

void to_json(json& j, const TrialEpisodes& e) {
  ObjectWriter out(j);
  describe_trial(out, e);
}

void from_json(const json& j, TrialEpisodes& e) {
  e = TrialEpisodes{};
  ObjectReader in(j, ObjectReader::kStrict);
  describe_trial(in, e);
}

void to_json(json& j, const CellEpisodes& e) {
  ObjectWriter out(j);
  describe_cell(out, e);
}

void from_json(const json& j, CellEpisodes& e) {
  e = CellEpisodes{};
  ObjectReader in(j, ObjectReader::kStrict);
  describe_cell(in, e);
}

}  // namespace rpclab::harness
