// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import CSecureRoomHelperStartup
import CSecureRoomSystem
import Glibc
import SecureRoomCore
import SecureRoomProgramSupport

/// secureroom-helper, installed setuid root: lets a caller without root (a screen
/// locker, `secureroom change` run by a user) check or change **its own** PIN, under
/// the same lockout as the PAM module, because the code is the same (LocalPINAuthority).
///
/// What it does, in this order, and nothing else (docs/SECURITY.md §3):
/// 0. before Swift starts (startup.c): empty environment, /dev/null on closed 0-2, no
///    other descriptors, umask 077, no core dumps, not dumpable, no blocked signals;
///    then no runtime crash handler (CrashHandlers), and an alarm that ends it after
///    `HelperProtocol.lifetimeSeconds` whatever the caller does;
/// 1. the request is exactly one of `HelperProtocol.Request` (`verify`, `change`,
///    `setup-vault`, `replace-vault`, `enrol`, `enrol-replace`, `vault-state`, `pin-state`,
///    `recover-vault`), and USER;
/// 2. the caller is not root (root reads the state itself);
/// 3. USER is the account of the calling real uid, both ways (name → uid, uid → name);
/// 4. it really runs with effective uid 0;
/// 5. standard input and output are a pipe or socket (never a terminal, file or /dev/null);
/// 6. the options come from /etc/security/secureroom.conf only — never from the caller;
/// 7. the request runs (HelperSession): status, `ready`, PIN(s) (within
///    `HelperProtocol.pinAnswerSeconds`), the checked outcome; for `enrol`, first the
///    password through PAM (HelperEnrolment, PasswordCheck; each answer within
///    `HelperConversation.answerSeconds`);
/// 8. privileges are dropped for good, then the reply is written, and it exits once the
///    caller closes its end.
enum HelperMain {
    /// Runs one request and returns the exit status.
    static func run(arguments: [String]) -> HelperProtocol.ExitStatus {
        CrashHandlers.restoreDefaults()
        signal(SIGPIPE, SIG_IGN)
        // A last bound on its life: SIGALRM's default action ends it (an ignored SIGALRM
        // is inherited across exec, so the default is set first).
        signal(SIGALRM, SIG_DFL)
        alarm(HelperProtocol.lifetimeSeconds)
        SystemLog.open(identity: "secureroom-helper")
        let caller = getuid()
        var channelChecked = false
        var secrets: SecretBytes?
        let reply = serve(arguments: arguments, caller: caller, channelChecked: &channelChecked, secrets: &secrets)
        guard dropPrivileges() else {
            SystemLog.error("cannot drop privileges (uid \(caller)); exiting")
            return .failure
        }
        writeToCaller(reply.line, secrets: secrets)
        if channelChecked { awaitEndOfInput() }
        return reply.exitStatus
    }

