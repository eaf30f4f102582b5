/// A theme of life a person can care about, with goal templates that fit it (MODEL-39).
public struct Interest: Hashable, Sendable, Identifiable, Codable {
    /// The stable slug, such as `mindfulness`.
    public let id: Slug
    /// The name shown in the Inspiration tab.
    public let name: String
    /// The emoji shown beside the name.
    public let emoji: String
    /// The templates offered for this interest, in display order.
    public let templates: [GoalTemplate]
    /// Fields of the binary form this version does not know (MODEL-49).
    public var unknownFields = UnknownFields()

    private enum CodingKeys: String, CodingKey {
        case id
        case name
        case emoji
        case templates
    }

    /// An interest.
    public init(id: Slug, name: String, emoji: String, templates: [GoalTemplate]) {
        self.id = id
        self.name = name
        self.emoji = emoji
        self.templates = templates
    }
}

/// A ready-made goal: a complete, valid draft the Add-goal flow starts from (MODEL-39).
public struct GoalTemplate: Hashable, Sendable, Identifiable, Codable {
    /// The stable identifier, recorded on goals made from it.
    public let id: TemplateID
    /// The interest it belongs to.
    public let interestID: Slug
    /// The draft, with no start Day (it starts on the Day it is used) and ``GoalDraft/templateID``
    /// set to ``id``.
    public let draft: GoalDraft
    /// Fields of the binary form this version does not know (MODEL-49).
    public var unknownFields = UnknownFields()

    private enum CodingKeys: String, CodingKey {
        case id
        case interestID
        case draft
    }

    /// A template; the draft is stamped with the template's id.
    public init(id: TemplateID, interestID: Slug, draft: GoalDraft) {
        self.id = id
        self.interestID = interestID
        var stamped = draft
        stamped.templateID = id
        self.draft = stamped
    }
}
