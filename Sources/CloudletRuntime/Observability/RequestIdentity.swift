import Logging

/// The id of the request the current task serves, so that every line logged while serving it
/// carries `request_id`, whichever logger writes it.
///
/// The request log middleware binds it; a server's loggers read it through ``metadataProvider``:
/// ```swift
/// LoggingSystem.bootstrap({ label, provider in StructuredLogHandler(label: label, format: .logfmt, metadataProvider: provider) },
///                         metadataProvider: RequestIdentity.metadataProvider)
/// ```
public enum RequestIdentity {
    /// The id of the request being served, if any.
    @TaskLocal public static var requestId: String?

    /// Adds `request_id` to every line logged while a request is served.
    public static let metadataProvider = Logger.MetadataProvider {
        guard let requestId else { return [:] }
        return ["request_id": .string(requestId)]
    }
}
