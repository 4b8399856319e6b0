#ifndef REPARTO_CESPEAKNG_SHIM_H
#define REPARTO_CESPEAKNG_SHIM_H

// libespeak-ng (Debian's libespeak-ng-dev). The library keeps global state, so Reparto calls it
// from one owning thread only (Speech/EspeakLibrary.swift).
#include <espeak-ng/speak_lib.h>
#include <espeak-ng/espeak_ng.h>

#endif
