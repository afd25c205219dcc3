#include "api/json_reader.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gpuplan::api {

std::string PointerEscape(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

JsonReader::JsonReader(const nlohmann::json& value, std::string pointer,
                       std::vector<FieldError>* errors)
    : value_(&value), pointer_(std::move(pointer)), errors_(errors) {}

std::string JsonReader::Pointer(std::string_view key) const {
  return pointer_ + "/" + PointerEscape(key);
}

void JsonReader::Fail(std::string_view key, const std::string& detail) {
  errors_->push_back({key.empty() ? (pointer_.empty() ? "/" : pointer_) : Pointer(key), detail});
}

bool JsonReader::Has(std::string_view key) const {
  if (!value_->is_object()) return false;
  auto it = value_->find(key);
  return it != value_->end() && !it->is_null();
}

const nlohmann::json* JsonReader::Raw(std::string_view key) {
  if (!value_->is_object()) return nullptr;
  auto it = value_->find(key);
  if (it == value_->end()) return nullptr;
  read_.push_back(&it.key());  // a null member is read too: not unknown
  return it->is_null() ? nullptr : &*it;
}

std::optional<std::string> JsonReader::String(std::string_view key, bool required) {
  const nlohmann::json* v = Raw(key);
  if (!v) {
    if (required) Fail(key, std::string(key) + " is required");
    return std::nullopt;
  }
  if (!v->is_string()) {
    Fail(key, std::string(key) + " must be a string");
    return std::nullopt;
  }
  return v->get<std::string>();
}

std::optional<double> JsonReader::Number(std::string_view key, double min, double max,
                                         bool required) {
  const nlohmann::json* v = Raw(key);
  if (!v) {
    if (required) Fail(key, std::string(key) + " is required");
    return std::nullopt;
  }
  if (!v->is_number()) {
    Fail(key, std::string(key) + " must be a number");
    return std::nullopt;
  }
  double d = v->get<double>();
  if (!std::isfinite(d) || d < min || d > max) {
    Fail(key, fmt::format("{} must be from {:g} to {:g}", key, min, max));
    return std::nullopt;
  }
  return d;
}

std::optional<long long> JsonReader::Integer(std::string_view key, long long min,
                                             long long max, bool required) {
  const nlohmann::json* v = Raw(key);
  if (!v) {
    if (required) Fail(key, std::string(key) + " is required");
    return std::nullopt;
  }
  bool integral = v->is_number_integer() ||
                  (v->is_number_float() && std::floor(v->get<double>()) == v->get<double>() &&
                   std::fabs(v->get<double>()) < 9e15);
  if (!integral) {
    Fail(key, std::string(key) + " must be an integer");
    return std::nullopt;
  }
  long long n = v->is_number_integer() ? v->get<long long>()
                                       : static_cast<long long>(v->get<double>());
  if (n < min || n > max) {
    Fail(key, std::string(key) + " must be from " + std::to_string(min) + " to " +
                  std::to_string(max));
    return std::nullopt;
  }
  return n;
}

std::optional<bool> JsonReader::Bool(std::string_view key) {
  const nlohmann::json* v = Raw(key);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) {
    Fail(key, std::string(key) + " must be true or false");
    return std::nullopt;
  }
  return v->get<bool>();
}

std::optional<std::string> JsonReader::Choice(std::string_view key,
                                              std::initializer_list<std::string_view> choices,
                                              bool required) {
  auto s = String(key, required);
  if (!s) return std::nullopt;
  for (std::string_view c : choices) {
    if (c == *s) return s;
  }
  std::string list;
  for (std::string_view c : choices) list += (list.empty() ? "" : ", ") + std::string(c);
  Fail(key, std::string(key) + " must be one of " + list + ", got '" + *s + "'");
  return std::nullopt;
}

std::optional<size_t> JsonReader::ChoiceIndex(std::string_view key,
                                             std::span<const std::string_view> names) {
  auto s = String(key);
  if (!s) return std::nullopt;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == *s) return i;
  }
  std::string list;
  for (std::string_view c : names) list += (list.empty() ? "" : ", ") + std::string(c);
  Fail(key, std::string(key) + " must be one of " + list + ", got '" + *s + "'");
  return std::nullopt;
}

std::optional<JsonReader> JsonReader::Object(std::string_view key, bool required) {
  const nlohmann::json* v = Raw(key);
  if (!v) {
    if (required) Fail(key, std::string(key) + " is required");
    return std::nullopt;
  }
  if (!v->is_object()) {
    Fail(key, std::string(key) + " must be an object");
    return std::nullopt;
  }
  return JsonReader(*v, Pointer(key), errors_);
}

std::optional<std::vector<std::string>> JsonReader::Strings(std::string_view key,
                                                            size_t max_items) {
  const nlohmann::json* v = Raw(key);
  if (!v) return std::nullopt;
  if (!v->is_array() || v->size() > max_items) {
    Fail(key, std::string(key) + " must be an array of at most " + std::to_string(max_items) +
                  " strings");
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_string()) {
      errors_->push_back(
          {Pointer(key) + "/" + std::to_string(i), std::string(key) + " items must be strings"});
      return std::nullopt;
    }
    out.push_back((*v)[i].get<std::string>());
  }
  return out;
}

void JsonReader::Finish() {
  if (!value_->is_object()) return;
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    if (std::find(read_.begin(), read_.end(), &it.key()) == read_.end()) {
      Fail(it.key(), "unknown field '" + it.key() + "'");
    }
  }
}

Error BodyError(const std::vector<FieldError>& errors) {
  Error e{ErrorCode::kInvalidArgument, "", errors};
  e.message = errors.size() == 1 ? errors.front().detail
                                 : std::to_string(errors.size()) + " invalid fields";
  return e;
}

}  // namespace gpuplan::api
