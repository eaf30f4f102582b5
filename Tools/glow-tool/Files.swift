import Foundation
import GlowModel
import GlowWire

/// A failure that is the data's fault, not the command line's: exit code 1.
struct DataFailure: Error {
    let message: String
}

/// Reading inputs and writing outputs; `-` is standard input or output.
enum Files {
    /// A source of chunks for the streaming bundle reader.
    static func chunks(_ path: String) throws -> () -> [UInt8]? {
        let handle: FileHandle
        if path == "-" {
            handle = .standardInput
        } else {
            guard let opened = FileHandle(forReadingAtPath: path) else {
                throw DataFailure(message: "cannot open '\(path)': \(describe(path))")
            }
            handle = opened
        }
        return {
            let data = handle.readData(ofLength: 64 * 1024)
            return data.isEmpty ? nil : Array(data)
        }
    }

    static func read(_ path: String) throws -> [UInt8] {
        if path == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DataFailure(message: "cannot read '\(path)': \(describe(path))")
        }
        return Array(data)
    }

    private static func describe(_ path: String) -> String {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) { return "no such file" }
        return isDirectory.boolValue ? "it is a directory" : "permission denied"
    }

    /// Writes `bytes` whole or not at all: to a temporary file beside the target, then renamed.
    static func write(_ bytes: [UInt8], to path: String) throws {
        if path == "-" {
            FileHandle.standardOutput.write(Data(bytes))
            return
        }
        let target = URL(fileURLWithPath: path)
        let temporary = target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        do {
            try Data(bytes).write(to: temporary)
            if FileManager.default.fileExists(atPath: target.path) {
                _ = try FileManager.default.replaceItemAt(target, withItemAt: temporary)
            } else {
                try FileManager.default.moveItem(at: temporary, to: target)
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw DataFailure(message: "cannot write '\(path)': \(error.localizedDescription)")
        }
    }

    /// The format of a file: by its first byte, so a mislabelled file is still read right.
    static func format(of bytes: [UInt8]) -> Format {
        bytes.first == BundleHeader.magic[0] ? .bundle : .json
    }

    /// The format an output path asks for.
    static func format(forOutput path: String, explicit: Format?) throws -> Format {
        if let explicit { return explicit }
        if path.hasSuffix(".json") { return .json }
        if path.hasSuffix(".glow") { return .bundle }
        throw UsageErrorInRun(message: "cannot tell the format of '\(path)'; name it .glow or .json, or give --to")
    }

    /// Loads a data set from a bundle or a JSON data set.
    static func dataSet(_ path: String) throws -> DataSet {
        try dataSet(try read(path), name: path)
    }

    /// Decodes a data set from the bytes of a bundle or a JSON data set.
    static func dataSet(_ bytes: [UInt8], name path: String) throws -> DataSet {
        switch format(of: bytes) {
        case .bundle:
            do {
                return try BundleReader().dataSet(bytes).0
            } catch {
                throw DataFailure(message: "\(path): \(error)")
            }
        case .json:
            do {
                return try GlowJSON.decode(DataSet.self, from: Data(bytes))
            } catch {
                throw DataFailure(message: "\(path): \(error)")
            }
        }
    }

    /// The bytes of `data` in `format`.
    static func encode(_ data: DataSet, as format: Format, level: Int, createdAt: Instant = .now) throws -> [UInt8] {
        switch format {
        case .bundle:
            return BundleWriter.bundle(data, options: BundleOptions(level: level, createdAt: createdAt))
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            return Array(try encoder.encode(data)) + [0x0A]
        }
    }
}

/// A usage mistake found only while running (an output name without a known extension): exit 64.
struct UsageErrorInRun: Error {
    let message: String
}
