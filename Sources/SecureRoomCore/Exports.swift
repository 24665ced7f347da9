// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

// The core's callers (the module, the tools, the helper) see the base's types as the
// core's own: secret bytes, hex, user names, time, the error type (docs/DESIGN.md §2);
// and the chip's ESAPI layer, whose types the TPM records name.
@_exported import SecureRoomBase
@_exported import TPMESAPI
