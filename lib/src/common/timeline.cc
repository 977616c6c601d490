// The timeline model is header-only today; this file anchors the library so
// it always has at least one object.
#include "feedprof/timeline.h"
