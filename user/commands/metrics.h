/* SPDX-License-Identifier: GPL-2.0 */
/* The instance's numbers as Prometheus reads them (metrics.c). */
#ifndef BB_METRICS_H
#define BB_METRICS_H

#include <stdio.h>

#include "pins.h"

/*
 * Every counter (bloomblock_NAME_total), the hits by kind, the attachments, the live
 * filter's gauges, the daemon's state and, while it answers, the hits by list, in the
 * text exposition format, to f. 0, or -errno.
 */
int bb_metrics_write(FILE *f, const struct bb_instance *inst);

#endif /* BB_METRICS_H */
