// The harness hands out the runtime's values (its `AppRuntime`, stored files, push jobs): a test
// that imports the harness sees their API too.
@_exported import CloudletRuntime
