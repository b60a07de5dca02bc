import CloudletCLI
import ContentAlertsHooks

await CloudletCommand<ContentAlertsHooks>.runCommandLine()
