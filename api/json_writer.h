// A streaming JSON encoder for answers rendered from typed values (plan/ results): text is
// appended to one string as the renderer goes, with no document tree in between. Keys come
// out in the order they are written. The text is byte for byte what RapidJSON's Writer
// writes (numbers by its Grisu2 `dtoa`, the same escapes: \" \\ \b \f \n \r \t and \u00XX
// for other control characters, everything else as is), without its per-character copy.
//
// Never produces invalid JSON from valid calls: non-finite numbers are written as null
// (as nlohmann's dump does), and a string holding invalid UTF-8 has each bad byte replaced
// by U+FFFD (as EncodeJson does). Calls must nest correctly (a Key before each value of an
// object, End* matching Begin*); that is checked by assertions in debug builds.
// Not thread-safe; one writer per answer.
#pragma once

#include <cassert>
#include <cstring>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace gpuplan::api {

// The name of an object member. A string literal (the renderers' own names) is checked when
// the program is compiled: printable ASCII without '"' or '\\', so it is written with a copy
// and no scan (a literal that breaks the rule does not compile). A name made at run time (a
// std::string, or a std::string_view given explicitly) is escaped when written, as any string.
// Holds a view: the text must outlive the call it is passed to.
class JsonKey {
 public:
  template <size_t N>
  consteval JsonKey(const char (&text)[N])  // NOLINT: implicit by design
      : text_(text, N - 1), plain_(true) {
    if (text[N - 1] != '\0') throw "a JSON key literal must be a string literal";
    for (char c : text_) {
      const auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u >= 0x7f || c == '"' || c == '\\') {
        throw "a JSON key literal must be printable ASCII without '\"' or '\\'";
      }
    }
  }
  JsonKey(const std::string& text) : text_(text), plain_(false) {}  // NOLINT: implicit
  explicit JsonKey(std::string_view text) : text_(text), plain_(false) {}

  std::string_view text() const { return text_; }
  // Checked when compiled: needs no escaping.
  bool plain() const { return plain_; }

 private:
  std::string_view text_;
  bool plain_;
};

class JsonWriter {
 public:
  JsonWriter();
  ~JsonWriter();
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  void Key(JsonKey key) {
    assert(!has_items_.empty() && !after_key_);
    BeforeValue();
    if (key.plain()) {
      const std::string_view k = key.text();
      char* p = Room(k.size() + 3);
      p[0] = '"';
      std::memcpy(p + 1, k.data(), k.size());
      p[k.size() + 1] = '"';
      p[k.size() + 2] = ':';
      size_ += k.size() + 3;
    } else {
      QuotedKey(key.text());
    }
    after_key_ = true;
  }

  void Null();
  void Bool(bool v);
  void Int(long long v);
  void Uint(unsigned long long v);
  void Number(double v);  // null when not finite
  void String(std::string_view v);
  // A value already encoded as JSON text, written as is.
  void Raw(std::string_view encoded);
  // A document tree (error details, rows that are built as trees), encoded by EncodeJson.
  void Json(const nlohmann::json& v);

  // Any value: bool, integer, floating point, nullptr, string, std::optional of a value
  // (null when empty), std::vector of values (an array).
  template <typename T>
  void Value(const T& v);

  // Key then value.
  template <typename T>
  void Field(JsonKey key, const T& v) {
    Key(key);
    Value(v);
  }
  // Key then an object whose members `fill` writes.
  template <typename Fill>
  void Object(JsonKey key, Fill&& fill) {
    Key(key);
    BeginObject();
    fill();
    EndObject();
  }

  // The text written so far; the writer is empty afterwards.
  std::string Take();

 private:
  // Writes the separator a value needs here: ',' between the values of an array, nothing
  // after a key (Key wrote the ':'), nothing at the top level.
  void BeforeValue() {
    if (after_key_) {
      after_key_ = false;
    } else if (!has_items_.empty()) {
      if (has_items_.back()) Put(",");
      has_items_.back() = 1;
    }
  }
  // A container's opening and closing bracket, with the separator and nesting they need.
  void Open(std::string_view bracket);
  void Close(std::string_view bracket);
  // Appends `v` between quotes, escaped; invalid UTF-8 has each bad byte replaced (and a
  // non-ASCII key goes through EncodeJson, as it always has).
  void Quoted(std::string_view v, bool is_key);
  // A run-time key, quoted and escaped, and its ':'.
  void QuotedKey(std::string_view key);

  // Room for `n` more characters at out_ + size_ (the text so far is out_'s first size_
  // characters; the rest, to capacity_, is allocated and not yet written).
  char* Room(size_t n) {
    if (size_ + n > capacity_) Grow(n);
    return out_.get() + size_;
  }
  void Grow(size_t n);
  void Put(std::string_view text) {
    std::memcpy(Room(text.size()), text.data(), text.size());
    size_ += text.size();
  }
  // Most answers fit (a training estimate is about 12 KB).
  static constexpr size_t kInitialRoom = 16384;

  std::unique_ptr<char[]> out_;
  size_t capacity_ = 0;
  size_t size_ = 0;
  // One entry per open object or array: whether it holds a member or element yet.
  std::vector<unsigned char> has_items_;
  bool after_key_ = false;
};

// `compact` (JSON text as JsonWriter writes it: no whitespace outside strings) laid out for
// a terminal: one member or element per line, two spaces per level, "key": value, empty
// objects and arrays as {} and [] (the layout of nlohmann's dump(2)). The text itself (keys,
// strings, numbers) is kept byte for byte: nothing is parsed or re-encoded. Text that is not
// compact JSON comes out with its whitespace changed but is never dropped.
std::string IndentJson(std::string_view compact);

namespace json_writer_detail {
template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T>
struct IsVector : std::false_type {};
template <typename T, typename A>
struct IsVector<std::vector<T, A>> : std::true_type {};
}  // namespace json_writer_detail

template <typename T>
void JsonWriter::Value(const T& v) {
  using U = std::decay_t<T>;
  if constexpr (std::is_same_v<U, nlohmann::json>) {
    Json(v);  // first: a json converts implicitly to almost anything
  } else if constexpr (std::is_same_v<U, bool>) {
    Bool(v);
  } else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) {
    Int(v);
  } else if constexpr (std::is_integral_v<U>) {
    Uint(v);
  } else if constexpr (std::is_floating_point_v<U>) {
    Number(static_cast<double>(v));
  } else if constexpr (std::is_same_v<U, std::nullptr_t>) {
    Null();
  } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    String(std::string_view(v));
  } else if constexpr (json_writer_detail::IsOptional<U>::value) {
    if (v) {
      Value(*v);
    } else {
      Null();
    }
  } else if constexpr (json_writer_detail::IsVector<U>::value) {
    BeginArray();
    for (const auto& item : v) Value(item);
    EndArray();
  } else {
    static_assert(sizeof(U) == 0, "JsonWriter::Value: no JSON form for this type");
  }
}

}  // namespace gpuplan::api
