import CloudletCLI
import WaterCoolerHooks

await CloudletCommand<WaterCoolerHooks>.runCommandLine()
