/// A person's settings: who they are, what they care about, how their app looks, and how their
/// instants become Days (MODEL-37, MODEL-38).
public struct Profile: Hashable, Sendable, Identifiable {
    /// The person.
    public var userID: UserID
    /// The name friends see, trimmed, 1...50 characters.
    public var displayName: String
    /// Where the photo is kept (an opaque reference the app resolves), if any.
    public var photoReference: String?
    /// The interests chosen in the Inspiration tab, in the order chosen, without repeats.
    public var interests: [Slug]
    /// The chosen theme's stable id; an unknown id falls back to the default theme where themes
    /// are resolved.
    public var themeID: Slug
    /// Time zone, day start and week start.
    public var boundary: DayBoundary
    /// When the profile was created.
    public var createdAt: Instant
    /// When it last changed.
    public var modifiedAt: Instant
    /// Fields of the binary form this version does not know (MODEL-49).
    public var unknownFields = UnknownFields()

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
        themeID: Slug = Profile.defaultThemeID, boundary: DayBoundary, createdAt: Instant, modifiedAt: Instant
    ) throws(ModelError) {
        self.userID = userID
        self.displayName = GoalRules.trimmed(displayName)
        self.photoReference = photoReference
        self.interests = interests
        self.themeID = themeID
        self.boundary = boundary
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        guard (1...50).contains(self.displayName.count) else {
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

extension Profile: Codable {
    private enum CodingKeys: String, CodingKey {
        case userID
        case displayName
        case photoReference
        case interests
        case themeID
        case boundary
        case createdAt
        case modifiedAt
    }

    /// Decodes and validates a profile; `photoReference` may be absent, `interests` defaults to
    /// none and `themeID` to `default`.
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
                createdAt: c.decode(Instant.self, forKey: .createdAt),
                modifiedAt: c.decode(Instant.self, forKey: .modifiedAt))
        }
    }

}
