// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import SecureRoomProgramSupport

/// How a tool turns errors into one line on standard error and an exit status.
public struct FailureReport: Sendable {
    /// The program name that prefixes every message.
    public let program: String
    /// The tool's own errors: their message and status, or nil for an error it does not
    /// know (then the shared core's messages apply, with `ExitStatus.failure`).
    public let classify: @Sendable (any Error) -> (message: String, status: ExitCode)?

    /// A report for `program`, with its own errors classified by `classify`.
    public init(
        program: String,
        classify: @escaping @Sendable (any Error) -> (message: String, status: ExitCode)? = { _ in nil }
    ) {
        self.program = program
        self.classify = classify
    }

    /// Writes "`program`: `message`" to standard error.
    public func printError(_ message: String) { ToolOutput.printError(program: program, message) }

    /// Runs `body`; a known error becomes its message on standard error and its exit status.
    /// Usage errors and explicit exit codes pass through to ArgumentParser.
    public func run(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            if let (message, status) = classify(error) {
                printError(message)
                throw status
            }
            guard let message = ToolOutput.message(for: error) else { throw error }
            printError(message)
            throw ExitStatus.failure
        }
    }
}
