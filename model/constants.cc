#include "model/constants.h"

namespace gpuplan::model {

double ModelConstants::Sigma(Family family) const {
  auto it = sigma_by_family.find(family);
  return it == sigma_by_family.end() ? sigma_default : it->second;
}

const ModelConstants& DefaultConstants() {
  static const ModelConstants constants = [] {
    ModelConstants c;
    return c;
  }();
  return constants;
}

}  // namespace gpuplan::model
