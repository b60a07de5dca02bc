import Foundation

/// The free space the host keeps on the disk of its data folder: uploads stop (413, code 130)
/// before the disk's free space would fall under the floor, so that every app's saves, sign-ups
/// and logs keep the room they need; `/ready` says so while the disk is under it.
public struct FreeDiskFloor: Sendable, Hashable {
    /// The floor by default: 1 GiB.
    public static let defaultFloorBytes: Int64 = 1 << 30

    /// A folder on the disk watched.
    public var folder: String
    /// The bytes kept free; 0 for no floor.
    public var floorBytes: Int64

    /// The floor of `floorBytes` on the disk that holds `folder`.
    public init(folder: String, floorBytes: Int64 = FreeDiskFloor.defaultFloorBytes) {
        self.folder = folder
        self.floorBytes = floorBytes
    }

    /// The bytes free on the disk for a process without privileges (Foundation reads them with
    /// `statvfs`: available blocks times the fragment size); nil when the system cannot say.
    public func freeBytes() -> Int64? {
        let attributes = try? FileManager.default.attributesOfFileSystem(forPath: folder)
        return (attributes?[.systemFreeSize] as? NSNumber)?.int64Value
    }

    /// How many bytes may still be written before the free space reaches the floor (0 at or under
    /// it); nil without a floor, or when the free space cannot be read.
    public func roomAboveFloor() -> Int64? {
        guard floorBytes > 0, let free = freeBytes() else { return nil }
        return max(0, free - floorBytes)
    }

    /// Whether the disk's free space is at or under the floor.
    public var isLow: Bool {
        roomAboveFloor() == 0
    }
}
