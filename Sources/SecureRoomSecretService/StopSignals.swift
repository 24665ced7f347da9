import Glibc

/// SIGTERM, SIGINT and SIGHUP as a request to stop: blocked from creation on, delivered
/// only while the loop waits on the bus (`BusConnection.run`), where the handler notes them.
final class StopSignals {
    /// The signal mask to wait with (the one before these were blocked).
    let unblocked: sigset_t

    nonisolated(unsafe) private static var caught: sig_atomic_t = 0
    private static let numbers = [SIGTERM, SIGINT, SIGHUP]

    /// Installs the handlers and blocks the signals.
    init() throws {
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        for number in Self.numbers { sigaddset(&blocked, number) }
        guard sigprocmask(SIG_BLOCK, &blocked, &previous) == 0 else {
            throw BusFailure.failed("sigprocmask: \(String(cString: strerror(errno)))")
        }
        for number in Self.numbers {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in StopSignals.caught = 1 }
            sigemptyset(&action.sa_mask)
            _ = sigaction(number, &action, nil)
        }
        for number in Self.numbers { sigdelset(&previous, number) }
        unblocked = previous
    }

    /// Whether one of them came.
    var received: Bool { Self.caught != 0 }
}
