// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Glibc
import SecureRoomCommandLine
import SecureRoomCore

/// `secureroom tune`: argon2 parameters for a time budget on this machine.
struct TuneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tune",
        abstract: "Measure argon2id here and propose parameters that take about --target-ms per PIN check.",
        discussion: """
            Memory first, as RFC 9106 advises: the most memory allowed (--max-memory) with the \
            floor's passes; if that is too slow, less memory, down to the floor of \
            \(KDFParameters.floorDescription); if there is time left, more passes (and, \
            when the memory is capped and one more pass would overshoot, that pass over less \
            memory if it is more work within the budget). Every \
            configuration is timed with real argon2id runs (the median of three), and the \
            proposal is printed as argon2_memory=, argon2_time= and argon2_lanes= lines for \
            /etc/security/secureroom.conf. Nothing is changed: new PINs use the parameters once \
            they are in the file; existing PINs keep theirs until they are set or changed.

            Every login runs argon2 once with this memory, and logins of different users run \
            at once, so keep --max-memory well below the memory the machine can spare. Run it \
            on an idle machine; a busy one proposes too little.
            """)

    @Option(help: ArgumentHelp("Time for one PIN check, in milliseconds (50 to 10000).", valueName: "ms"))
    var targetMs: Int = 300

    @Option(
        help: ArgumentHelp(
            "Most memory to propose, in MiB (\(Self.leastMiB) to 1024; default 256, or 1/32 of RAM if less).",
            valueName: "MiB"))
    var maxMemory: Int?

    @Option(help: ArgumentHelp("Lanes (argon2's p; default: online CPUs, at most 16).", valueName: "n"))
    var lanes: Int?

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        guard (50...10_000).contains(targetMs) else { throw ValidationError("--target-ms must be from 50 to 10000") }
        if let maxMemory, !(Self.leastMiB...1_024).contains(maxMemory) {
            throw ValidationError("--max-memory must be from \(Self.leastMiB) to 1024 MiB (the floor's memory)")
        }
        if let lanes, !KDFParameters.laneRange.contains(UInt32(clamping: lanes)) {
            throw ValidationError(
                "--lanes must be from \(KDFParameters.laneRange.lowerBound) to \(KDFParameters.laneRange.upperBound)")
        }
    }

    func run() throws {
        try reportingFailures {
            let online = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
            let lanes = UInt32(self.lanes ?? min(online, Int(KDFParameters.laneRange.upperBound)))
            let tuning = KDFTuning(
                targetMilliseconds: Double(targetMs),
                maximumMemoryKiB: UInt32(maxMemory ?? Self.defaultMaximumMiB()) * 1_024, lanes: lanes)
            let outcome = try tuning.run()
            if json { try printJSON(outcome, online: online) } else { printText(outcome, online: online) }
        }
    }

    /// The floor's memory in MiB: the least `--max-memory`.
    static let leastMiB = Int(KDFParameters.floor.memoryKiB / 1_024)

    /// 256 MiB, or 1/32 of the physical memory if that is less (at least the floor's).
    static func defaultMaximumMiB() -> Int {
        let pages = sysconf(Int32(_SC_PHYS_PAGES))
        let pageSize = sysconf(Int32(_SC_PAGESIZE))
        guard pages > 0, pageSize > 0 else { return 256 }
        return max(leastMiB, min(256, (pages / 32 * pageSize) >> 20))
    }

    private func describe(_ parameters: KDFParameters) -> String {
        let passes = parameters.iterations == 1 ? "1 pass" : "\(parameters.iterations) passes"
        return
            "m=\(parameters.memoryKiB) KiB (\(parameters.memoryKiB / 1_024) MiB), \(passes), \(parameters.lanes) lanes"
    }

    private func milliseconds(_ value: Double) -> String { String(Int(value.rounded())) }

    private func printText(_ outcome: KDFTuning.Outcome, online: Int) {
        print("Measured on this machine (\(online) CPUs online), target \(targetMs) ms per PIN check:")
        for trial in outcome.trials {
            print("  \(describe(trial.parameters)): \(milliseconds(trial.milliseconds)) ms")
        }
        let proposal = outcome.proposal
        print(
            """

            Proposal for /etc/security/secureroom.conf:
              argon2_memory=\(proposal.parameters.memoryKiB)
              argon2_time=\(proposal.parameters.iterations)
              argon2_lanes=\(proposal.parameters.lanes)
            """)
        if outcome.fits {
            print("It takes \(milliseconds(proposal.milliseconds)) ms here. New PINs use it once it is in the file.")
        } else {
            print(
                "Even this takes \(milliseconds(proposal.milliseconds)) ms, over the target: the machine is too "
                    + "slow or too busy for \(targetMs) ms."
            )
        }
    }

    private func printJSON(_ outcome: KDFTuning.Outcome, online: Int) throws {
        print(try JSONOutput.text(TuneReport(targetMs: targetMs, onlineCPUs: online, outcome: outcome)))
    }
}

/// What `tune --json` prints: the target, the trials and the proposal.
struct TuneReport: Encodable {
    /// One measured configuration, its time to a tenth of a millisecond.
    struct Trial: Encodable {
        let memoryKiB: UInt32
        let iterations: UInt32
        let lanes: UInt32
        let milliseconds: Double

        enum CodingKeys: String, CodingKey {
            case memoryKiB = "memory_kib"
            case iterations, lanes, milliseconds
        }

        init(_ trial: KDFTuning.Trial) {
            memoryKiB = trial.parameters.memoryKiB
            iterations = trial.parameters.iterations
            lanes = trial.parameters.lanes
            milliseconds = (trial.milliseconds * 10).rounded() / 10
        }
    }

    let targetMs: Int
    let onlineCPUs: Int
    let fits: Bool
    let proposal: Trial
    let trials: [Trial]

    enum CodingKeys: String, CodingKey {
        case fits, proposal, trials
        case targetMs = "target_ms"
        case onlineCPUs = "online_cpus"
    }

    init(targetMs: Int, onlineCPUs: Int, outcome: KDFTuning.Outcome) {
        self.targetMs = targetMs
        self.onlineCPUs = onlineCPUs
        fits = outcome.fits
        proposal = Trial(outcome.proposal)
        trials = outcome.trials.map(Trial.init)
    }
}
