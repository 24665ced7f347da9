// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import SecureRoomTestSupport
import XCTest

/// The PIN pad on a real terminal (tmux): boxes fill and empty as digits and Backspace
/// are typed, non-digits are ignored, and the PIN is submitted on the last digit.
final class PINPadTests: XCTestCase {
    private let socket = "secureroom-pad-\(getpid())"

    private func tmux(_ arguments: [String]) throws -> ProcessResult {
        try runProgram("/usr/bin/tmux", ["-L", socket] + arguments)
    }

    private func screen() throws -> String { try tmux(["capture-pane", "-p", "-t", "pad"]).output }

    /// Polls the pane until `text` appears (10 s at most); returns the screen.
    @discardableResult
    private func waitFor(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        for _ in 0..<200 {
            let shown = try screen()
            if shown.contains(text) { return shown }
            usleep(50_000)
        }
        let shown = try screen()
        XCTFail("timed out waiting for \(text); screen:\n\(shown)", file: file, line: line)
        return shown
    }

    private func type(_ keys: String...) throws {
        XCTAssertEqual(try tmux(["send-keys", "-t", "pad"] + keys).status, 0)
    }

    /// Starts `command` in a detached 100x12 session. The tmux server outlives the call,
    /// so it must hold none of our pipes: Foundation's Process lets children inherit
    /// every descriptor, hence the loop closing all but 0-2 before tmux starts.
    private func start(_ command: String) throws {
        let quoted = "'" + command.replacingOccurrences(of: "'", with: "'\\''") + "'"
        let script = """
            for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done
            exec tmux -L \(socket) new-session -d -s pad -x 100 -y 12 \(quoted) </dev/null >/dev/null 2>&1
            """
        XCTAssertEqual(try runProgram("/bin/bash", ["-c", script]).status, 0)
    }

    override func tearDownWithError() throws { _ = try? tmux(["kill-server"]) }

    func testThePadFillsStepsBackAndSubmitsOnTheLastDigit() throws {
        let sandbox = try Sandbox()
        let command =
            "\(Artifacts.cli) set daemon --dir \(sandbox.state) --config \(sandbox.config); echo EXIT=$?; sleep 30"
        try start(command)
        try waitFor("PIN: [ ][ ][ ][ ]")
        try type("6", "9")
        try waitFor("PIN: [●][●][ ][ ]")
        try type("x", "BSpace")
        try waitFor("PIN: [●][ ][ ][ ]")
        try type("0", "2")
        try waitFor("PIN: [●][●][●][ ]")
        try type("8")  // fourth digit: submitted without Enter
        try waitFor("Retype PIN: [ ][ ][ ][ ]")
        XCTAssertFalse(try screen().contains("6028"), "digits are never shown")
        try type("6", "0", "2", "8")
        try waitFor("EXIT=0")
        XCTAssertTrue(try screen().contains("PIN set for daemon."))
        try sandbox.probeService()
        XCTAssertEqual(try sandbox.pam(user: "daemon", responses: ["6028"]).code, PAMCode.success)
    }

    func testCtrlCCancelsAndRestoresTheTerminal() throws {
        let sandbox = try Sandbox()
        let command =
            "\(Artifacts.cli) set daemon --dir \(sandbox.state) --config \(sandbox.config); echo EXIT=$?; "
            + "echo ECHO=$(stty -a | tr ' ;' '\\n\\n' | grep -x -e echo -e -echo); sleep 30"
        try start(command)
        try waitFor("PIN: [ ][ ][ ][ ]")
        try type("1", "C-c")
        let shown = try waitFor("EXIT=1")
        XCTAssertTrue(shown.contains("cancelled"), shown)
        let after = try waitFor("ECHO=")
        XCTAssertTrue(after.contains("ECHO=echo"), "echo is back on after the pad: \(after)")
        XCTAssertEqual(try sandbox.status("daemon")["enrolled"] as? Bool, false)
    }

    /// A typo in the second PIN, or a PIN the policy refuses, asks again (three tries in
    /// all) instead of ending the command; the third miss changes nothing.
    func testSetAsksAgainAfterAMismatchOrARefusedPIN() throws {
        let sandbox = try Sandbox()
        try start(
            "\(Artifacts.cli) set daemon --dir \(sandbox.state) --config \(sandbox.config); echo EXIT=$?; sleep 30")
        try waitFor("PIN: [ ][ ][ ][ ]")
        try type("6", "0", "2", "8")
        try waitFor("Retype PIN: [ ][ ][ ][ ]")
        try type("6", "0", "2", "9")
        try waitFor("PINs do not match; type the new PIN again")
        try type("1", "2", "3", "4")
        let refused = try waitFor("PIN rejected: ").replacingOccurrences(of: "\n", with: "")
        XCTAssertTrue(refused.contains("choose another"), refused)
        try type("6", "0", "2", "8")
        try waitFor("Retype PIN: [ ][ ][ ][ ]")
        try type("6", "0", "2", "8")
        try waitFor("EXIT=0")
        try sandbox.probeService()
        XCTAssertEqual(try sandbox.pam(user: "daemon", responses: ["6028"]).code, PAMCode.success)

        let other = try Sandbox()
        try tmux(["kill-server"])
        try start("\(Artifacts.cli) set daemon --dir \(other.state) --config \(other.config); echo EXIT=$?; sleep 30")
        for _ in 0..<3 {
            try waitFor("PIN: [ ][ ][ ][ ]")
            try type("6", "0", "2", "8")
            try waitFor("Retype PIN: [ ][ ][ ][ ]")
            try type("5", "5", "5", "0")
        }
        try waitFor("EXIT=1")
        XCTAssertTrue(try screen().contains("PINs do not match; nothing was changed"))
        XCTAssertEqual(try other.status("daemon")["enrolled"] as? Bool, false)
    }
}
