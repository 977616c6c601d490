// An on/off setting of the command taken from the environment.
//
// Why: the switches that turn an optimisation off where it hurts
// (FEEDPROF_HUGE_PAGES=0, FEEDPROF_PREFAULT=0) must read the same way: on
// unless the variable is exactly "0".
#ifndef FEEDPROF_COMMON_ENV_SWITCH_H_
#define FEEDPROF_COMMON_ENV_SWITCH_H_

#include <cstdlib>
#include <cstring>

namespace feedprof::common {

// Whether the switch `name` is on: unset, or set to anything but "0".
inline bool EnvSwitchOn(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr || std::strcmp(value, "0") != 0;
}

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_ENV_SWITCH_H_
