// Placeholder until the entry points land.
#include "preload/recorder.h"
