import Testing

extension Tag {
    /// Runs the built executables as processes: slower than the unit suites, and needs them built.
    @Tag static var integration: Self
}

/// Every test that runs the built executables as processes. They run one at a time, so that a
/// loaded machine does not stretch any of them towards its timeouts; the unit suites run beside them.
@Suite(.serialized, .tags(.integration)) enum ProcessTests {}
