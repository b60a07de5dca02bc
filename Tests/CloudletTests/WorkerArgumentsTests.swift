import Testing

@testable import CloudletWorker

/// What a worker executable makes of the arguments a host (or a person) runs it with.
@Suite struct WorkerArgumentsTests {
    @Test func theHostsWorkerCommandServes() {
        #expect(WorkerArguments(["worker"]) == .serve(memoryLimitMb: 0))
        #expect(WorkerArguments(["worker", "--memory-limit-mb", "512"]) == .serve(memoryLimitMb: 512))
        #expect(WorkerArguments(["worker", "--memory-limit-mb=256"]) == .serve(memoryLimitMb: 256))
    }

    @Test func hooksListAndHelpAreAnswered() {
        #expect(WorkerArguments(["hooks", "list"]) == .listHooks)
        #expect(WorkerArguments([]) == .help)
        #expect(WorkerArguments(["--help"]) == .help)
        #expect(WorkerArguments(["worker", "-h"]) == .help)
    }

    @Test func anythingElseIsRefusedWithItsReason() {
        #expect(WorkerArguments(["serve"]) == .invalid("unknown command 'serve'"))
        #expect(WorkerArguments(["hooks"]) == .invalid("unknown command 'hooks'"))
        #expect(WorkerArguments(["worker", "--memory-limit-mb"]) == .invalid("--memory-limit-mb needs a whole number of MiB from 0"))
        #expect(WorkerArguments(["worker", "--memory-limit-mb", "-1"]) == .invalid("--memory-limit-mb needs a whole number of MiB from 0"))
        #expect(WorkerArguments(["worker", "--workers", "2"]) == .invalid("unknown option '--workers' of worker"))
    }
}
