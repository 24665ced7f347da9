// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

#ifndef CTSS2_SHIM_H
#define CTSS2_SHIM_H
/* Headers only: tpm2-tss ESAPI (Debian libtss2-dev). All TPM logic is in Swift (SecureRoomCore/TPM/ESAPI). */
#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>
#endif
