// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc

/// What a person is told after a PIN check, in the voice of a lock screen, and what the
/// system log says about it. Shared by the PAM module (through the conversation), the
/// admin tool (on the terminal) and secureroom-helper, so there is one vocabulary.
public enum Messages {
    /// The syslog lines (priority, text, kind) for a check's outcome; `subject` names the
    /// user. Never contains a PIN.
    public static func logLines(for outcome: PINVerifier.Outcome, subject: String)
        -> [(priority: Int32, text: String, event: LogEvent)]
    {
        switch outcome {
        case .success, .notEnrolled:
            return []
        case .incorrect(let after, let vaultErased):
            var lines = [(LOG_NOTICE, "authentication failure for \(subject): wrong PIN (\(after))", LogEvent.wrong)]
            if case .disabled = after {
                lines.append((LOG_WARNING, "PIN disabled for \(subject) (\(after))", .disabled))
            }
            if vaultErased {
                lines.append(
                    (
                        LOG_ALERT,
                        "vault key of \(subject) erased after \(after.failures) consecutive failed PIN attempts "
                            + "(wipe_after); only the recovery key opens the vault now", .vaultErased
                    ))
            }
            return lines
        case .repeatedIncorrect:
            return [(LOG_NOTICE, "authentication failure for \(subject): repeated wrong PIN, not counted", .repeated)]
        case .locked(let now):
            return [(LOG_NOTICE, "refused \(subject): PIN locked (\(now))", .locked)]
        }
    }

    /// The message for a check's outcome; nil for success and for users without a PIN.
    public static func text(for outcome: PINVerifier.Outcome) -> String? {
        switch outcome {
        case .success, .notEnrolled: return nil
        case .incorrect(let status, _): return localized("Incorrect PIN.") + after(status)
        case .repeatedIncorrect(let status):
            return localized("Incorrect PIN (already tried; not counted again).") + after(status)
        case .locked(let status): return locked(status)
        }
    }

    /// The refusal for a tally that does not allow an attempt now.
    public static func locked(_ status: LockoutStatus) -> String {
        switch status {
        case .delayed(let seconds, _): return tryAgain(in: seconds)
        case .disabled(let failures): return disabled(failures)
        case .open: return localized("Try again.")
        }
    }

    /// Told at a successful login after failed attempts: how many, and how many keep
    /// counting for a year because no right PIN followed them within 5 minutes.
    public static func failuresSinceLastLogin(_ count: Int, kept: Int, user: UserName) -> String {
        let text = localized(
            "{count} failed PIN attempt since your last login.",
            plural: "{count} failed PIN attempts since your last login.",
            count: count)
        guard kept > 0 else { return text }
        let values: KeyValuePairs = ["command": "secureroom reset \(user.rawValue)"]
        return text + " "
            + (kept == count
                ? localized(
                    "It was not followed by your PIN within 5 minutes and counts against it for a year; logging in "
                        + "with your password, or '{command}' by an administrator, clears it.",
                    plural: "They were not followed by your PIN within 5 minutes and count against it for a year; "
                        + "logging in with your password, or '{command}' by an administrator, clears them.",
                    count: count, values)
                : localized(
                    "{count} of them was not followed by your PIN within 5 minutes and counts against it for a year; "
                        + "logging in with your password, or '{command}' by an administrator, clears it.",
                    plural: "{count} of them were not followed by your PIN within 5 minutes and count against it for a "
                        + "year; logging in with your password, or '{command}' by an administrator, clears them.",
                    count: kept, values))
    }

    /// The vault's recovery key, when it is made (`secureroom-vault init`, a PIN created
    /// with `enrol_vault`): shown this once, never stored in clear.
    public static func recoveryKeyShownOnce(_ key: RecoveryKey, user: UserName) -> String {
        localized(
            """
            Recovery key, shown only this once. Write it down and keep it offline:

                {key}

            If your PIN no longer opens your vault (forgotten and replaced with
            'secureroom enrol --replace', or set anew by an administrator), this key
            makes it open again: secureroom-vault recover
            """, ["key": key.displayText])
    }

    /// Told at the first successful login after `wipe_after` erased the vault key.
    public static func vaultErased(_ erasure: CredentialRecord.VaultErasure, user: UserName) -> String {
        localized(
            "Your SecureRoom vault key was erased at {time} after {count} failed PIN attempt. Your secrets are kept: "
                + "'secureroom-vault recover' and your recovery key make the vault open with your PIN again.",
            plural:
                "Your SecureRoom vault key was erased at {time} after {count} failed PIN attempts. Your secrets are "
                + "kept: 'secureroom-vault recover' and your recovery key make the vault open with your PIN again.",
            count: erasure.failures, ["time": ISO8601.utc(erasure.at)])
    }

