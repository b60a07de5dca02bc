import Logging

extension ServeCommand {
    /// Warns when a key was given as a flag while apps other than `mainApp` run here, among
    /// `runningApps`: their hooks could have read it in this process's command line before it was
    /// wiped (see `KeyFlags`), and it stays in shell histories and process listings taken meanwhile.
    func warnOfKeyFlags(_ settings: SettingsReader, runningApps: [String], mainApp: String, logger: Logger) {
        let given = [ServeSettings.clientKey, ServeSettings.masterKey, ServeSettings.operatorKey].filter(settings.isFlag)
        let others = runningApps.filter { $0 != mainApp }
        guard !given.isEmpty, !others.isEmpty else { return }
        let variables = given.map(\.variable).joined(separator: ", ")
        logger.warning(
            "keys given as flags while other apps run here: give them through \(variables) or the config file instead",
            metadata: ["flags": "\(given.map { "--\($0.flag)" }.joined(separator: " "))", "other_apps": "\(others.joined(separator: " "))"])
    }
}
