import CSecureRoomPAM
import SecureRoomCore

// The Swift side of the pam_sm_* entry points (the C shim forwards to these).
// Each is thin glue: parse options once, run one management group, map the result.

/// pam_sm_authenticate: ask for the PIN and check it under the lockout.
@_cdecl("secureroom_authenticate")
func secureroomAuthenticate(_ handle: OpaquePointer?, _ flags: Int32, _ argc: Int32,
                            _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32 {
    ModuleCall.run(handle, flags, argc, argv) { try Authentication(call: $0).run() }
}

/// pam_sm_setcred: SecureRoom holds no credentials to establish.
@_cdecl("secureroom_setcred")
func secureroomSetcred(_ handle: OpaquePointer?, _ flags: Int32, _ argc: Int32,
                       _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32 {
    PAM_SUCCESS
}

/// pam_sm_acct_mgmt: whether the user's PIN is usable.
@_cdecl("secureroom_acct_mgmt")
func secureroomAcctMgmt(_ handle: OpaquePointer?, _ flags: Int32, _ argc: Int32,
                        _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32 {
    ModuleCall.run(handle, flags, argc, argv) { try AccountCheck(call: $0).run() }
}

/// pam_sm_chauthtok: change the PIN (current, new, confirm).
@_cdecl("secureroom_chauthtok")
func secureroomChauthtok(_ handle: OpaquePointer?, _ flags: Int32, _ argc: Int32,
                         _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32 {
    ModuleCall.run(handle, flags, argc, argv) { try PINChange(call: $0).run() }
}
