// A record field that can be left out, written as null, or hold a value,
// with the three kept apart: a field that records written before it
// existed lack, and that newer ones write as null when there is nothing
// to say (a cell with no floor to compare with, a trial that ran on
// another host). A record read and written again says what it said.
#pragma once

#include <optional>
#include <utility>

namespace rpclab::harness {

template <typename T>
struct MaybeNull {
  bool present = false;    // the record has the key (perhaps as null)
  std::optional<T> value;  // empty when left out or null

  static MaybeNull null() { return {true, std::nullopt}; }
  static MaybeNull of(T v) { return {true, std::move(v)}; }
  static MaybeNull of(const std::optional<T>& v) { return {true, v}; }
  MaybeNull& operator=(T v) {
    present = true;
    value = std::move(v);
    return *this;
  }
  bool has_value() const { return value.has_value(); }
  explicit operator bool() const { return value.has_value(); }
  // Where a reader asks only for the value: null and left out alike.
  operator const std::optional<T>&() const { return value; }
  T* operator->() { return &*value; }
  const T& operator*() const { return *value; }
  const T* operator->() const { return &*value; }
  T value_or(T otherwise) const { return value.value_or(std::move(otherwise)); }
};

}  // namespace rpclab::harness
