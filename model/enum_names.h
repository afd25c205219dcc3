// Name <-> value tables for the model's enums (precision, family, interconnect, optimizer,
// ...): one lookup shared by every ParseX / XName pair (plan/ names its enums with it too).
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace gpuplan::model {

template <typename E, size_t N>
using EnumNames = std::array<std::pair<std::string_view, E>, N>;

template <typename E, size_t N>
std::optional<E> ParseEnum(const EnumNames<E, N>& table, std::string_view text) {
  for (const auto& [name, value] : table) {
    if (name == text) return value;
  }
  return std::nullopt;
}

template <typename E, size_t N>
std::string_view EnumName(const EnumNames<E, N>& table, E value) {
  for (const auto& [name, v] : table) {
    if (v == value) return name;
  }
  return "unknown";
}

}  // namespace gpuplan::model
