import Testing

extension Tag {
    /// Waits on wall-clock time (idle timeouts, pacing): a starved machine can stretch it, so its
    /// tests run one at a time.
    @Tag static var timing: Self
}
