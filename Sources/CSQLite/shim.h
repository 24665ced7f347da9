// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

#include <sqlite3.h>

/* SQLITE_TRANSIENT is a cast macro Swift cannot import: SQLite copies the bound bytes. */
static inline sqlite3_destructor_type sr_sqlite_transient(void) { return SQLITE_TRANSIENT; }
