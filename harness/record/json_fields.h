// How the record types put their fields into JSON and take them out: the
// few rules every mapping in this room follows, in one place. Only the
// record room's own files include it; everyone else reads the types.
//
// Each type lists its fields once, in a describe(io, record) function
// template: io("key", record.field) for each. An ObjectWriter puts them
// into a JSON object (to_json), an ObjectReader takes them out
// (from_json), so a key is written in one place. A field is one of:
//   T                   always written; read when present (a strict
//                       reader refuses a record without it)
//   std::optional<T>    written when it holds a value, left out otherwise
//   MaybeNull<T>        left out, null or a value, each kept apart (a field
//                       older records lack and newer ones write as null)
//   or_null(optional)   written always, as null when empty
//   written(value)      written, never read back (a constant, a count of
//                       another field)
//   absent_ok(field)    always written; a strict reader lets it be absent
// Reading refuses a value of the wrong type (a damaged record) with
// nlohmann's type_error; an absent key (or a null) leaves a field at its
// default, so records written before a field existed still read.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record/maybe_null.h"

namespace rpclab::harness::fields {

using nlohmann::json;

template <typename T>
void put(json& j, const char* key, const T& v) {
  j[key] = v;
}

template <typename T>
void put(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

// An optional field written as null when empty.
template <typename Optional>
struct OrNull {
  Optional& v;
};
template <typename T>
OrNull<std::optional<T>> or_null(std::optional<T>& v) {
  return {v};
}
template <typename T>
OrNull<const std::optional<T>> or_null(const std::optional<T>& v) {
  return {v};
}
template <typename Optional>
void put(json& j, const char* key, const OrNull<Optional>& f) {
  j[key] = f.v ? json(*f.v) : json(nullptr);
}

// A field always written that a strict reader lets be absent (older
// records lack it): it keeps its default then.
template <typename T>
struct AbsentOk {
  T& v;
};
template <typename T>
AbsentOk<T> absent_ok(T& v) {
  return {v};
}
template <typename T>
void put(json& j, const char* key, const AbsentOk<T>& f) {
  j[key] = f.v;
}

// A field written and never read back.
template <typename T>
struct Written {
  T value;
};
template <typename T>
Written<T> written(T value) {
  return {std::move(value)};
}
template <typename T>
void put(json& j, const char* key, const Written<T>& f) {
  j[key] = f.value;
}

template <typename T>
void put(json& j, const char* key, const MaybeNull<T>& v) {
  if (v.present) j[key] = v.value ? json(*v.value) : json(nullptr);
}

template <typename T>
struct is_list : std::false_type {};
template <typename E, typename A>
struct is_list<std::vector<E, A>> : std::true_type {};
template <typename T>
struct is_named_map : std::false_type {};
template <typename V, typename C, typename A>
struct is_named_map<std::map<std::string, V, C, A>> : std::true_type {};
template <typename T>
struct is_optional : std::false_type {};
template <typename V>
struct is_optional<std::optional<V>> : std::true_type {};

// A value as T. An integer field takes only a JSON integer that fits it:
// nlohmann converts 5e46 or -1 to uint64_t by a cast (undefined for the
// float, a wrapped count for the negative), and a damaged record must be
// refused, not read as some other count. Lists, maps by name and
// optionals of integers are checked element by element.
template <typename T>
T value_as(const json& v) {
  if constexpr (is_list<T>::value) {
    if (!v.is_array()) throw json::type_error::create(302, std::string("expected a list, found ") + v.type_name(), &v);
    T out;
    for (const json& e : v) out.push_back(value_as<typename T::value_type>(e));
    return out;
  } else if constexpr (is_named_map<T>::value) {
    if (!v.is_object())
      throw json::type_error::create(302, std::string("expected an object, found ") + v.type_name(), &v);
    T out;
    for (auto it = v.begin(); it != v.end(); ++it) out.emplace(it.key(), value_as<typename T::mapped_type>(it.value()));
    return out;
  } else if constexpr (is_optional<T>::value) {
    return v.is_null() ? T{} : T{value_as<typename T::value_type>(v)};
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (!v.is_number_integer())
      throw json::type_error::create(302, std::string("expected an integer, found ") + v.type_name(), &v);
    bool fits = v.is_number_unsigned()
                    ? v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max())
                    : v.get<int64_t>() >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
                          (v.get<int64_t>() < 0 ||
                           static_cast<uint64_t>(v.get<int64_t>()) <= static_cast<uint64_t>(std::numeric_limits<T>::max()));
    if (!fits) throw json::out_of_range::create(406, "integer " + v.dump() + " out of the field's range", &v);
    return v.is_number_unsigned() ? static_cast<T>(v.get<uint64_t>()) : static_cast<T>(v.get<int64_t>());
  } else {
    return v.get<T>();
  }
}

// Takes `key` into `out` when the object has it (and, for the optional
// kinds, when it is not null).
template <typename T>
void get(const json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) out = value_as<T>(*it);
}

