// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * CSecureRoomHelperStartup — what secureroom-helper does before any Swift code runs.
 * See startup.c and docs/SECURITY.md §3.
 */
#ifndef CSECUREROOM_HELPER_STARTUP_H
#define CSECUREROOM_HELPER_STARTUP_H

/* 1 once the startup constructor has run (the helper refuses to work otherwise). */
int sr_helper_startup_ran(void);

/* prctl(PR_SET_DUMPABLE, 0): again after dropping privileges, which resets it. */
int sr_helper_make_nondumpable(void);

#endif
