// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc
import SecureRoomCore

/// Chooses argon2id parameters for a time budget on this machine, memory first, as
/// RFC 9106 §4 advises: take the most memory allowed with the floor's passes
/// (`KDFParameters.floor`); if that is over the budget, shrink the memory down to the
/// floor's; otherwise add passes while they fit. When the memory is
/// capped and the next pass would overshoot with most of the budget unused, that pass is
/// tried over less memory and kept if it is more work (m × t) within the budget.
struct KDFTuning {
    /// One measured configuration.
    struct Trial: Equatable, Sendable {
        /// The parameters tried.
        let parameters: KDFParameters
        /// The median time of one run, in milliseconds.
        let milliseconds: Double
    }

    /// The time budget for one run, in milliseconds.
    let targetMilliseconds: Double
    /// The most memory to propose, in KiB.
    let maximumMemoryKiB: UInt32
    /// Lanes to propose.
    let lanes: UInt32
    private let measure: (KDFParameters) throws -> Double

    /// A tuning that times each candidate with `measure` (milliseconds per run).
    init(
        targetMilliseconds: Double, maximumMemoryKiB: UInt32, lanes: UInt32,
        measure: @escaping (KDFParameters) throws -> Double
    ) {
        self.targetMilliseconds = targetMilliseconds
        self.maximumMemoryKiB = maximumMemoryKiB
        self.lanes = lanes
        self.measure = measure
    }

    /// A tuning timed by real argon2id runs (`timeRun`).
    init(targetMilliseconds: Double, maximumMemoryKiB: UInt32, lanes: UInt32) {
        self.init(
            targetMilliseconds: targetMilliseconds, maximumMemoryKiB: maximumMemoryKiB, lanes: lanes,
            measure: { try Self.timeRun($0) })
    }

    /// What a tuning tried and what it proposes.
    struct Outcome: Sendable {
        /// Every configuration measured, in order.
        let trials: [Trial]
        /// The largest cost within the budget, or the smallest allowed configuration if
        /// even that is over it.
        let proposal: Trial
        /// Whether the proposal is within the budget.
        let fits: Bool
    }

    /// Measures candidates and returns the proposal.
    func run() throws -> Outcome {
        var trials: [Trial] = []
        func trial(_ memory: UInt32, _ passes: UInt32) throws -> Trial {
            let parameters = KDFParameters(memoryKiB: memory, iterations: passes, lanes: lanes)
            try parameters.validate()
            let result = Trial(parameters: parameters, milliseconds: try measure(parameters))
            trials.append(result)
            return result
        }
        let floor = max(KDFParameters.floor.memoryKiB, 8 * lanes)
        let leastPasses = KDFParameters.floor.iterations
        // `memory`, which takes `milliseconds`, scaled to the budget with `margin`, in whole MiB.
        func toward(_ milliseconds: Double, _ memory: UInt32, margin: Double) -> UInt32 {
            UInt32(Double(memory) * targetMilliseconds / milliseconds * margin) / 1_024 * 1_024
        }
        func work(_ trial: Trial) -> UInt64 { UInt64(trial.parameters.memoryKiB) * UInt64(trial.parameters.iterations) }
        // 1. Memory first: the most allowed, the floor's passes, shrunk (in whole MiB) until it fits.
        var memory = max(floor, maximumMemoryKiB)
        var best = try trial(memory, leastPasses)
        while best.milliseconds > targetMilliseconds && memory > floor {
            memory = max(floor, min(memory - 1_024, toward(best.milliseconds, memory, margin: 0.95)))
            best = try trial(memory, leastPasses)
        }
        guard best.milliseconds <= targetMilliseconds else {
            return Outcome(trials: trials, proposal: best, fits: false)
        }
        // 2. Then passes, while the next one still fits. Page faults are paid once, not per
        //    pass, so a pass costs less than the average so far: measure unless the
        //    estimate is far over.
        var passes = leastPasses
        while passes < KDFParameters.iterationRange.upperBound,
            best.milliseconds * Double(passes + 1) / Double(passes) <= targetMilliseconds * 1.5
        {
            let next = try trial(memory, passes + 1)
            guard next.milliseconds <= targetMilliseconds else { break }
            best = next
            passes += 1
        }
        // 3. Memory capped and the next pass over it too slow: if the budget is far from
        //    used, that pass over less memory may be more work (m × t) within it. The first
        //    size is estimated; later ones grow from what was measured, three times at most.
        let next = passes + 1
        guard best.milliseconds < targetMilliseconds * 0.85, next <= KDFParameters.iterationRange.upperBound else {
            return Outcome(trials: trials, proposal: best, fits: true)
        }
        // Never over the memory cap, which an estimate from a noisy measurement can exceed.
        var size = min(memory, toward(best.milliseconds * Double(next) / Double(passes), memory, margin: 0.95))
        guard size >= floor, UInt64(size) * UInt64(next) > work(best) else {
            return Outcome(trials: trials, proposal: best, fits: true)
        }
        for attempt in 0..<4 {
            let candidate = try trial(size, next)
            guard candidate.milliseconds <= targetMilliseconds else { break }
            if work(candidate) > work(best) { best = candidate }
            let grown = min(memory, toward(candidate.milliseconds, size, margin: 0.97))
            guard attempt < 3, candidate.milliseconds < targetMilliseconds * 0.9, grown > size else { break }
            size = grown
        }
        return Outcome(trials: trials, proposal: best, fits: true)
    }

    /// Median wall time, in milliseconds, of three argon2id runs with `parameters` (after
    /// one unmeasured run), with a random password, salt and pepper as at a login.
    static func timeRun(_ parameters: KDFParameters) throws -> Double {
        let password = try SecretBytes.random(count: 4)
        let pepper = try SecretBytes.random(count: Pepper.length)
        let salt = try SecretBytes.random(count: Argon2id.saltLength).withUnsafeBytes { Array($0) }
        let associatedData = Array("secureroom/1 user=tune".utf8)
        var times: [Double] = []
        for run in 0..<4 {
            var start = timespec()
            var end = timespec()
            clock_gettime(CLOCK_MONOTONIC, &start)
            _ = try Argon2id.derive(
                password: password, salt: salt, secret: pepper,
                associatedData: associatedData, parameters: parameters)
            clock_gettime(CLOCK_MONOTONIC, &end)
            if run > 0 {
                times.append(
                    Double(end.tv_sec - start.tv_sec) * 1_000 + Double(end.tv_nsec - start.tv_nsec) / 1_000_000)
            }
        }
        return times.sorted()[times.count / 2]
    }
}
