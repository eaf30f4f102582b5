// MARK: - Taps, undo and notes (MODEL-56 ... MODEL-59)

extension DataSet {
    /// Records a tap for `goal` at `instant` from `device`, on the Day the person's `boundary`
    /// puts the instant in (MODEL-57): the Day's entry is found, the tap joins it as the device's
    /// next (MODEL-35), and the result merges in as an import would (MODEL-56).
    ///
    /// - Returns: what changed: the goal's check-in of that Day.
    /// - Throws: ``ModelError/Code/notFound`` when the data set does not hold the goal,
    ///   ``ModelError/Code/goalDeleted`` when it was deleted, ``ModelError/Code/invalidCheckIn``
    ///   when the Day is outside the goal's life or archived or the tap does not fit the kind,
    ///   ``ModelError/Code/invalidAmount`` when an amount would pass its limit; for `.undo`, what
    ///   ``undo(goal:on:at:device:)`` throws. Nothing changes then.
    @discardableResult
    public mutating func tap(
        _ tap: CheckInTap, goal: GoalID, at instant: Instant, device: DeviceID, boundary: DayBoundary
    ) throws(ModelError) -> Changes {
        try record(
            tap, goal: goal, on: boundary.day(containing: instant), at: instant, device: device,
            boundary: boundary)
    }

    /// Records a tap on a past Day (a backfill: the person forgot to log it then), made at
    /// `instant` from `device` (MODEL-58). The tap keeps the instant it was made, not the Day's.
    ///
    /// - Throws: what ``tap(_:goal:at:device:boundary:)`` throws, and
    ///   ``ModelError/Code/invalidCheckIn`` at `day` when `day` is after the Day `instant` falls on.
    @discardableResult
    public mutating func tap(
        _ tap: CheckInTap, goal: GoalID, on day: Day, at instant: Instant, device: DeviceID, boundary: DayBoundary
    ) throws(ModelError) -> Changes {
        let today = boundary.day(containing: instant)
        guard day <= today else {
            throw ModelError(
                .invalidCheckIn, "\(day) is after today (\(today)): only past Days can be filled in", path: "day",
                rule: "MODEL-58")
        }
        return try record(tap, goal: goal, on: day, at: instant, device: device, boundary: boundary)
    }

    /// Undoes `goal`'s entry on `day` at `instant` from `device` (MODEL-59): an undo tap that hides
    /// every tap made before it, on every device.
    ///
    /// - Throws: ``ModelError/Code/notFound`` when the goal is not held or the Day has no entry
    ///   to undo (none, or undone already), ``ModelError/Code/goalDeleted``.
    @discardableResult
    public mutating func undo(goal: GoalID, on day: Day, at instant: Instant, device: DeviceID) throws(ModelError)
        -> Changes
    {
        _ = try liveGoal(goal)
        let entry = try visibleEntry(CheckInKey(goalID: goal, day: day), "undo")
        return mergeChecked(entry.deleting(at: instant, by: device))
    }

    /// Sets or removes (nil) the note of `goal`'s entry on `day`, at `instant` (MODEL-59). The
    /// note's instant is made later than the one it replaces, so the edit wins every merge.
    ///
    /// - Throws: ``ModelError/Code/notFound`` when there is no entry (a note needs a tap first),
    ///   ``ModelError/Code/goalDeleted``, ``ModelError/Code/invalidCheckIn`` for a note over 500
    ///   characters.
    @discardableResult
    public mutating func setNote(_ note: String?, goal: GoalID, on day: Day, at instant: Instant) throws(ModelError)
        -> Changes
    {
        _ = try liveGoal(goal)
        let entry = try visibleEntry(CheckInKey(goalID: goal, day: day), "annotate")
        guard entry.note != note else { return Changes() }
        let at = try Self.stamp(instant, after: entry.noteAt)
        return mergeChecked(try entry.withNote(note, at: at))
    }

