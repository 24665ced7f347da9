// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomCommandLine
import SecureRoomCore
import SecureRoomProgramSupport

/// `secureroom status [USER]`: enrolment and lockout state.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show enrolment, failures and lockout for one user or all enrolled users (users: their own).",
        discussion: """
            The PIN column is "yes", "no", "must-change", or "N digits" when the PIN has another \
            length than digits= asks for now: it cannot be typed until it is set again, and the \
            module says so instead of asking.

            JSON (--json) has, per user: user, enrolled, digits (the PIN's length, null when \
            unknown), state ("open", "delayed", "disabled", \
            "password": open, but with password_first the PIN waits for a password login since \
            boot, or "none"), failures (what counts toward deny: the current run, pending \
            attempts, and the past year's failures no right PIN forgave), locked_until (ISO \
            8601 UTC when a delay is running, else null), disabled, last_success and \
            last_failure (ISO 8601 UTC or null), vault ("pin": the PIN opens a vault; \
            "recovery-only": only the recovery key can; "none"), and argon2 (the record's \
            parameters) with argon2_below_policy (true when the configured ones differ and \
            neither memory nor passes are lower: the record is re-derived at the user's next \
            successful PIN login; a lower configured cost never reaches it) and \
            argon2_below_floor (true when they are below the floor of \(KDFParameters.floorDescription): the \
            PIN is refused until it is set again), and tpm \
            ("bound": the PIN is bound to its own counter in the TPM, which takes part in every \
            check; "bound-spent": that counter reached its limit, so the chip refuses the PIN \
            and it needs 'secureroom set' or 'secureroom enrol --replace'; "bound-other-boot": \
            sealed with tpm_pcrs= to a boot whose PCRs differ from now, so the chip will not \
            release it until the PIN is set again; "bound-shared": bound \
            under the chip's shared counter by an older version, bound to its own at the next \
            right PIN; "bound-unreachable": no TPM answers, so the PIN cannot be used; \
            "bound-other-chip": the TPM that answers is not the one the PIN was bound to \
            (cleared or replaced) or the PIN's counter is gone, so the PIN cannot be used and \
            needs 'secureroom set'; "none") with tpm_failures and tpm_limit (the wrong PINs on \
            the PIN's own counter and its limit, else null), must_change (ISO 8601 \
            UTC since when the PIN must be changed at its next use, after 'set --expire' or \
            'expire'; else null), and corrupt (null, or why a record cannot be read: state \
            "corrupt", and 'secureroom reset USER' moves the record aside). For one \
            user it is an object; without USER, an array of enrolled users. The table fits 80 \
            columns (user, PIN, failures, state, locked until, vault; a corrupt record's reason \
            below it); --wide adds the last success and failure, the TPM and the argon2 \
            parameters. A USER with neither an account nor a PIN is an error (exit 1). Run by \
            a user (no root), it shows their own account only, through secureroom-helper; \
            last_success, last_failure and argon2 are then null and tpm "unknown".
            """)

    @Argument(help: "The account (default: every enrolled user).")
    var user: String?

    @Flag(help: "Print JSON.")
    var json = false

    @Flag(help: "Every column: also last success, last failure, TPM and argon2 (wider than 80 columns).")
    var wide = false

    @OptionGroup var state: StateOptions

    func run() throws {
        try reportingFailures {
            guard LocalPINAuthority.isAvailable else { return try showOwnStatus() }
            let store = try state.store()
            let now = SystemClock().now()
            let users = try user.map { [try UserName($0)] } ?? store.enrolledUsers()
            var chip = ChipView(store.configuration)
            let reports = try users.map { user in
                do {
                    let credential = try store.credential(for: user)
                    // The recovery record matters only when the PIN holds no vault key.
                    return UserStatus(
                        user: user, credential: credential,
                        tally: try store.lockout(for: user), configuration: store.configuration, now: now,
                        hasRecovery: try credential?.vaultKey == nil && store.recovery(for: user) != nil,
                        tpm: credential?.binding.map { chip.state(of: $0) })
                } catch let error as SecureRoomError {
                    // One bad record must not hide everyone else's, nor itself.
                    guard isRecordProblem(error, of: user) else { throw error }
                    return UserStatus(user: user, corrupt: "\(error)")
                }
            }
            if let name = user, let report = reports.first, !report.enrolled, report.corrupt == nil,
                report.user.account() == nil
            {
                printError("no such user \(UserName.quoted(name)), and no PIN records for that name")
                throw ExitStatus.failure
            }
            try show(Self.applyingPasswordFirst(reports, store.configuration), single: user != nil)
            if reports.contains(where: { $0.tpm.hasPrefix("bound") }) {
                warnIfChipNotHardened(store.configuration, log: false)
            }
        }
    }

    /// With `password_first=`, an open PIN that waits for its user's password since boot
    /// shows as state "password" (`PasswordProof`, which every user may read).
    private static func applyingPasswordFirst(_ reports: [UserStatus], _ configuration: Configuration) -> [UserStatus] {
        guard configuration.passwordFirst != .off else { return reports }
        let proof = PasswordProof(path: configuration.sessionDirectory)
        let now = SystemClock().now()
        return reports.map { report in
            var report = report
            if report.state == "open", !proof.allowsPIN(of: report.user, under: configuration.passwordFirst, at: now) {
                report.state = "password"
            }
            return report
        }
    }

    /// Without root: the caller's own PIN and vault, from secureroom-helper (`pin-state`,
    /// `vault-state`: nothing is read of the PIN, nothing counted). The times of the last
    /// success and failure, the argon2 parameters and the TPM stay root's to see.
    private func showOwnStatus() throws {
        let invoking = try invokingUser()
        if let user, user != invoking { try refuse("only root can see another user's PIN") }
        if state.dir != nil || state.config != nil { try refuse("--dir and --config need root") }
        let name = try UserName(invoking)
        let configuration = try state.store().configuration
        let helper = HelperClient(configuration: configuration)
        let report = UserStatus(
            user: name, pin: try helper.pinState(of: name), vault: try helper.vaultState(of: name),
            now: SystemClock().now())
        // As root's: an object for a USER named, an array without one (here, of one).
        try show(Self.applyingPasswordFirst([report], configuration), single: user != nil)
    }

    /// Prints `reports` as JSON (an object when `single`) or as the table.
    private func show(_ reports: [UserStatus], single: Bool) throws {
        if json {
            print(single ? try JSONOutput.text(reports[0]) : try JSONOutput.text(reports))
        } else if reports.isEmpty {
            print("No users have a PIN.")
        } else if wide {
            print(UserStatus.wideHeader)
            reports.forEach { print($0.wideRow) }
        } else {
            print(UserStatus.header)
            reports.forEach { print($0.row) }
            for report in reports { if let note = report.note { print(note) } }
            if reports.contains(where: \.hasWideDetails) {
                print("Some users have more to see (TPM, argon2): secureroom status --wide")
            }
        }
    }
}

