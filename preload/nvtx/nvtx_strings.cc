#include "preload/nvtx/nvtx_strings.h"

#include <cstddef>
#include <cstring>
#include <string_view>

#include "preload/recorder.h"

namespace feedprof::preload::nvtx {
namespace {

static_assert(sizeof(NameCache::Slot) == 64);

size_t CacheSlot(const char* text) {
  const auto bits = reinterpret_cast<uintptr_t>(text);
  return ((bits >> 3) ^ (bits >> 11)) & (NameCache::kSlots - 1);
}

// Cuts `length` back so the text does not end inside a UTF-8 sequence.
size_t TrimToCharBoundary(const char* text, size_t length) {
  while (length > 0 &&
         (static_cast<unsigned char>(text[length]) & 0xC0) == 0x80) {
    --length;
  }
  return length;
}

__attribute__((noinline)) uint32_t InternAndCache(const char* text,
                                                  NameCache::Slot* slot) {
  size_t length = strnlen(text, kMaxNameBytes);
  if (length == kMaxNameBytes) length = TrimToCharBoundary(text, length);
  const uint32_t id = InternString(std::string_view(text, length));
  if (slot != nullptr && id != 0 && length < NameCache::kTextBytes) {
    slot->pointer = text;
    slot->id = id;
    std::memcpy(slot->text, text, length);
    slot->text[length] = '\0';
  }
  return id;
}

size_t EncodeUtf8(uint32_t cp, char* out) {
  if (cp < 0x80) {
    out[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<char>(0xC0 | (cp >> 6));
    out[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (cp >> 12));
    out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (cp >> 18));
  out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

uint64_t PayloadBits(const nvtxEventAttributes_t& a) {
  switch (a.payloadType) {
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64:
      return a.payload.ullValue;
    case NVTX_PAYLOAD_TYPE_INT64:
      return static_cast<uint64_t>(a.payload.llValue);
    case NVTX_PAYLOAD_TYPE_DOUBLE: {
      uint64_t bits;
      std::memcpy(&bits, &a.payload.dValue, sizeof bits);
      return bits;
    }
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32:
      return a.payload.uiValue;
    case NVTX_PAYLOAD_TYPE_INT32:
      return static_cast<uint64_t>(static_cast<int64_t>(a.payload.iValue));
    case NVTX_PAYLOAD_TYPE_FLOAT: {
      const double widened = a.payload.fValue;
      uint64_t bits;
      std::memcpy(&bits, &widened, sizeof bits);
      return bits;
    }
    default:
      return 0;
  }
}

}  // namespace

size_t WideToUtf8(const wchar_t* text, char* out, size_t capacity) {
  if (capacity == 0) return 0;
  size_t n = 0;
  if (text != nullptr) {
    for (const wchar_t* p = text; *p != L'\0'; ++p) {
      auto cp = static_cast<uint32_t>(*p);
      if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) cp = 0xFFFD;
      char encoded[4];
      const size_t size = EncodeUtf8(cp, encoded);
      if (n + size > capacity - 1) break;
      std::memcpy(out + n, encoded, size);
      n += size;
    }
  }
  out[n] = '\0';
  return n;
}

uint32_t InternAsciiName(NameCache* cache, const char* text) {
  if (text == nullptr || text[0] == '\0') return 0;
  if (cache == nullptr) return InternAndCache(text, nullptr);
  NameCache::Slot& slot = cache->slots[CacheSlot(text)];
  // The copy of the text, not just the pointer, must match: programs build
  // names in reused buffers.
  if (slot.pointer == text &&
      std::strncmp(slot.text, text, NameCache::kTextBytes) == 0) {
    return slot.id;
  }
  return InternAndCache(text, &slot);
}

uint32_t InternWideName(const wchar_t* text) {
  if (text == nullptr || text[0] == L'\0') return 0;
  char utf8[kMaxNameBytes + 1];
  const size_t length = WideToUtf8(text, utf8, sizeof utf8);
  return InternString(std::string_view(utf8, length));
}

EventAttributes ReadEventAttributes(NameCache* cache,
                                    const nvtxEventAttributes_t* attributes) {
  EventAttributes out;
  if (attributes == nullptr) return out;
  const nvtxEventAttributes_t& a = *attributes;
  const size_t size = a.size;
  // Fields past the size the caller declared are not there to read.
  if (size >= offsetof(nvtxEventAttributes_t, colorType)) {
    out.category = a.category;
  }
  if (size >= offsetof(nvtxEventAttributes_t, payloadType) &&
      a.colorType == NVTX_COLOR_ARGB) {
    out.color = a.color;
  }
  if (size >= offsetof(nvtxEventAttributes_t, messageType)) {
    out.payload = PayloadBits(a);
  }
  if (size >= sizeof(nvtxEventAttributes_t)) {
    switch (a.messageType) {
      case NVTX_MESSAGE_TYPE_ASCII:
        out.name_id = InternAsciiName(cache, a.message.ascii);
        break;
      case NVTX_MESSAGE_TYPE_UNICODE:
        out.name_id = InternWideName(a.message.unicode);
        break;
      case NVTX_MESSAGE_TYPE_REGISTERED:
        out.name_id = IdFromStringHandle(a.message.registered);
        break;
      default:
        break;
    }
  }
  return out;
}

}  // namespace feedprof::preload::nvtx
