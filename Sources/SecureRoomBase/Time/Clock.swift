/// A source of `Instant`s; tests inject their own.
public protocol Clock: Sendable {
    /// The current instant.
    func now() -> Instant
}