/// One user's state, as `status` reports it (a table row, or JSON whose keys the
/// command's discussion lists; absent times are null, not left out).
struct UserStatus: Encodable {
    let user: UserName
    let enrolled: Bool
    let failures: Int
    var state: String
    let lockedUntil: Int64?
    let lastSuccess: Int64?
    let lastFailure: Int64?
    let vault: String
    /// The PIN's length, nil without a PIN or when not known (a user's own view).
    let digits: Int?
    /// Whether `digits=` asks for another length now: the PIN cannot be typed.
    let lengthDiffers: Bool
    /// The record's argon2 parameters ("m=65536,t=3,p=2"), nil without a PIN.
    let argon2: String?
    /// Whether the configured ones would raise them (re-derived at the next PIN login).
    let belowPolicy: Bool
    /// Whether they are below `KDFParameters.floor` (without `argon2_below_floor`): the
    /// PIN is refused until it is set again.
    let belowFloor: Bool
    /// `ChipView.State.name` for a PIN bound to a TPM, "none" without one, "unknown".
    let tpm: String
    /// The PIN's wrong guesses on its own counter in the TPM and the counter's limit.
    let tpmCounter: (failures: Int, limit: Int)?
    /// Since when the PIN must be changed at its next use, nil if it need not.
    let mustChange: Int64?
    /// Why a record of the user cannot be read, nil when they all can.
    let corrupt: String?

