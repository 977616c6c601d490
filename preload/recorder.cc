// Placeholder until the recorder lands.
#include "preload/recorder.h"