template <typename T>
void get(const json& j, const char* key, std::optional<T>& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  out = value_as<T>(*it);
}

template <typename T>
void get(const json& j, const char* key, MaybeNull<T>& out) {
  auto it = j.find(key);
  if (it == j.end()) return;
  out.present = true;
  if (!it->is_null()) out.value = value_as<T>(*it);
}

template <typename Optional>
void get(const json& j, const char* key, const OrNull<Optional>& f) {
  get(j, key, f.v);
}

template <typename T>
void get(const json&, const char*, const Written<T>&) {}

template <typename T>
void get(const json& j, const char* key, const AbsentOk<T>& f) {
  get(j, key, f.v);
}

// Each field of a record into `j`.
class ObjectWriter {
 public:
  explicit ObjectWriter(json& j) : j_(j) {
    if (!j_.is_object()) j_ = json::object();
  }
  template <typename T>
  void operator()(const char* key, const T& value) {
    put(j_, key, value);
  }
  // A group of fields written together (`fields` is given the group's
  // value), or not at all.
  template <typename T, typename Fields>
  void group(const std::optional<T>& value, Fields fields) {
    if (value) fields(*value);
  }

 private:
  json& j_;
};

// Each field of a record out of `j`, and the rest kept as they were
// (fields this build does not know: a newer build of the same version
// added them, and a record read and written again keeps them, as protobuf
// keeps unknown fields). A strict reader refuses a record that lacks a
// field of the first kind (a section whose every field its writer writes).
class ObjectReader {
 public:
  enum Mode { kLenient, kStrict };
  explicit ObjectReader(const json& j, Mode mode = kLenient) : j_(j), strict_(mode == kStrict) {
    if (!j.is_object()) throw json::type_error::create(302, "expected a JSON object", &j);
  }
  template <typename T>
  void operator()(const char* key, T&& out) {
    taken_.insert(key);
    if (strict_ && !optional_kind<std::decay_t<T>>::value && !j_.contains(key))
      throw json::out_of_range::create(403, std::string("key '") + key + "' not found", &j_);
    if (j_.contains(key)) ++found_;
    get(j_, key, std::forward<T>(out));
  }
  // How many of the fields asked for the object has.
  size_t found() const { return found_; }
  // A group of fields written together or not at all: there when any is.
  template <typename T, typename Fields>
  void group(std::optional<T>& value, Fields fields) {
    size_t before = found_;
    T read{};
    fields(read);
    if (found_ > before) value = read;
  }
  bool has(const char* key) const { return j_.contains(key); }
  const json& object() const { return j_; }
  json rest() const {
    json out = json::object();
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (!taken_.count(it.key())) out[it.key()] = it.value();
    return out;
  }

 private:
  template <typename T>
  struct optional_kind : std::false_type {};
  template <typename T>
  struct optional_kind<std::optional<T>> : std::true_type {};
  template <typename T>
  struct optional_kind<MaybeNull<T>> : std::true_type {};
  template <typename T>
  struct optional_kind<Written<T>> : std::true_type {};
  template <typename T>
  struct optional_kind<AbsentOk<T>> : std::true_type {};

  const json& j_;
  bool strict_;
  size_t found_ = 0;
  std::set<std::string> taken_;
};

}  // namespace rpclab::harness::fields

// A list of figures some of which may be missing (each trial's first
// onset): null where one is.
namespace nlohmann {
template <typename T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& v) { j = v ? json(*v) : json(nullptr); }
  static void from_json(const json& j, std::optional<T>& v) {
    v = j.is_null() ? std::nullopt : std::optional<T>(j.get<T>());
  }
};
}  // namespace nlohmann