    /// A user whose credential or lockout record cannot be read: state "corrupt".
    init(user: UserName, corrupt reason: String) {
        self.user = user
        corrupt = reason
        enrolled = true
        failures = 0
        state = "corrupt"
        lockedUntil = nil
        lastSuccess = nil
        lastFailure = nil
        vault = "unknown"
        digits = nil
        lengthDiffers = false
        argon2 = nil
        belowPolicy = false
        belowFloor = false
        tpm = "unknown"
        tpmCounter = nil
        mustChange = nil
    }

    /// A user's own view, from secureroom-helper: the last success and failure, the
    /// argon2 parameters and the TPM are unknown (null, "unknown").
    init(user: UserName, pin: PINState, vault: VaultState, now: Instant) {
        self.user = user
        enrolled = pin.status != nil
        failures = pin.status?.failures ?? 0
        mustChange = pin.mustChange
        corrupt = nil
        lastSuccess = nil
        lastFailure = nil
        digits = nil
        lengthDiffers = false
        argon2 = nil
        belowPolicy = false
        belowFloor = false
        tpm = "unknown"
        tpmCounter = nil
        switch vault {
        case .pin: self.vault = "pin"
        // wipe_after erases the PIN's copy only; the recovery record stays (FORMAT.md §7).
        case .recoveryOnly, .noPIN(recoverable: true), .erased: self.vault = "recovery-only"
        case .noState, .noPIN(recoverable: false), .noVault: self.vault = "none"
        }
        (state, lockedUntil) = Self.state(of: pin.status, now: now)
    }

    init(
        user: UserName, credential: CredentialRecord?, tally: LockoutRecord, configuration: Configuration, now: Instant,
        hasRecovery: Bool, tpm: ChipView.State?
    ) {
        self.tpm = tpm?.name ?? "none"
        tpmCounter = tpm?.counter
        mustChange = credential?.mustChange
        corrupt = nil
        self.user = user
        vault = credential?.vaultKey != nil ? "pin" : hasRecovery ? "recovery-only" : "none"
        enrolled = credential != nil
        let policy = configuration.lockout
        failures = policy.status(of: tally, at: now).failures
        lastSuccess = tally.lastSuccess
        lastFailure = (tally.attemptInstants.map(\.wallSeconds) + tally.unforgiven).max()
        digits = credential?.digits
        lengthDiffers = credential.map { !configuration.acceptsLength($0.digits) } ?? false
        argon2 = credential?.parameters.summary
        belowPolicy = credential.map { configuration.kdf.raises($0.parameters) } ?? false
        belowFloor = credential.map { !configuration.acceptsCost($0.parameters) } ?? false
        (state, lockedUntil) = Self.state(of: credential.map { _ in policy.status(of: tally, at: now) }, now: now)
    }

    /// The state's name and, while a delay runs, when it ends (nil `status`: no PIN).
    private static func state(of status: LockoutStatus?, now: Instant) -> (String, Int64?) {
        switch status {
        case nil: return ("none", nil)
        case .open?: return ("open", nil)
        case .delayed(let seconds, _)?: return ("delayed", now.wallSeconds + seconds)
        case .disabled?: return ("disabled", nil)
        }
    }