    /// The shared path of both kinds of tap.
    private mutating func record(
        _ tap: CheckInTap, goal id: GoalID, on day: Day, at instant: Instant, device: DeviceID, boundary: DayBoundary
    ) throws(ModelError) -> Changes {
        // An undo tap is the undo of the Day, with its rule: there must be something to undo.
        if tap.isUndo { return try undo(goal: id, on: day, at: instant, device: device) }
        let goal = try liveGoal(id)
        if let reason = Self.closed(goal, on: day) {
            throw ModelError(
                .invalidCheckIn, "\(goal.title) takes no taps on \(day): \(reason)", path: "day",
                rule: "MODEL-57")
        }
        let entry = try CheckIn.record(
            tap, for: goal, on: day, at: instant, timeZone: boundary.timeZone, deviceID: device,
            existing: checkIn(CheckInKey(goalID: id, day: day)))
        return mergeChecked(entry)
    }

    /// Why `goal` takes no taps on `day`, or nil when it does.
    static func closed(_ goal: Goal, on day: Day) -> String? {
        if day < goal.startDay { return "the goal starts on \(goal.startDay)" }
        if let end = goal.endDay, day > end { return "the goal ended on \(end)" }
        if goal.isArchived(on: day) { return "the goal is archived then" }
        return nil
    }

    /// The entry of `key` when it has visible taps.
    private func visibleEntry(_ key: CheckInKey, _ verb: String) throws(ModelError) -> CheckIn {
        guard let entry = checkIn(key), !entry.deleted else {
            throw ModelError(
                .notFound, "goal \(key.goalID) has no entry on \(key.day) to \(verb)", path: "day",
                rule: "MODEL-59")
        }
        return entry
    }

    /// Merges one check-in whose goal is held, as an import of it would (MODEL-54): the Day's
    /// entry becomes its merge with the one held; the goal itself is unchanged.
    private mutating func mergeChecked(_ entry: CheckIn) -> Changes {
        let existing = checkIn(entry.key)
        let merged = existing.map { $0.merging(entry) } ?? entry
        var changes = Changes()
        guard merged != existing else { return changes }
        insert(merged)
        changes.insert(entry.key)
        return changes
    }
}

// MARK: - Goals and the profile (MODEL-60, MODEL-61)

extension DataSet {
    /// Adds a new goal (MODEL-60).
    ///
    /// - Throws: ``ModelError/Code/duplicateID`` when the data set holds a goal with its id (a
    ///   deleted one too: its tombstone keeps the id), ``ModelError/Code/invalidGoal`` for a
    ///   tombstone.
    @discardableResult
    public mutating func add(_ goal: Goal) throws(ModelError) -> Changes {
        guard goals[goal.id] == nil else {
            throw ModelError(.duplicateID, "the data set holds goal \(goal.id) already", path: "id", rule: "MODEL-60")
        }
        guard !goal.deleted else {
            throw ModelError(
                .invalidGoal, "a new goal cannot be a deletion tombstone", path: "deleted", rule: "MODEL-60")
        }
        var delta = DataSet()
        delta.put(goal)
        return merge(delta)
    }

    /// Edits a goal at `instant`: `change` gets the editable fields and the result is validated
    /// (``Goal/edit(at:_:)``). An edit that changes nothing changes nothing, not even
    /// `modifiedAt` (MODEL-60).
    ///
    /// - Throws: ``ModelError/Code/notFound``, ``ModelError/Code/goalDeleted``, or what the edit
    ///   throws; nothing changes then.
    @discardableResult
    public mutating func editGoal(
        _ id: GoalID, at instant: Instant, _ change: (inout Goal.Changes) throws -> Void
    ) throws(ModelError) -> Changes {
        try replaceGoal(id, at: instant) { goal, at throws(ModelError) in try goal.edit(at: at, change) }
    }

    /// Archives a goal from `day` on (MODEL-47, MODEL-60).
    ///
    /// - Throws: ``ModelError/Code/notFound``, ``ModelError/Code/goalDeleted``,
    ///   ``ModelError/Code/invalidGoal`` when it is archived already or `day` overlaps an earlier
    ///   archive period.
    @discardableResult
    public mutating func archiveGoal(_ id: GoalID, from day: Day, at instant: Instant) throws(ModelError) -> Changes {
        try replaceGoal(id, at: instant) { goal, at throws(ModelError) in try goal.archive(from: day, at: at) }
    }

