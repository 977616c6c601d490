#include "cupti_hooks/python_frames.h"

#include <dlfcn.h>

#include <cstdio>

namespace feedprof::cupti {
namespace {

template <typename Fn>
bool Lookup(const char* name, Fn* slot) {
  *slot = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, name));
  return *slot != nullptr;
}

}  // namespace

bool PythonFrames::Resolve() {
  int expected = kUnknown;
  if (!state_.compare_exchange_strong(expected, kResolving,
                                      std::memory_order_acquire)) {
    return expected == kAvailable;
  }
  // Py_IsInitialized alone says "a libpython is mapped"; the frame API
  // (3.9+) is required for anything else.
  if (!Lookup("Py_IsInitialized", &is_initialized_)) {
    state_.store(kAbsent, std::memory_order_release);
    return false;
  }
  const bool complete =
      Lookup("PyGILState_Check", &gil_check_) &&
      Lookup("PyGILState_GetThisThreadState", &this_thread_state_) &&
      Lookup("PyThreadState_GetFrame", &thread_state_get_frame_) &&
      Lookup("PyFrame_GetCode", &frame_get_code_) &&
      Lookup("PyFrame_GetBack", &frame_get_back_) &&
      Lookup("PyFrame_GetLineNumber", &frame_get_line_number_) &&
      Lookup("Py_DecRef", &dec_ref_) &&
      Lookup("PyObject_GetAttrString", &get_attr_string_) &&
      Lookup("PyUnicode_AsUTF8", &unicode_as_utf8_) &&
      Lookup("PyErr_Clear", &err_clear_);
  // Public from 3.13, private before; either tells a shutting-down
  // interpreter (whose frames must not be walked) apart.
  if (!Lookup("Py_IsFinalizing", &is_finalizing_)) {
    Lookup("_Py_IsFinalizing", &is_finalizing_);
  }
  if (!complete) {
    state_.store(kAbsent, std::memory_order_release);
    return false;
  }
  if (is_initialized_() == 0) {
    // Loaded but not started yet (embedding host): look again later.
    state_.store(kUnknown, std::memory_order_release);
    return false;
  }
  state_.store(kAvailable, std::memory_order_release);
  return true;
}

bool PythonFrames::Available() {
  const int state = state_.load(std::memory_order_acquire);
  if (state == kAvailable) return true;
  if (state != kUnknown) return false;
  return Resolve();
}

uint32_t PythonFrames::Capture(uint64_t* code, uint32_t* line, uint32_t max) {
  if (!Available() || is_initialized_() == 0) return 0;
  if (is_finalizing_ != nullptr && is_finalizing_() != 0) return 0;
  if (gil_check_() != 1) return 0;
  PyObject* thread_state = this_thread_state_();
  if (thread_state == nullptr) return 0;
  PyObject* frame = thread_state_get_frame_(thread_state);  // new reference
  uint32_t n = 0;
  while (frame != nullptr && n < max) {
    PyObject* code_object = frame_get_code_(frame);  // new reference
    code[n] = reinterpret_cast<uintptr_t>(code_object);
    const int number = frame_get_line_number_(frame);
    line[n] = number > 0 ? static_cast<uint32_t>(number) : 0;
    ++n;
    // The frame keeps its code object alive; the reference is not needed.
    if (code_object != nullptr) dec_ref_(code_object);
    PyObject* back = frame_get_back_(frame);  // new reference
    dec_ref_(frame);
    frame = back;
  }
  if (frame != nullptr) dec_ref_(frame);
  return n;
}

bool PythonFrames::Describe(uint64_t code, char* file, size_t file_size,
                            char* function, size_t function_size) {
  file[0] = '\0';
  function[0] = '\0';
  if (!Available() || gil_check_() != 1 || code == 0) return false;
  auto* code_object = reinterpret_cast<PyObject*>(static_cast<uintptr_t>(code));
  const auto copy_attr = [&](const char* attr, char* out, size_t out_size) {
    PyObject* value = get_attr_string_(code_object, attr);  // new reference
    if (value == nullptr) {
      err_clear_();
      return false;
    }
    const char* text = unicode_as_utf8_(value);
    if (text == nullptr) {
      err_clear_();
    } else {
      std::snprintf(out, out_size, "%s", text);
    }
    dec_ref_(value);
    return text != nullptr;
  };
  copy_attr("co_filename", file, file_size);
  if (!copy_attr("co_qualname", function, function_size)) {
    copy_attr("co_name", function, function_size);
  }
  return file[0] != '\0' || function[0] != '\0';
}

}  // namespace feedprof::cupti
