/* SPDX-License-Identifier: GPL-2.0-only */
/* Moved to src/host/live_internal.h; this forwards for code not yet moved. */
#include "host/live_internal.h"