    /// Brings an archived goal back from `day` on (MODEL-47, MODEL-60).
    ///
    /// - Throws: ``ModelError/Code/notFound``, ``ModelError/Code/goalDeleted``,
    ///   ``ModelError/Code/invalidGoal`` when it is not archived or `day` is not after the
    ///   period's first Day.
    @discardableResult
    public mutating func unarchiveGoal(_ id: GoalID, from day: Day, at instant: Instant) throws(ModelError) -> Changes {
        try replaceGoal(id, at: instant) { goal, at throws(ModelError) in try goal.unarchive(from: day, at: at) }
    }

    /// Deletes a goal: it becomes a tombstone that no older copy brings back (BUNDLE-23). Its
    /// check-ins stay, counting toward nothing (STREAK-25), so that a device still logging the
    /// goal merges with this one without conflict (MODEL-60).
    ///
    /// - Throws: ``ModelError/Code/notFound``, ``ModelError/Code/goalDeleted`` when deleted already.
    @discardableResult
    public mutating func deleteGoal(_ id: GoalID, at instant: Instant) throws(ModelError) -> Changes {
        try replaceGoal(id, at: instant) { goal, at in goal = goal.deleting(at: at) }
    }

    /// Sets the profile of a data set that has none, or merges a version of the same person's
    /// profile (MODEL-61).
    ///
    /// - Throws: ``ModelError/Code/invalidProfile`` when the data set belongs to another person.
    @discardableResult
    public mutating func setProfile(_ new: Profile) throws(ModelError) -> Changes {
        if let profile, profile.userID != new.userID {
            throw ModelError(
                .invalidProfile, "the data set belongs to user \(profile.userID), not \(new.userID)", path: "userID",
                rule: "MODEL-61")
        }
        var delta = DataSet()
        delta.profile = new
        return merge(delta)
    }

    /// Edits the profile at `instant` (``Profile/edit(at:_:)``); an edit that changes nothing
    /// changes nothing (MODEL-61).
    ///
    /// - Throws: ``ModelError/Code/notFound`` when the data set has no profile, or what the edit
    ///   throws.
    @discardableResult
    public mutating func editProfile(at instant: Instant, _ change: (inout Profile.Changes) throws -> Void)
        throws(ModelError) -> Changes
    {
        guard var edited = profile else {
            throw ModelError(.notFound, "the data set has no profile to edit", path: "profile", rule: "MODEL-61")
        }
        try edited.edit(at: try Self.stamp(instant, after: edited.modifiedAt), change)
        var unchanged = edited
        unchanged.modifiedAt = profile!.modifiedAt
        guard unchanged != profile else { return Changes() }
        return try setProfile(edited)
    }

    /// Applies `change` to a live goal, stamped so that it wins every merge, and merges the result.
    private mutating func replaceGoal(
        _ id: GoalID, at instant: Instant, _ change: (inout Goal, Instant) throws(ModelError) -> Void
    ) throws(ModelError) -> Changes {
        let held = try liveGoal(id)
        var edited = held
        try change(&edited, try Self.stamp(instant, after: held.modifiedAt))
        var unchanged = edited
        unchanged.modifiedAt = held.modifiedAt
        guard unchanged != held else { return Changes() }
        var delta = DataSet()
        delta.put(edited)
        return merge(delta)
    }

    /// The goal `id`, when the data set holds it and it is not deleted.
    func liveGoal(_ id: GoalID) throws(ModelError) -> Goal {
        guard let goal = goals[id] else {
            throw ModelError(.notFound, "the data set holds no goal \(id)", path: "goalID", rule: "MODEL-56")
        }
        guard !goal.deleted else {
            throw ModelError(.goalDeleted, "goal \(id) (\(goal.title)) was deleted", path: "goalID", rule: "MODEL-56")
        }
        return goal
    }

    /// The instant a local change is stamped with (MODEL-56): `instant`, or a millisecond after
    /// the version it replaces when the clock says otherwise, so a device whose clock went back
    /// never loses its own edit to the version it edited.
    ///
    /// - Throws: ``ModelError/Code/invalidInstant`` past the last instant of 9999.
    static func stamp(_ instant: Instant, after held: Instant?) throws(ModelError) -> Instant {
        guard let held, instant <= held else { return instant }
        return try held.adding(milliseconds: 1)
    }
}
