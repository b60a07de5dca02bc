import CloudletCLI
import Hooks

await CloudletCommand<AppHooks>.runCommandLine()
