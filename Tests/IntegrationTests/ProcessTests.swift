import Testing

extension Tag {
    /// Runs the built executables as processes: slower than the unit suites, and needs them built.
    @Tag static var integration: Self
}

/// Every test that runs the built executables as processes. They run beside the other tests; those
/// that wait on wall-clock time (hook limits, kills, CPU shares) carry the `.timing` trait.
@Suite(.tags(.integration)) enum ProcessTests {}
