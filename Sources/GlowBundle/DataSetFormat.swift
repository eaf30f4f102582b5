/// The two files a person's data set travels in: an export bundle (`Spec/bundle.md`), or the JSON
/// data set people and tools read.
public enum DataSetFormat: String, CaseIterable, Hashable, Sendable {
    /// An export bundle, `.glow`.
    case bundle
    /// A JSON data set, `.json`.
    case json

    /// The format of a file from its first bytes, so a mislabelled file is still read right and
    /// a file that is neither is refused at its first byte, before anything more is read: a
    /// bundle begins with its magic, whose first byte (0x89) begins no JSON text; a JSON data set
    /// is an object, so its first byte after any white space (and a UTF-8 byte-order mark) is
    /// `{`. Nil for anything else (zeros, random bytes, text), or a head of white space only.
    public init?(head: some Collection<UInt8>) {
        if head.first == BundleHeader.magic[0] {
            self = .bundle
            return
        }
        var rest = head[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        guard let first = rest.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }), first == UInt8(ascii: "{")
        else { return nil }
        self = .json
    }

    /// The format a file's name asks for (`.glow`, `.json`), or nil for any other name.
    public init?(fileName: String) {
        if fileName.hasSuffix(".json") {
            self = .json
        } else if fileName.hasSuffix(".glow") {
            self = .bundle
        } else {
            return nil
        }
    }
}
