// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomPAM
import SecureRoomCore

// The Swift side of the pam_sm_* entry points (the C shim forwards to these).
// Each is thin glue: parse options once, run one management group, map the result.

/// pam_sm_authenticate: ask for the PIN and check it under the lockout.
@_cdecl("secureroom_authenticate")
func secureroomAuthenticate(
    _ handle: OpaquePointer?, _ flags: Int32, _ argc: Int32,
    _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
    ModuleCall.run(handle, "auth", flags, argc, argv) { try Authentication(call: $0).run() }
}

/// pam_sm_setcred: put the vault key unlocked by `auth` in the user's keyring.
@_cdecl("secureroom_setcred")
func secureroomSetcred(
    _ handle: OpaquePointer?, _ flags: Int32, _ argc: Int32,
    _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
    ModuleCall.run(handle, "setcred", flags, argc, argv) { try VaultSession(call: $0).setCredentials() }
}

/// pam_sm_open_session: unlock the vault (if `auth` unlocked it) and count the session.
@_cdecl("secureroom_open_session")
func secureroomOpenSession(
    _ handle: OpaquePointer?, _ flags: Int32, _ argc: Int32,
    _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
    ModuleCall.run(handle, "session", flags, argc, argv) { try VaultSession(call: $0).open() }
}

/// pam_sm_close_session: the user's last session to close locks the vault.
@_cdecl("secureroom_close_session")
func secureroomCloseSession(
    _ handle: OpaquePointer?, _ flags: Int32, _ argc: Int32,
    _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
    ModuleCall.run(handle, "session", flags, argc, argv) { try VaultSession(call: $0).close() }
}

/// pam_sm_acct_mgmt: whether the user's PIN is usable.
@_cdecl("secureroom_acct_mgmt")
func secureroomAcctMgmt(
    _ handle: OpaquePointer?, _ flags: Int32, _ argc: Int32,
    _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
    ModuleCall.run(handle, "account", flags, argc, argv) { try AccountCheck(call: $0).run() }
}

/// pam_sm_chauthtok: change the PIN (current, new, confirm).
@_cdecl("secureroom_chauthtok")
func secureroomChauthtok(
    _ handle: OpaquePointer?, _ flags: Int32, _ argc: Int32,
    _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
    ModuleCall.run(handle, "chauthtok", flags, argc, argv) { try PINChange(call: $0).run() }
}