    /// The message for a bound PIN the TPM could not check: never a wrong PIN, always a
    /// way on (the password; for a PIN bound to another chip, a new PIN).
    public static func tpm(_ problem: TPMProblem) -> String {
        switch problem {
        case let .lockedOut(seconds):
            return localized(
                "The security chip is locked; try again in {minutes} min, or use your password.",
                ["minutes": String(TPMProblem.minutes(seconds))])
        case let .shareSpent(seconds):
            return localized(
                "Too many wrong PINs went to the security chip; try again in {minutes} min, or use your password.",
                ["minutes": String(TPMProblem.minutes(seconds))])
        case .bootChanged:
            return localized(
                "This computer started differently from when your PIN was set (firmware or boot changed); use "
                    + "your password, and set your PIN again.")
        case .pruneNeeded:
            return localized(
                "The security chip holds too many counters of your old PINs; ask an administrator to run "
                    + "'secureroom tpm prune', then try again.")
        case .full:
            return localized(
                "The security chip has no room for another PIN; use your password, and ask an administrator.")
        case .pinSpent:
            return localized(
                "Your PIN was blocked by the security chip after too many wrong PINs; use your password, "
                    + "then set a new PIN with 'secureroom enrol --replace' or ask an administrator.")
        case .otherChip:
            return localized(
                "Your PIN belongs to another security chip (this one was cleared or replaced); use your password, "
                    + "and ask an administrator for a new PIN.")
        case .unreachable, .failed:
            return localized("The security chip does not answer; use your password.")
        }
    }

    /// Told when the user's records stay locked past the patience (a stalled process holds
    /// them, docs/DESIGN.md §4): nothing was checked or counted, and the stack goes on.
    public static var recordsBusy: String {
        localized("The PIN cannot be checked now: another process holds its records. Nothing was counted.")
    }

    /// What a user is told when `password_first=` keeps the PIN from being asked.
    public static var passwordFirst: String {
        localized("Use your password: your PIN works after your first password login since the computer started.")
    }

    /// Told at self-enrolment to a user whose password has the PIN's form (`digits=`
    /// digits): where one field takes either secret (`pin_or_password`), such a password
    /// is checked as the PIN and never reaches the password's module.
    public static func pinShapedPassword(digits: Int) -> String {
        localized(
            "Your password is {count} digits, the form of a PIN: where one field takes the PIN or the password, "
                + "it is checked as your PIN. Choose a longer password with 'passwd' to use it there.",
            ["count": String(digits)])
    }

    /// Told instead of the prompt when the user's PIN has another length than `digits=`
    /// now asks for: it cannot be typed, the password can.
    public static func pinLengthChanged(digits: Int, configured: Int) -> String {
        localized(
            "Your PIN has {digits} digits, but this computer now asks for {configured}: use your password, then set "
                + "a new PIN with 'secureroom enrol --replace'.",
            ["digits": String(digits), "configured": String(configured)])
    }

    /// The message for input that is not a PIN of the configured form.
    public static func malformed(digits: Int) -> String {
        localized(
            "The PIN must be exactly {count} digit (0-9).", plural: "The PIN must be exactly {count} digits (0-9).",
            count: digits)
    }

    private static func disabled(_ failures: Int) -> String {
        localized(
            "PIN disabled after {count} failed attempt; ask an administrator.",
            plural: "PIN disabled after {count} failed attempts; ask an administrator.", count: failures)
    }

    private static func after(_ status: LockoutStatus) -> String {
        switch status {
        case let .open(_, untilDelay, untilDisabled):
            if let next = untilDelay {
                return " "
                    + localized(
                        "{count} attempt left before a {delay} delay.",
                        plural: "{count} attempts left before a {delay} delay.",
                        count: next.attempts, ["delay": DurationText.adjective(next.delay)])
            }
            return " "
                + localized(
                    "{count} attempt left before the PIN is disabled.",
                    plural: "{count} attempts left before the PIN is disabled.", count: untilDisabled)
        case .delayed(let seconds, _): return " " + tryAgain(in: seconds)
        case .disabled(let failures): return " " + disabled(failures)
        }
    }

    private static func tryAgain(in seconds: Int64) -> String {
        localized(
            "Too many failed attempts. Try again in {duration}.", ["duration": DurationText.spoken(seconds)])
    }
}
