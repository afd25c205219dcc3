#include "db/field_rules.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "db/spot_bands.h"
#include "db/text.h"

namespace gpuplan::db::rules {

namespace {

bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

std::string Quoted(std::string_view value) { return "'" + Printable(value, 40) + "'"; }

// Parses exactly `n` ASCII digits at s[pos]; advances pos.
std::optional<int> Digits(std::string_view s, size_t& pos, size_t n) {
  if (pos + n > s.size()) return std::nullopt;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[pos + i];
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  pos += n;
  return v;
}

bool Expect(std::string_view s, size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

// The calendar is std::chrono's (C++20, proleptic Gregorian): y-m-d of a real day, and
// days since 1970-01-01.
std::optional<long long> DaysFromCivil(long long y, long long m, long long d) {
  using namespace std::chrono;
  const year_month_day date{year{static_cast<int>(y)}, month{static_cast<unsigned>(m)},
                            day{static_cast<unsigned>(d)}};
  if (!date.ok()) return std::nullopt;
  return sys_days{date}.time_since_epoch().count();
}

}  // namespace

Reason CheckCatalogId(std::string_view value) {
  if (value.empty()) return "must not be empty";
  if (value.size() > kMaxIdBytes) {
    return "must be at most " + std::to_string(kMaxIdBytes) + " bytes, got " +
           std::to_string(value.size());
  }
  for (char c : value) {
    if (!IsAsciiAlnum(c) && std::string_view("._-+:@()=").find(c) == std::string_view::npos) {
      return "must use only ASCII letters, digits and . _ - + : @ ( ) =, got " + Quoted(value);
    }
  }
  return std::nullopt;
}

Reason CheckName(std::string_view value) {
  if (value.empty()) return "must not be empty";
  if (value.size() > kMaxNameBytes) {
    return "must be at most " + std::to_string(kMaxNameBytes) + " bytes, got " +
           std::to_string(value.size());
  }
  if (!IsAsciiAlnum(value.front())) return "must start with a letter or digit, got " + Quoted(value);
  for (char c : value) {
    if (!IsAsciiAlnum(c) && c != '-' && c != '_' && c != '.') {
      return "must use only ASCII letters, digits, '-', '_' and '.', got " + Quoted(value);
    }
  }
  return std::nullopt;
}

Reason CheckZone(std::string_view value) {
  if (value.empty()) return std::nullopt;
  return CheckName(value);
}

Reason CheckText(std::string_view value, size_t max_bytes) {
  if (value.size() > max_bytes) {
    return "must be at most " + std::to_string(max_bytes) + " bytes, got " +
           std::to_string(value.size());
  }
  if (!IsValidUtf8(value)) return "is not valid UTF-8: " + Quoted(value);
  if (HasControlOrLineBreak(value)) {
    return "must not contain control characters (U+0000-U+001F, U+007F-U+009F) or line "
           "separators (U+2028, U+2029): " + Quoted(value);
  }
  return std::nullopt;
}

Reason CheckCurrency(std::string_view value) {
  if (value.size() == 3 && std::all_of(value.begin(), value.end(),
                                       [](char c) { return c >= 'A' && c <= 'Z'; })) {
    return std::nullopt;
  }
  return "must be an ISO 4217 code such as USD, got " + Quoted(value);
}

Reason CheckGpuCount(long long value) {
  if (value >= 1 && value <= kMaxGpuCount) return std::nullopt;
  return "must be an integer from 1 to " + std::to_string(kMaxGpuCount) + ", got " +
         std::to_string(value);
}

Reason CheckPrice(double value) {
  if (std::isfinite(value) && value > 0 && value <= kMaxPricePerHour) return std::nullopt;
  return fmt::format("must be a finite number above 0 and at most 1e7 per hour, got {:g}", value);
}

Reason CheckFxRate(double units_per_usd) {
  if (std::isfinite(units_per_usd) && units_per_usd >= 1e-9 && units_per_usd <= kMaxFxUnitsPerUsd) {
    return std::nullopt;
  }
  return "must be a finite number from 1e-9 to 1e9";
}

std::optional<std::time_t> ParseTimestamp(std::string_view s) {
  if (s.size() < 10 || s.size() > 40) return std::nullopt;
  size_t pos = 0;
  auto year = Digits(s, pos, 4);
  if (!year || !Expect(s, pos, '-')) return std::nullopt;
  auto month = Digits(s, pos, 2);
  if (!month || !Expect(s, pos, '-')) return std::nullopt;
  auto day = Digits(s, pos, 2);
  if (!day) return std::nullopt;
  const auto days = DaysFromCivil(*year, *month, *day);
  if (!days) return std::nullopt;
  long long seconds = *days * 86400;
  if (pos == s.size()) return static_cast<std::time_t>(seconds);
  if (!Expect(s, pos, 'T')) return std::nullopt;
  auto hour = Digits(s, pos, 2);
  if (!hour || !Expect(s, pos, ':')) return std::nullopt;
  auto minute = Digits(s, pos, 2);
  if (!minute || *hour > 23 || *minute > 59) return std::nullopt;
  int second = 0;
  if (pos < s.size() && s[pos] == ':') {
    ++pos;
    auto sec = Digits(s, pos, 2);
    if (!sec || *sec > 60) return std::nullopt;  // 60: a leap second
    second = *sec;
    if (pos < s.size() && s[pos] == '.') {
      ++pos;
      size_t start = pos;
      while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
      if (pos == start) return std::nullopt;
    }
  }
  seconds += *hour * 3600LL + *minute * 60LL + second;
  if (pos == s.size()) return static_cast<std::time_t>(seconds);
  if (s[pos] == 'Z') return pos + 1 == s.size() ? std::optional<std::time_t>(seconds) : std::nullopt;
  if (s[pos] != '+' && s[pos] != '-') return std::nullopt;
  int sign = s[pos] == '+' ? 1 : -1;
  ++pos;
  auto oh = Digits(s, pos, 2);
  if (!oh) return std::nullopt;
  if (pos < s.size() && s[pos] == ':') ++pos;
  auto om = Digits(s, pos, 2);
  if (!om || pos != s.size() || *oh > 23 || *om > 59) return std::nullopt;
  seconds -= sign * (*oh * 3600LL + *om * 60LL);
  return static_cast<std::time_t>(seconds);
}

Reason CheckTimestamp(std::string_view value, std::time_t now) {
  auto t = ParseTimestamp(value);
  if (!t) {
    return "must be an ISO 8601 date (2026-11-01) or UTC date-time (2026-11-01T12:00:00Z) "
           "of a real calendar day, got " + Quoted(value);
  }
  if (*t < *DaysFromCivil(kMinYear, 1, 1) * 86400) {
    return "must be in " + std::to_string(kMinYear) + " or later, got " + Quoted(value);
  }
  if (*t > now + kFutureSkewSeconds) return "must not be in the future, got " + Quoted(value);
  return std::nullopt;
}

std::string FormatTimestamp(std::time_t t) {
  const long long first = *DaysFromCivil(1, 1, 1) * 86400;
  const long long last = *DaysFromCivil(10000, 1, 1) * 86400 - 1;
  long long seconds = std::clamp<long long>(t, first, last);
  long long days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400;
  long long in_day = seconds - days * 86400;
  const std::chrono::year_month_day date{std::chrono::sys_days{std::chrono::days{days}}};
  const long long y = static_cast<int>(date.year());
  const unsigned m = static_cast<unsigned>(date.month()), d = static_cast<unsigned>(date.day());
  if (in_day == 0) return fmt::format("{:04}-{:02}-{:02}", y, m, d);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", y, m, d, in_day / 3600,
                     in_day / 60 % 60, in_day % 60);
}

std::optional<std::string> CanonicalTimestamp(std::string_view value) {
  auto t = ParseTimestamp(value);
  if (!t) return std::nullopt;
  return FormatTimestamp(*t);
}

std::string CanonicalOrSame(std::string_view value) {
  return CanonicalTimestamp(value).value_or(std::string(value));
}

Status CheckBatch(const CatalogBatch& b, std::time_t now) {
  std::vector<FieldError> errors;
  auto check = [&](const std::string& table, size_t i, const char* field, const Reason& r) {
    if (r && errors.size() < 100) {
      errors.push_back({"/" + table + "/" + std::to_string(i) + "/" + field,
                        std::string(field) + " " + *r});
    }
  };
  for (size_t i = 0; i < b.gpus.size(); ++i) {
    const auto& g = b.gpus[i];
    check("gpus", i, "id", CheckCatalogId(g.id));
    for (auto [field, text] : {std::pair{"name", &g.name}, {"vendor", &g.vendor},
                               {"architecture", &g.architecture}, {"memory_type", &g.memory_type},
                               {"form_factor", &g.form_factor}, {"source", &g.source}}) {
      check("gpus", i, field, CheckText(*text));
    }
    Status spec = model::ValidateGpuSpec(g);
    if (!spec.ok() && errors.size() < 100) {
      errors.push_back({"/gpus/" + std::to_string(i), spec.error().message});
    }
  }
  for (size_t i = 0; i < b.clouds.size(); ++i) {
    check("clouds", i, "id", CheckName(b.clouds[i].id));
    check("clouds", i, "name", CheckText(b.clouds[i].name, kMaxNameBytes));
    check("clouds", i, "default_currency", CheckCurrency(b.clouds[i].default_currency));
  }
  for (size_t i = 0; i < b.regions.size(); ++i) {
    const auto& r = b.regions[i];
    check("regions", i, "cloud", CheckName(r.cloud));
    check("regions", i, "id", CheckName(r.id));
    check("regions", i, "display_name", CheckText(r.display_name, 200));
    check("regions", i, "country", CheckText(r.country, 8));
    check("regions", i, "continent", CheckText(r.continent, 64));
  }
  for (size_t i = 0; i < b.fx_rates.size(); ++i) {
    const auto& f = b.fx_rates[i];
    check("fx_rates", i, "currency", CheckCurrency(f.currency));
    check("fx_rates", i, "units_per_usd", CheckFxRate(f.units_per_usd));
    check("fx_rates", i, "as_of", CheckTimestamp(f.as_of, now));
    check("fx_rates", i, "source", CheckText(f.source));
  }
  for (size_t i = 0; i < b.instance_types.size(); ++i) {
    const auto& t = b.instance_types[i];
    check("instance_types", i, "cloud", CheckName(t.cloud));
    check("instance_types", i, "instance_type", CheckCatalogId(t.id));
    check("instance_types", i, "gpu", CheckCatalogId(t.gpu_id));
    check("instance_types", i, "gpu_count", CheckGpuCount(t.gpu_count));
    auto positive = [](const std::optional<double>& v, double max) -> Reason {
      if (!v || (std::isfinite(*v) && *v > 0 && *v <= max)) return std::nullopt;
      return "must be a finite number above 0 and at most " + std::to_string(static_cast<long long>(max));
    };
    check("instance_types", i, "vcpus", positive(t.vcpus, 1e5));
    check("instance_types", i, "memory_gib", positive(t.memory_gib, 1e6));
    check("instance_types", i, "network_gbps", positive(t.network_gbps, 1e6));
    if (!std::isfinite(t.interconnect_bw_gbps) || t.interconnect_bw_gbps < 0 ||
        t.interconnect_bw_gbps > 1e5) {
      check("instance_types", i, "interconnect_bw_gbps", "must be a finite number from 0 to 1e5");
    }
    for (auto [field, text] : {std::pair{"arch", &t.arch},
                               {"accelerator_name", &t.accelerator_name}, {"source", &t.source}}) {
      check("instance_types", i, field, CheckText(*text, field == std::string("source") ? kMaxTextBytes : kMaxIdBytes));
    }
    if (!t.host_instance_type.empty()) {
      check("instance_types", i, "host_instance_type", CheckCatalogId(t.host_instance_type));
    }
  }
  for (size_t i = 0; i < b.prices.size(); ++i) {
    const auto& p = b.prices[i];
    check("prices", i, "cloud", CheckName(p.cloud));
    check("prices", i, "instance_type", CheckCatalogId(p.instance_type));
    check("prices", i, "region", CheckName(p.region));
    check("prices", i, "zone", CheckZone(p.zone));
    if (p.kind != "ondemand" && p.kind != "spot" && p.kind != "reserved_1y" && p.kind != "reserved_3y") {
      check("prices", i, "kind", "must be ondemand, spot, reserved_1y or reserved_3y, got " + Quoted(p.kind));
    }
    check("prices", i, "price_per_hour", CheckPrice(p.price_per_hour));
    check("prices", i, "currency", CheckCurrency(p.currency));
    check("prices", i, "observed_at", CheckTimestamp(p.observed_at, now));
    check("prices", i, "source", CheckText(p.source));
  }
  for (size_t i = 0; i < b.spot_bands.size(); ++i) {
    const auto& s = b.spot_bands[i];
    check("spot_bands", i, "cloud", CheckName(s.cloud));
    check("spot_bands", i, "region", CheckName(s.region));
    check("spot_bands", i, "instance_type", CheckCatalogId(s.instance_type));
    if (s.band < 0 || s.band > 4) check("spot_bands", i, "band", "must be an integer from 0 to 4");
    check("spot_bands", i, "label", s.label.empty() ? Reason("must not be empty")
                                                    : CheckText(s.label, kMaxIdBytes));
    auto fraction = [](double v) { return std::isfinite(v) && v >= 0 && v < 1; };
    if (!fraction(s.low_fraction)) {
      check("spot_bands", i, "low_fraction", "must be a fraction from 0 to below 1");
    }
    if (s.high_fraction && (!fraction(*s.high_fraction) || *s.high_fraction < s.low_fraction)) {
      check("spot_bands", i, "high_fraction",
            "must be a fraction below 1 and not below low_fraction");
    }
    if (s.savings_percent &&
        !(std::isfinite(*s.savings_percent) && *s.savings_percent >= kMinSpotSavingsPercent &&
          *s.savings_percent <= 100)) {
      check("spot_bands", i, "savings_percent", "must be from -1000 to 100 (%)");
    }
    check("spot_bands", i, "observed_at", CheckTimestamp(s.observed_at, now));
    check("spot_bands", i, "source", CheckText(s.source));
  }
  if (errors.empty()) return OkStatus();
  Error e{ErrorCode::kInvalidArgument,
          std::to_string(errors.size()) + (errors.size() == 100 ? "+" : "") +
              " invalid fields; nothing was written",
          std::move(errors)};
  return e;
}

}  // namespace gpuplan::db::rules
