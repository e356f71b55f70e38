#include "ops/kiraly.h"

#include "ops/payload.h"

namespace rpclab {

KiralyRecord kiraly_record(int32_t id, size_t photo_bytes) {
  KiralyRecord r;
  std::string n = std::to_string(id);
  r.id = id;
  r.first_name = "Ilona";
  r.last_name = "Kir\xc3\xa1ly";  // UTF-8, so a text encoder's escaping is exercised too
  r.age = 18 + static_cast<int32_t>(static_cast<uint32_t>(id) % 70);
  r.email = "ilona.kiraly+" + n + "@example.org";
  r.phone = "+36 1 555 " + n;
  r.newsletter = id % 2 == 0;
  r.latitude = 47.4979f;  // Budapest: floats with all their digits
  r.longitude = 19.0402f;
  r.photo = make_payload(photo_bytes, static_cast<uint32_t>(id));
  return r;
}

std::optional<std::string> kiraly_refuse(int64_t photo_bytes) {
  if (photo_bytes < 0 || static_cast<uint64_t>(photo_bytes) > kKiralyMaxPhotoBytes)
    return "photo_bytes " + std::to_string(photo_bytes) + " is not from 0 to " + std::to_string(kKiralyMaxPhotoBytes);
  return std::nullopt;
}

std::string kiraly_check(const KiralyRecord& want, const KiralyRecord& got) {
  auto differs = [](const char* field) { return std::string("GetRecord's ") + field + " is not the record's"; };
  if (got.id != want.id) return differs("id");
  if (got.first_name != want.first_name) return differs("first_name");
  if (got.last_name != want.last_name) return differs("last_name");
  if (got.age != want.age) return differs("age");
  if (got.email != want.email) return differs("email");
  if (got.phone != want.phone) return differs("phone");
  if (got.newsletter != want.newsletter) return differs("newsletter");
  if (got.latitude != want.latitude) return differs("latitude");
  if (got.longitude != want.longitude) return differs("longitude");
  if (got.photo.size() != want.photo.size())
    return "GetRecord's photo is " + std::to_string(got.photo.size()) + " bytes, not " +
           std::to_string(want.photo.size());
  if (got.photo != want.photo) return differs("photo");
  return "";
}

}  // namespace rpclab
