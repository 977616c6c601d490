// `feedprof doctor`'s output: text (one line per check, grouped by area,
// then a summary line) and JSON (schema "feedprof.doctor/1", documented in
// docs/doctor.md).
#ifndef FEEDPROF_REPORT_DOCTOR_REPORT_H_
#define FEEDPROF_REPORT_DOCTOR_REPORT_H_

#include <string>

#include "platform/doctor.h"

namespace feedprof {

inline constexpr const char* kDoctorSchema = "feedprof.doctor/1";

std::string WriteDoctorText(const platform::DoctorResult& result);
std::string WriteDoctorJson(const platform::DoctorResult& result);

}  // namespace feedprof

#endif  // FEEDPROF_REPORT_DOCTOR_REPORT_H_
