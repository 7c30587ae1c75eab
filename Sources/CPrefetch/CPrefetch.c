// The target's one function is inline, in its header; a C target needs a source file to build.
#include "CPrefetch.h"
