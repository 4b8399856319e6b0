#ifndef REPARTO_CFLITE_SHIM_H
#define REPARTO_CFLITE_SHIM_H

// flite (Debian's flite1-dev) and its five built-in US English voices. flite.h does not declare
// the voices' registration functions (each voice library exports one), so they are declared here.
// Reparto drives flite from threads that own it (Speech/FliteEngine.swift).
#include <flite/flite.h>
#include <flite/cst_cg.h>

cst_voice *register_cmu_us_kal(const char *voxdir);
cst_voice *register_cmu_us_kal16(const char *voxdir);
cst_voice *register_cmu_us_slt(const char *voxdir);
cst_voice *register_cmu_us_rms(const char *voxdir);
cst_voice *register_cmu_us_awb(const char *voxdir);

#endif
