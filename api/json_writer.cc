#include "api/json_writer.h"

#include <rapidjson/internal/dtoa.h>
#include <rapidjson/internal/itoa.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

#include "api/json_encode.h"
#include "db/text.h"

namespace gpuplan::api {

JsonWriter::JsonWriter() : out_(new char[kInitialRoom]), capacity_(kInitialRoom) {
  has_items_.reserve(16);
}
JsonWriter::~JsonWriter() = default;

void JsonWriter::Grow(size_t n) {
  const size_t capacity = std::max(capacity_ * 2, size_ + n);
  std::unique_ptr<char[]> bigger(new char[capacity]);  // uninitialised: written before read
  std::memcpy(bigger.get(), out_.get(), size_);
  out_ = std::move(bigger);
  capacity_ = capacity;
}

void JsonWriter::Open(std::string_view bracket) {
  BeforeValue();
  Put(bracket);
  has_items_.push_back(0);
}
void JsonWriter::Close(std::string_view bracket) {
  assert(!has_items_.empty() && !after_key_);
  has_items_.pop_back();
  Put(bracket);
}
void JsonWriter::BeginObject() { Open("{"); }
void JsonWriter::EndObject() { Close("}"); }
void JsonWriter::BeginArray() { Open("["); }
void JsonWriter::EndArray() { Close("]"); }

void JsonWriter::Null() {
  BeforeValue();
  Put("null");
}
void JsonWriter::Bool(bool v) {
  BeforeValue();
  Put(v ? "true" : "false");
}
void JsonWriter::Int(long long v) {
  BeforeValue();
  char* p = Room(24);
  size_ = rapidjson::internal::i64toa(static_cast<int64_t>(v), p) - out_.get();
}
void JsonWriter::Uint(unsigned long long v) {
  BeforeValue();
  char* p = Room(24);
  size_ = rapidjson::internal::u64toa(static_cast<uint64_t>(v), p) - out_.get();
}

void JsonWriter::Number(double v) {
  if (!std::isfinite(v)) {
    Null();
    return;
  }
  BeforeValue();
  // RapidJSON's Writer::Double: Grisu2, shortest round-trip form, up to 324 decimals
  // (at most 25 characters).
  char* p = Room(32);
  size_ = rapidjson::internal::dtoa(v, p) - out_.get();
}

namespace {

// Whether any of the 8 bytes of `w` needs more than a copy: a control character (< 0x20),
// '"', '\\' or a byte of a multi-byte UTF-8 sequence (>= 0x80). Bit tricks on one word:
// "has a zero byte" is (v - 0x01..01) & ~v & 0x80..80.
bool AnySpecial(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  auto has_zero = [](uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  const uint64_t below_space = (w - kOnes * 0x20) & ~w & kHigh;
  return (below_space | has_zero(w ^ (kOnes * '"')) | has_zero(w ^ (kOnes * '\\')) |
          (w & kHigh)) != 0;
}

// The position of the first byte of `v` from `i` on that needs more than a copy (see
// AnySpecial), or v.size().
size_t NextSpecial(std::string_view v, size_t i) {
  for (; i + 8 <= v.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, v.data() + i, 8);
    if (AnySpecial(w)) break;
  }
  for (; i < v.size(); ++i) {
    const auto c = static_cast<unsigned char>(v[i]);
    if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) return i;
  }
  return i;
}

}  // namespace

void JsonWriter::Quoted(std::string_view v, bool is_key) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  const size_t start = size_;
  char* p = Room(v.size() * 6 + 2);  // every byte escaped as \u00XX, and the quotes
  *p++ = '"';
  bool ascii = true;
  size_t run = 0;  // start of the characters not yet copied
  for (size_t i = NextSpecial(v, 0); i < v.size(); i = NextSpecial(v, i + 1)) {
    const auto c = static_cast<unsigned char>(v[i]);
    if (c >= 0x80) {  // copied as is (checked below)
      ascii = false;
      continue;
    }
    std::memcpy(p, v.data() + run, i - run);
    p += i - run;
    run = i + 1;
    *p++ = '\\';
    switch (c) {
      case '"': *p++ = '"'; break;
      case '\\': *p++ = '\\'; break;
      case '\b': *p++ = 'b'; break;
      case '\f': *p++ = 'f'; break;
      case '\n': *p++ = 'n'; break;
      case '\r': *p++ = 'r'; break;
      case '\t': *p++ = 't'; break;
      default:
        std::memcpy(p, "u00", 3);
        p[3] = kHex[c >> 4];
        p[4] = kHex[c & 0xF];
        p += 5;
    }
  }
  if (!ascii && (is_key || !db::IsValidUtf8(v))) {
    // Text stored before validation existed may hold invalid bytes: nlohmann's encoder
    // replaces those with U+FFFD. Keys are the renderer's own names: a non-ASCII one goes
    // the same checked way. What this call wrote is replaced by the encoder's string.
    size_ = start;
    Put(EncodeJson(nlohmann::json(std::string(v))));
    return;
  }
  std::memcpy(p, v.data() + run, v.size() - run);
  p += v.size() - run;
  *p++ = '"';
  size_ = p - out_.get();
}

void JsonWriter::QuotedKey(std::string_view key) {
  Quoted(key, /*is_key=*/true);
  Put(":");
}

void JsonWriter::String(std::string_view v) {
  BeforeValue();
  Quoted(v, /*is_key=*/false);
}

void JsonWriter::Raw(std::string_view encoded) {
  BeforeValue();
  Put(encoded);
}

void JsonWriter::Json(const nlohmann::json& v) { Raw(EncodeJson(v)); }

std::string JsonWriter::Take() {
  std::string text(out_.get(), size_);
  size_ = 0;  // the room is kept for the next text
  has_items_.clear();
  after_key_ = false;
  return text;
}

std::string IndentJson(std::string_view compact) {
  std::string out;
  out.reserve(compact.size() * 2);
  int depth = 0;
  auto newline = [&] {
    out += '\n';
    out.append(2 * static_cast<size_t>(depth), ' ');
  };
  for (size_t i = 0; i < compact.size(); ++i) {
    const char c = compact[i];
    switch (c) {
      case '"': {  // a key or string, copied to its closing quote
        size_t end = i + 1;
        while (end < compact.size() && compact[end] != '"') end += compact[end] == '\\' ? 2 : 1;
        end = std::min(end, compact.size() - 1);
        out.append(compact, i, end - i + 1);
        i = end;
        break;
      }
      case '{':
      case '[':
        out += c;
        if (i + 1 < compact.size() && (compact[i + 1] == '}' || compact[i + 1] == ']')) {
          out += compact[++i];  // empty: {} or []
        } else {
          ++depth;
          newline();
        }
        break;
      case '}':
      case ']':
        depth = std::max(0, depth - 1);  // an unmatched one stays at the margin
        newline();
        out += c;
        break;
      case ',':
        out += c;
        newline();
        break;
      case ':':
        out += ": ";
        break;
      case ' ':
      case '\n':
      case '\t':
      case '\r':
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace gpuplan::api
