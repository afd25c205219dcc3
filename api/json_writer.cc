#include "api/json_writer.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "api/json_encode.h"
#include "db/text.h"

namespace gpuplan::api {

struct JsonWriter::Impl {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer{buffer};
  Impl() { buffer.Reserve(4096); }
};

JsonWriter::JsonWriter() : impl_(std::make_unique<Impl>()) {}
JsonWriter::~JsonWriter() = default;

void JsonWriter::BeginObject() { impl_->writer.StartObject(); }
void JsonWriter::EndObject() { impl_->writer.EndObject(); }
void JsonWriter::BeginArray() { impl_->writer.StartArray(); }
void JsonWriter::EndArray() { impl_->writer.EndArray(); }
void JsonWriter::Null() { impl_->writer.Null(); }
void JsonWriter::Bool(bool v) { impl_->writer.Bool(v); }
void JsonWriter::Int(long long v) { impl_->writer.Int64(v); }
void JsonWriter::Uint(unsigned long long v) { impl_->writer.Uint64(v); }

void JsonWriter::Number(double v) {
  if (std::isfinite(v)) {
    impl_->writer.Double(v);
  } else {
    impl_->writer.Null();
  }
}

namespace {
bool IsAscii(std::string_view s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  return true;
}
}  // namespace

void JsonWriter::Key(std::string_view key) {
  if (IsAscii(key)) {
    impl_->writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  } else {
    // Keys are the renderer's own names; a non-ASCII one goes the checked way.
    std::string encoded = EncodeJson(nlohmann::json(std::string(key)));
    impl_->writer.RawValue(encoded.data(), encoded.size(), rapidjson::kStringType);
  }
}

void JsonWriter::String(std::string_view v) {
  if (IsAscii(v) || db::IsValidUtf8(v)) {
    impl_->writer.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
    return;
  }
  // Text stored before validation existed may hold invalid bytes: nlohmann's encoder
  // replaces those with U+FFFD.
  std::string encoded = EncodeJson(nlohmann::json(std::string(v)));
  impl_->writer.RawValue(encoded.data(), encoded.size(), rapidjson::kStringType);
}

void JsonWriter::Raw(std::string_view encoded) {
  impl_->writer.RawValue(encoded.data(), encoded.size(), rapidjson::kObjectType);
}

void JsonWriter::Json(const nlohmann::json& v) { Raw(EncodeJson(v)); }

std::string JsonWriter::Take() {
  std::string out(impl_->buffer.GetString(), impl_->buffer.GetSize());
  impl_->buffer.Clear();
  impl_->writer.Reset(impl_->buffer);
  return out;
}

}  // namespace gpuplan::api
