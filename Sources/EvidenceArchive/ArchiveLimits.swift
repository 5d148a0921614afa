/// How much unpacking one archive may produce and how long it may take: an archive comes from someone else, and
/// a few kilobytes of gzip can expand to gigabytes.
///
/// A member whose header declares more than ``maximumMemberSize`` bytes, or that would take the archive past
/// ``maximumTotalSize``, is refused from its header, before any of its bytes are written; so is the member after
/// the ``maximumMembers``th. Unpacking that takes longer than ``maximumDuration`` is stopped. Every limit is far
/// above what a run writes (a run of a release matrix archives to a few hundred kilobytes).
public struct ArchiveLimits: Sendable, Hashable {
    /// Files and directories, at most.
    public var maximumMembers: Int
    /// Bytes of one member, at most.
    public var maximumMemberSize: Int64
    /// Bytes of all members together, at most.
    public var maximumTotalSize: Int64
    /// The longest unpacking may take.
    public var maximumDuration: Duration

    /// Limits with the given values.
    public init(maximumMembers: Int, maximumMemberSize: Int64, maximumTotalSize: Int64, maximumDuration: Duration) {
        self.maximumMembers = maximumMembers
        self.maximumMemberSize = maximumMemberSize
        self.maximumTotalSize = maximumTotalSize
        self.maximumDuration = maximumDuration
    }

    /// 10,000 members, 1 GiB a member, 2 GiB in all, 10 minutes.
    public static let standard = ArchiveLimits(maximumMembers: 10_000, maximumMemberSize: 1 << 30, maximumTotalSize: 2 << 30,
                                               maximumDuration: .seconds(600))
}
