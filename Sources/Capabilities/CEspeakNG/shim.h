#ifndef REPARTO_CESPEAKNG_SHIM_H
#define REPARTO_CESPEAKNG_SHIM_H

// libespeak-ng (Debian's libespeak-ng-dev). The library keeps global state, so Reparto calls it
// from one owning thread only (Speech/EspeakLibrary.swift). Only its types come from here: the
// functions are looked up at run time (Speech/EspeakSymbols.swift), so the library, and the audio
// stack it links, load only in a process that speaks.
#include <espeak-ng/speak_lib.h>
#include <espeak-ng/espeak_ng.h>

#endif
