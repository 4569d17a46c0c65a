/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A progress line on a terminal while load reads its lists: bytes read of the lists'
 * sizes, with the pass (a streamed load reads twice). Never when stderr is no terminal.
 */
#ifndef BB_PROGRESS_H
#define BB_PROGRESS_H

#include <linux/types.h>

#include "reader.h"

/* Start the line for lists of total bytes, when stderr is a terminal; stop clears it. */
void bb_progress_start(__u64 total);
void bb_progress_stop(void);

#endif /* BB_PROGRESS_H */
