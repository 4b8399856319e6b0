#ifndef REPARTO_CLIBPQ_SHIM_H
#define REPARTO_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
