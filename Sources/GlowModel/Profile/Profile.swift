/// A person's settings: who they are, what they care about, how their app looks, and how their
/// instants become Days (MODEL-37, MODEL-38).
public struct Profile: Hashable, Sendable, Identifiable {
    /// The person.
    public internal(set) var userID: UserID
    /// The name friends see, trimmed, 1...50 characters.
    public internal(set) var displayName: String
    /// Where the photo is kept (an opaque reference the app resolves), if any.
    public internal(set) var photoReference: String?
    /// The interests chosen in the Inspiration tab, in the order chosen, without repeats.
    public internal(set) var interests: [Slug]
    /// The chosen theme's stable id; an unknown id falls back to the default theme where themes
    /// are resolved.
    public internal(set) var themeID: Slug
    /// Time zone, day start and week start.
    public internal(set) var boundary: DayBoundary
    /// The evening nudge, quiet hours and snooze length (REMIND-1); ``PersonReminders/standard``
    /// until the person chooses.
    public internal(set) var reminders: PersonReminders
    /// When the profile was created.
    public internal(set) var createdAt: Instant
    /// When it last changed.
    public internal(set) var modifiedAt: Instant
    /// Fields of the binary form this version does not know (MODEL-49).
    public package(set) var unknownFields = UnknownFields()

    /// The person's identifier.
    public var id: UserID { userID }

    /// The theme id new profiles get.
    public static let defaultThemeID = try! Slug("default")

    /// A profile, validated.
    ///
    /// - Throws: ``ModelError/Code/invalidProfile`` for an empty or over-long display name, a
    ///   repeated interest, or modifiedAt before createdAt.
    public init(
        userID: UserID, displayName: String, photoReference: String? = nil, interests: [Slug] = [],
        themeID: Slug = Profile.defaultThemeID, boundary: DayBoundary, reminders: PersonReminders = .standard,
        createdAt: Instant, modifiedAt: Instant
    ) throws(ModelError) {
        self.userID = userID
        self.displayName = GoalRules.trimmed(displayName)
        self.photoReference = photoReference
        self.interests = interests
        self.themeID = themeID
        self.boundary = boundary
        self.reminders = reminders
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        let length = GoalRules.length(self.displayName, upTo: 50)
        guard length != GoalRules.overfull else {
            throw ModelError(
                .invalidProfile, "the display name holds \(GoalRules.describe(length: length, limit: 50))",
                path: "displayName", rule: "MODEL-63")
        }
        guard (1...50).contains(length) else {
            throw ModelError(
                .invalidProfile, "the display name needs 1...50 characters", path: "displayName", rule: "MODEL-37")
        }
        guard Set(interests).count == interests.count else {
            throw ModelError(.invalidProfile, "an interest is listed twice", path: "interests", rule: "MODEL-37")
        }
        guard modifiedAt >= createdAt else {
            throw ModelError(.invalidProfile, "modifiedAt is before createdAt", path: "modifiedAt", rule: "MODEL-37")
        }
    }
}

extension Profile {
    /// The fields of a profile a person can edit; ``Profile/edit(at:_:)`` hands them out.
    public struct Changes: Hashable, Sendable {
        /// See ``Profile/displayName``.
        public var displayName: String
        /// See ``Profile/photoReference``.
        public var photoReference: String?
        /// See ``Profile/interests``.
        public var interests: [Slug]
        /// See ``Profile/themeID``.
        public var themeID: Slug
        /// See ``Profile/boundary``.
        public var boundary: DayBoundary
        /// See ``Profile/reminders``.
        public var reminders: PersonReminders
    }

    /// Edits the profile at `instant`; the result is checked by MODEL-37 before anything changes,
    /// and `modifiedAt` becomes `instant` (never earlier than it was).
    ///
    /// - Throws: what `change` throws (``ModelError/editing(_:)``), or ``ModelError/Code/invalidProfile``; the profile is then
    ///   unchanged.
    public mutating func edit(at instant: Instant, _ change: (inout Changes) throws -> Void)
        throws(ModelError)
    {
        var fields = Changes(
            displayName: displayName, photoReference: photoReference, interests: interests, themeID: themeID,
            boundary: boundary, reminders: reminders)
        try ModelError.editing { try change(&fields) }
        var edited = try Profile(
            userID: userID, displayName: fields.displayName, photoReference: fields.photoReference,
            interests: fields.interests, themeID: fields.themeID, boundary: fields.boundary,
            reminders: fields.reminders, createdAt: createdAt,
            modifiedAt: Swift.max(modifiedAt, instant))
        edited.unknownFields = unknownFields
        self = edited
    }
}

extension Profile: Codable {
    private enum CodingKeys: String, CodingKey {
        case userID
        case displayName
        case photoReference
        case interests
        case themeID
        case boundary
        case reminders
        case createdAt
        case modifiedAt
    }

    /// Decodes and validates a profile; `photoReference` may be absent, `interests` defaults to
    /// none, `themeID` to `default` and `reminders` to ``PersonReminders/standard``.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self = try validated(at: c.codingPath) {
            try Self(
                userID: c.decode(UserID.self, forKey: .userID),
                displayName: c.decode(String.self, forKey: .displayName),
                photoReference: c.decodeIfPresent(String.self, forKey: .photoReference),
                interests: c.decodeIfPresent([Slug].self, forKey: .interests) ?? [],
                themeID: c.decodeIfPresent(Slug.self, forKey: .themeID) ?? Profile.defaultThemeID,
                boundary: c.decode(DayBoundary.self, forKey: .boundary),
                reminders: c.decodeIfPresent(PersonReminders.self, forKey: .reminders) ?? .standard,
                createdAt: c.decode(Instant.self, forKey: .createdAt),
                modifiedAt: c.decode(Instant.self, forKey: .modifiedAt))
        }
    }

    /// Encodes every field, `reminders` only when the person chose some.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(userID, forKey: .userID)
        try c.encode(displayName, forKey: .displayName)
        try c.encodeIfPresent(photoReference, forKey: .photoReference)
        try c.encode(interests, forKey: .interests)
        try c.encode(themeID, forKey: .themeID)
        try c.encode(boundary, forKey: .boundary)
        if !reminders.isStandard { try c.encode(reminders, forKey: .reminders) }
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(modifiedAt, forKey: .modifiedAt)
    }
}
