/*
 * CSecureRoomHelperStartup — what secureroom-helper does before any Swift code runs.
 * See startup.c and docs/SECURITY.md §3.
 */
#ifndef CSECUREROOM_HELPER_STARTUP_H
#define CSECUREROOM_HELPER_STARTUP_H

/* 1 once the startup constructor has run (the helper refuses to work otherwise). */
int sr_helper_startup_ran(void);

#endif
