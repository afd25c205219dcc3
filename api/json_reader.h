// Typed, strict reading of a JSON request body. Every problem is collected with the JSON
// pointer of the field (RFC 6901), so one 422 answer names every bad field. Fields not
// read are reported as unknown by Finish().
#pragma once

#include <array>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/enum_names.h"
#include "model/result.h"

namespace gpuplan::api {

// `value` must outlive the reader (and its copies) unchanged: the reader keeps pointers to
// its member keys.
class JsonReader {
 public:
  // Reads the object `value` found at `pointer` ("" for the document root).
  JsonReader(const nlohmann::json& value, std::string pointer, std::vector<FieldError>* errors);

  bool Has(std::string_view key) const;
  // The member `key`, marked read when present; null when absent or JSON null.
  const nlohmann::json* Raw(std::string_view key);

  std::optional<std::string> String(std::string_view key, bool required = false);
  std::optional<double> Number(std::string_view key, double min, double max,
                               bool required = false);
  std::optional<long long> Integer(std::string_view key, long long min, long long max,
                                   bool required = false);
  std::optional<bool> Bool(std::string_view key);
  // One of `choices`; an error listing them otherwise.
  std::optional<std::string> Choice(std::string_view key,
                                    std::initializer_list<std::string_view> choices,
                                    bool required = false);
  // The enum value named by the string at `key` (the model's name table, one list for every
  // reader and writer); an error listing the names otherwise.
  template <typename E, size_t N>
  std::optional<E> Enum(std::string_view key, const model::EnumNames<E, N>& names) {
    std::array<std::string_view, N> list;
    for (size_t i = 0; i < N; ++i) list[i] = names[i].first;
    auto i = ChoiceIndex(key, list);
    if (!i) return std::nullopt;
    return names[*i].second;
  }
  // A nested object reader; nullopt (with an error if required) when absent or not an object.
  std::optional<JsonReader> Object(std::string_view key, bool required = false);
  // A reader over `value` (already taken from `key`), sharing this reader's error list.
  JsonReader Nested(std::string_view key, const nlohmann::json& value) const {
    return JsonReader(value, Pointer(key), errors_);
  }
  size_t error_count() const { return errors_->size(); }
  // Strings of an array; nullopt when absent.
  std::optional<std::vector<std::string>> Strings(std::string_view key, size_t max_items);

  void Fail(std::string_view key, const std::string& detail);
  // Records "<key> <reason>" when a field rule (db/field_rules.h) gave a reason.
  void Check(std::string_view key, const std::optional<std::string>& reason) {
    if (reason) Fail(key, std::string(key) + " " + *reason);
  }
  std::string Pointer(std::string_view key) const;
  // Reports keys present but never read.
  void Finish();
  bool ok() const { return errors_->empty(); }

 private:
  std::optional<size_t> ChoiceIndex(std::string_view key, std::span<const std::string_view> names);
  const nlohmann::json* value_;
  std::string pointer_;
  std::vector<FieldError>* errors_;
  // The members read (present, null or not), by their key in `value_`: few, so a vector.
  std::vector<const std::string*> read_;
};

// An error for the request body listing every field error.
Error BodyError(const std::vector<FieldError>& errors);

// Escapes a key for a JSON pointer ("~" -> "~0", "/" -> "~1").
std::string PointerEscape(std::string_view key);

}  // namespace gpuplan::api
