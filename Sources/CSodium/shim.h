// libsodium, whose secretbox the OwnTracks apps encrypt payloads with.
#include <sodium.h>
