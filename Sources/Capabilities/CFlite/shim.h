#ifndef REPARTO_CFLITE_SHIM_H
#define REPARTO_CFLITE_SHIM_H

// flite (Debian's flite1-dev) and its five built-in US English voices. Reparto drives flite from
// threads that own it (Speech/FliteEngine.swift).
#include <flite/flite.h>
#include <flite/cst_cg.h>
#include <dlfcn.h>

// The voice libraries are opened when flite is first used, not linked: each is megabytes of
// tables that the loader would relocate at every start of every process (a worker that never
// speaks with flite paid about 5 MB of resident memory for them). Each exports one registration
// function, which flite.h does not declare. NULL when the library or its function is missing.
static inline cst_voice *reparto_flite_register(const char *library, const char *function) {
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return NULL;
    cst_voice *(*registration)(const char *) = (cst_voice *(*)(const char *))dlsym(handle, function);
    return registration == NULL ? NULL : registration(NULL);
}

#endif
