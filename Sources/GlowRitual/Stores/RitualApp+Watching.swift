import GlowStorage

/// Watching the file for other processes' commits, and letting it go (issue 58).
@available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
extension RitualApp {
    /// Starts the watch (``RitualDatabase/watchOtherWriters(every:failed:)``) unless it runs.
    func startWatching() {
        guard watch == nil, !isClosed else { return }
        watch = database.watchOtherWriters(every: watchInterval) { [weak self] failure in
            Task { @MainActor in self?.watchFailure = failure }
        }
        isWatching = true
    }

    /// Stops watching the file for other processes' commits, as an app does when it goes to the
    /// background: nothing reads the file until ``resumeWatching()``. The app's own changes still
    /// show in its stores.
    public func pauseWatching() {
        watch?.cancel()
        watch = nil
        isWatching = false
    }

    /// Watches the file again, as an app does when it comes back to the foreground, after reading
    /// what other processes committed while it was paused: the stores show it when this returns.
    /// A closed app stays closed.
    public func resumeWatching() async {
        guard !isClosed else { return }
        startWatching()
        do { try await database.refresh() } catch { watchFailure = error }
    }

    /// Closes the app: the watch stops, the background round of data sync is cancelled and
    /// awaited, and the database closes its file once the work given before has ended. Every
    /// read or change after is refused with `closed`; make a new app object to go on.
    public func close() async {
        pauseWatching()
        isClosed = true
        background?.cancel()
        await background?.value
        observation?.cancel()
        observation = nil
        await database.close()
    }
}
