import Testing

/// Every test that runs the built executables as processes. They run one at a time, so that a
/// loaded machine does not stretch any of them towards its timeouts.
@Suite(.serialized) enum ProcessTests {}
