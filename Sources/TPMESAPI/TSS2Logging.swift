// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

/// tpm2-tss configures its logging from the environment (TSS2_LOG, TSS2_LOGFILE), read by
/// each of its libraries at its first log line, marshalling included. In a PAM module the
/// environment is the caller's: a TSS2_LOGFILE would have root append to any file the
/// caller names, a TSS2_LOG print session details on the caller's terminal. So before
/// SecureRoom's first call into any tss2 library, logging is switched off and the log-file
/// variable removed from this process's environment, whatever the caller set.
enum TSS2Logging {
    /// Evaluated once per process (a lazy global), before the first tss2 call.
    static let silenced: Void = {
        setenv("TSS2_LOG", "all+none", 1)
        unsetenv("TSS2_LOGFILE")
    }()
}
