/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault points for the fault tests (tests/e2e/test_faults_e2e.sh, docs/RELIABILITY.md):
 * with BB_FAULT=POINT[:N] in its environment, bloomblock kills itself with SIGKILL the
 * Nth time (default the first) it passes POINT, so a test can stop it exactly where a
 * crash would hurt most: during the map fill, between the filter's and the allowlist's
 * writes, just before or after the swap. Without BB_FAULT a point is one load and test.
 */
#ifndef BB_FAULT_H
#define BB_FAULT_H

void bb_fault_point(const char *point);

#endif /* BB_FAULT_H */
