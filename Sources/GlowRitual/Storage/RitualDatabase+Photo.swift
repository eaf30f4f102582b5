import Foundation
import GlowModel
import GlowStorage

extension RitualDatabase {
    /// The folder beside the database where profile photos are kept.
    public var photoFolder: URL {
        URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("photos", isDirectory: true)
    }

    /// Saves `bytes` as the profile's photo, atomically (issue 17): written to a temporary file
    /// in the photo folder, synced, renamed into place and the folder synced, and only then made
    /// the profile's photo in one transaction; the previous photo's file is removed afterwards. A
    /// crash at any moment leaves the old photo or the new one, never a torn file.
    ///
    /// - Returns: the photo's reference, relative to the database's folder.
    /// - Throws: ``StoreError``: `refused` when there is no profile or the photo is empty,
    ///   `write_failed` when the file cannot be written; the profile keeps its photo then.
    @discardableResult
    public func savePhoto(_ bytes: [UInt8], at instant: Instant = .now) async throws(StoreError) -> String {
        try await runShown { (database) throws(StoreError) in try database.savePhoto(bytes, at: instant) }
    }

}

extension RitualDatabase.Job {
    /// ``savePhoto(_:at:)``, on the executor.
    @discardableResult
    func savePhoto(_ bytes: [UInt8], at instant: Instant) throws(StoreError) -> String {
        guard !bytes.isEmpty else { throw StoreError(.refused, "a photo needs its bytes", path: path) }
        guard try held(\.data.profile) != nil else {
            throw StoreError(.refused, "there is no profile to give a photo", path: path)
        }
        let name = "photo-\(UUID().uuidString.lowercased()).jpg"
        let reference = "photos/" + name
        let final = photoFolder.appendingPathComponent(name)
        do {
            try FileManager.default.createDirectory(at: photoFolder, withIntermediateDirectories: true)
        } catch {
            throw StoreError(.writeFailed, "the photo folder could not be made: \(error)", path: photoFolder.path)
        }
        try AtomicFile.write(bytes, to: final.path)
        var previous: String?
        do {
            try perform { (data) throws(ModelError) in
                previous = data.profile?.photoReference
                return try data.editProfile(at: instant) { $0.photoReference = reference }
            }
        } catch {
            try? FileManager.default.removeItem(at: final)
            throw error
        }
        if let previous, previous.hasPrefix("photos/"), previous != reference {
            try? FileManager.default.removeItem(
                at: URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(previous))
        }
        return reference
    }

    /// Removes the photo folder beside the database, and every photo in it.
    ///
    /// - Throws: ``StoreError/Code/writeFailed`` when the folder is there and cannot be removed.
    func removePhotos() throws(StoreError) {
        guard FileManager.default.fileExists(atPath: photoFolder.path) else { return }
        do {
            try FileManager.default.removeItem(at: photoFolder)
        } catch {
            throw StoreError(.writeFailed, "the photos could not be removed: \(error)", path: photoFolder.path)
        }
    }
}
