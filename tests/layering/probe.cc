// One include, chosen by the build (FEEDPROF_PROBE_HEADER): compiling this
// file against an area's target tells whether that area may see the header.
#include FEEDPROF_PROBE_HEADER
