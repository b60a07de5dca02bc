/// The bound of one upload that holds unless an app's file settings set another.
public enum UploadLimits {
    /// The largest upload by default: 20 MiB, as Parse Server's `maxUploadSize`.
    public static let defaultMaximumBytes = 20 << 20
}
