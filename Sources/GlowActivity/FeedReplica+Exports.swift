import GlowFeed
import GlowModel

extension FeedReplica {
    /// One person's export as a feed reads it: their data set, and their social data when their
    /// bundle carried it (BUNDLE-27, FEED-30).
    public struct Export: Sendable {
        /// What to call the export in an error (its file's name).
        public var name: String
        /// The person's data set.
        public var data: DataSet
        /// The person's social data, if the bundle had it.
        public var social: SocialData?

        /// An export named `name`.
        public init(name: String, data: DataSet, social: SocialData?) {
            self.name = name
            self.data = data
            self.social = social
        }
    }

    /// The feed that several people's exports make together, for inspection and support
    /// (`glow-tool feed`): each person's items derived from their data set as of `day` (their own
    /// today when nil) and published (FEED-22, FEED-23), their social data merged (FEED-21). A
    /// person's feed id is the one their social data names, or else their profile's user id.
    /// Exports carry no relay clock, so each item counts as received at its own time (FEED-13).
    ///
    /// - Parameters:
    ///   - now: the time the items are stamped with.
    /// - Returns: the replica, and the Day it is as of (`day`, or the first person's today).
    /// - Throws: ``FeedError/Code/invalidExport`` for an export without a profile, or two exports
    ///   of one person; ``FeedError`` from publishing.
    public static func rebuilt(from exports: [Export], day: Day?, now: Instant) throws(FeedError) -> (
        replica: FeedReplica, day: Day
    ) {
        var replica = FeedReplica()
        var people: [String: String] = [:]
        var clock = HybridClock(device: "rebuild")
        var asOf = day
        for export in exports {
            guard let profile = export.data.profile else {
                throw FeedError(
                    .invalidExport, "\(export.name) has no profile: whose items would they be?", rule: "FEED-22")
            }
            let person = export.social?.person ?? profile.userID.description
            if let earlier = people.updateValue(export.name, forKey: person) {
                throw FeedError(
                    .invalidExport, "\(export.name) and \(earlier) are both \(person)'s: merge them first",
                    rule: "FEED-22")
            }
            let today = day ?? profile.boundary.day(containing: now)
            asOf = asOf ?? today
            do {
                try replica.publish(
                    export.data, owner: person, boundary: profile.boundary, today: today, clock: &clock,
                    now: now.millisecondsSince1970)
            } catch {
                throw FeedError(error.code, "\(export.name): \(error.message)", rule: error.rule)
            }
            if let social = export.social { replica.merge(social.registers) }
            for (id, register) in replica.items {
                guard let item = register.value, item.owner == person else { continue }
                replica.receive(item: id, at: item.time)
            }
        }
        return (replica, asOf ?? DayBoundary.utc.day(containing: now))
    }
}
