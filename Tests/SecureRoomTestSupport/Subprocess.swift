// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The result of running a program.
public struct ProcessResult {
    /// Exit status (or 128 + signal).
    public let status: Int32
    /// Standard output.
    public let output: String
    /// Standard error.
    public let errorOutput: String

    /// Output lines.
    public var lines: [String] { output.split(separator: "\n").map(String.init) }
}

/// Runs `executable` with `arguments`, feeding `input` to standard input (or giving it
/// `standardInput` instead, such as a terminal).
@discardableResult
public func runProgram(
    _ executable: String, _ arguments: [String], input: String = "",
    environment: [String: String] = [:], standardInput: FileHandle? = nil
) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env["SWIFT_BACKTRACE"] = "enable=no"
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = standardInput ?? stdin
    process.standardOutput = stdout
    process.standardError = stderr
    signal(SIGPIPE, SIG_IGN)  // a child may exit without reading its input
    try process.run()
    try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
    try? stdin.fileHandleForWriting.close()
    // Read both pipes before waiting, so a chatty child cannot block on a full pipe.
    final class Collected: @unchecked Sendable { var data = Data() }
    let errors = Collected()
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) { errors.data = stderr.fileHandleForReading.readDataToEndOfFile() }
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    let err = errors.data
    process.waitUntilExit()
    let status =
        process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    return ProcessResult(
        status: status, output: String(decoding: out, as: UTF8.self),
        errorOutput: String(decoding: err, as: UTF8.self))
}
