#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
# Tests/reliability/crash-tpm.sh [--long] — crash.sh with the PINs bound to a software TPM:
# logins, set and change SIGKILLed at every state-changing syscall (the TPM commands among
# them) and at random times; no free guess, old-or-new PIN, records parse, as in crash.sh.
ITEM=crash-tpm
CRASH_TPM=1
# shellcheck source=Tests/reliability/crash.sh
source "$(dirname "$0")/crash.sh" "$@"
