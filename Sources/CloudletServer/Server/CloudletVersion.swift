/// The version of Cloudlet, as `GET /serverInfo` reports it in `parseServerVersion`.
public enum CloudletVersion {
    /// The current version, `major.minor.patch`.
    public static let current = "0.1.0"
}