    /// The table's columns that fit 80 (`row`); `--wide` adds the rest (`wideRow`).
    private static let columns: [(title: String, width: Int)] = [
        ("USER", 13), ("PIN", 12), ("FAILURES", 9), ("STATE", 9), ("LOCKED UNTIL", 21), ("VAULT", 14),
    ]
    private static let wideColumns: [(title: String, width: Int)] = [
        ("USER", 16), ("PIN", 12), ("FAILURES", 9), ("STATE", 9), ("LOCKED UNTIL", 21), ("LAST SUCCESS", 21),
        ("LAST FAILURE", 21), ("VAULT", 14), ("TPM", 18), ("ARGON2", 8),
    ]

    static let header = pad(columns.map(\.title), columns)
    static let wideHeader = pad(wideColumns.map(\.title), wideColumns)

    private var pin: String {
        if !enrolled { return "no" }
        if lengthDiffers { return "\(digits ?? 0) digits" }
        return mustChange != nil ? "must-change" : "yes"
    }

    /// The row of the 80-column table.
    var row: String {
        Self.pad(
            [user.rawValue, pin, String(failures), state, lockedUntil.map(ISO8601.utc) ?? "-", vault], Self.columns)
    }

    /// The row of the wide table.
    var wideRow: String {
        Self.pad(
            [
                user.rawValue, pin, String(failures), state, lockedUntil.map(ISO8601.utc) ?? "-",
                lastSuccess.map(ISO8601.utc) ?? "-", lastFailure.map(ISO8601.utc) ?? "-", vault, tpm,
                note ?? argon2.map {
                    belowFloor
                        ? "\($0) (below the floor: set a new PIN)"
                        : belowPolicy ? "\($0) (old: re-derived at next login)" : "current"
                } ?? "-",
            ], Self.wideColumns)
    }

    /// Why a record cannot be read and what to do, under the table (nil when all can).
    var note: String? { corrupt.map { "\(user): \($0) - 'secureroom reset \(user)' moves it aside" } }

    /// Whether the wide table shows something about this user that the narrow one hides:
    /// a TPM that cannot take part, or a record at other argon2 parameters.
    var hasWideDetails: Bool { !["none", "bound", "unknown"].contains(tpm) || belowPolicy || belowFloor }

    private enum Key: String, CodingKey {
        case user, enrolled, digits, state, failures, disabled, vault, argon2
        case lockedUntil = "locked_until"
        case lastSuccess = "last_success"
        case lastFailure = "last_failure"
        case belowPolicy = "argon2_below_policy"
        case belowFloor = "argon2_below_floor"
        case tpm
        case tpmFailures = "tpm_failures"
        case tpmLimit = "tpm_limit"
        case mustChange = "must_change"
        case corrupt
    }

    func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: Key.self)
        try object.encode(user.rawValue, forKey: .user)
        try object.encode(enrolled, forKey: .enrolled)
        try object.encode(digits, forKey: .digits)
        try object.encode(state, forKey: .state)
        try object.encode(failures, forKey: .failures)
        try object.encode(lockedUntil.map(ISO8601.utc), forKey: .lockedUntil)
        try object.encode(state == "disabled", forKey: .disabled)
        try object.encode(lastSuccess.map(ISO8601.utc), forKey: .lastSuccess)
        try object.encode(lastFailure.map(ISO8601.utc), forKey: .lastFailure)
        try object.encode(vault, forKey: .vault)
        try object.encode(argon2, forKey: .argon2)
        try object.encode(belowPolicy, forKey: .belowPolicy)
        try object.encode(belowFloor, forKey: .belowFloor)
        try object.encode(tpm, forKey: .tpm)
        try object.encode(tpmCounter?.failures, forKey: .tpmFailures)
        try object.encode(tpmCounter?.limit, forKey: .tpmLimit)
        try object.encode(mustChange.map(ISO8601.utc), forKey: .mustChange)
        try object.encode(corrupt, forKey: .corrupt)
    }

    private static func pad(_ values: [String], _ columns: [(title: String, width: Int)]) -> String {
        zip(values, columns).map { $0 + String(repeating: " ", count: max(1, $1.width - $0.count)) }
            .joined().trimmingTrailingSpaces()
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