    /// Steps 1-7; every error becomes a reply here, and every refusal a log line.
    private static func serve(
        arguments: [String], caller: uid_t, channelChecked: inout Bool,
        secrets: inout SecretBytes?
    ) -> HelperReply {
        do {
            let invocation = try HelperInvocation(arguments: arguments, caller: caller)
            // Effective gid root too, so the records it writes are root:root.
            guard geteuid() == 0, sr_setresgid(gid_t.max, 0, gid_t.max) == 0 else {
                SystemLog.error("not running as root: install secureroom-helper setuid root (mode 4755)")
                return .failed
            }
            try requireChannel()
            channelChecked = true
            let configuration = try Configuration.load(arguments: [], reader: ConfigurationFile.read)
            if invocation.request == .vaultState {
                let state = try VaultState.of(invocation.user, in: StateStore(configuration: configuration))
                return .vaultState(state)
            }
            if invocation.request == .pinState {
                return .pinState(try PINState.of(invocation.user, in: StateStore(configuration: configuration)))
            }
            if invocation.request == .enrol || invocation.request == .enrolReplace {
                return try HelperEnrolment(invocation: invocation, store: StateStore(configuration: configuration))
                    .run(secrets: &secrets)
            }
            return .checked(
                try HelperSession(invocation: invocation, store: StateStore(configuration: configuration))
                    .run(secrets: &secrets))
        } catch let refusal as HelperRefusal {
            SystemLog.warning("refused uid \(caller): \(refusal.detail)")
            return .refused(refusal.reason)
        } catch SecureRoomError.malformedPIN(let digits) {
            SystemLog.notice("rejected uid \(caller): a PIN that is not \(digits) digits (not counted)")
            return .rejected("the PIN must be exactly \(digits) digits (0-9)")
        } catch SecureRoomError.pinRejected(let reason) {
            SystemLog.notice("rejected uid \(caller): new PIN \(reason) (nothing counted or changed)")
            return .rejected(reason)
        } catch PINEntry.Failure.endOfInput {
            // The caller withdrew: a one-field answer that was not a PIN (pin_or_password),
            // a cancelled dialog. Nothing was checked; no refusal to report.
            SystemLog.log(LOG_INFO, "uid \(caller) withdrew before sending a PIN (nothing checked or counted)")
            return .refused(translate("no PIN on standard input"))
        } catch PINEntry.Failure.timedOut(let seconds) {
            SystemLog.notice("refused uid \(caller): no PIN within \(seconds) s of 'ready' (nothing counted)")
            return .refused("no PIN within \(seconds) s")
        } catch SecureRoomError.accountUnavailable(let user, let reason) {
            SystemLog.notice("refused uid \(caller): \(user) may not use a PIN: \(reason) (nothing counted)")
            return .refused(reason)
        } catch SecureRoomError.tpm(let problem) {
            SystemLog.log(LOG_NOTICE, "refused uid \(caller): \(problem) (nothing counted)", event: .unavailable)
            return .tpm(problem)
        } catch SecureRoomError.busy(let path, let seconds, let holder) {
            SystemLog.notice("gave up for uid \(caller): \(path) still locked by \(holder) after \(seconds) s")
            return .busy
        } catch SecureRoomError.changedConcurrently(let user) {
            SystemLog.notice("refused uid \(caller): the PIN of \(user) changed meanwhile (nothing written)")
            return .refused(translate("your PIN was set or changed meanwhile; nothing was written"))
        } catch SecureRoomError.passwordFirst(let user) {
            SystemLog.notice(
                "refused uid \(caller): \(user) has not logged in with the password since boot (password_first)")
            return .passwordFirst
        } catch SecureRoomError.pinLengthChanged(let user, let digits, let configured) {
            SystemLog.notice(
                "refused uid \(caller): the PIN of \(user) has \(digits) digits, digits=\(configured) (nothing counted)"
            )
            return .refused(Messages.pinLengthChanged(digits: digits, configured: configured))
        } catch SecureRoomError.vaultKeyExists(let user, let recoverable) {
            SystemLog.notice("refused uid \(caller): \(user) already has a vault key (nothing counted)")
            return .refused(SecureRoomError.vaultKeyExists(user: user, recoverable: recoverable).description)
        } catch let failure as SecureRoomError where failure.isRecoveryKeyRefusal {
            // Forty digits (133 bits) need no lockout; the PIN was not asked for.
            SystemLog.notice("refused uid \(caller): \(failure) (no PIN checked, nothing counted)")
            return .refused(failure.description)
        } catch {
            SystemLog.error("\(error) (uid \(caller))")
            return .failed
        }
    }

    /// Step 5: the PIN comes from a pipe or socket and the reply goes back the same way
    /// (a descriptor closed at exec is /dev/null by now, and refused here).
    private static func requireChannel() throws {
        guard sr_helper_startup_ran() == 1 else { throw SecureRoomError.helperFailed("startup sanitising did not run") }
        guard isatty(STDIN_FILENO) == 0 else {
            throw HelperRefusal(translate("standard input is a terminal; the PIN must come from a pipe"))
        }
        for (descriptor, name) in [(STDIN_FILENO, "input"), (STDOUT_FILENO, "output")] {
            var info = stat()
            guard fstat(descriptor, &info) == 0, sr_s_isfifo(info.st_mode) != 0 || sr_s_issock(info.st_mode) != 0 else {
                throw HelperRefusal("standard \(name) is not a pipe or socket")
            }
        }
    }

    /// Step 8: real uid and gid everywhere, checked, with no way back to root; then not
    /// dumpable again (the kernel resets that flag when the ids change).
    private static func dropPrivileges() -> Bool {
        let uid = getuid()
        let gid = getgid()
        guard sr_setresgid(gid, gid, gid) == 0, sr_setresuid(uid, uid, uid) == 0 else { return false }
        var real: uid_t = 0
        var effective: uid_t = 0
        var saved: uid_t = 0
        guard sr_getresuid(&real, &effective, &saved) == 0, real == uid, effective == uid, saved == uid,
            getegid() == gid
        else { return false }
        _ = sr_helper_make_nondumpable()
        return uid == 0 || setuid(0) != 0
    }

    /// After the reply: wait (at most 10 s, discarding at most 64 KiB) for the caller to
    /// close its end, so that the caller, not the helper, decides when the exit happens.
    private static func awaitEndOfInput() {
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { chunk.withUnsafeMutableBytes { sr_explicit_bzero($0.baseAddress, $0.count) } }
        var discarded = 0
        let deadline = Deadline(millisecondsFromNow: 10_000)
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        while discarded < 65_536, !deadline.hasPassed, poll(&descriptor, 1, deadline.remainingMilliseconds) > 0 {
            let count = read(STDIN_FILENO, &chunk, chunk.count)
            guard count > 0 else { return }
            discarded += count
        }
    }
}
