import CloudletCLI

await CloudletCommand<FixtureHooks>.runCommandLine()
