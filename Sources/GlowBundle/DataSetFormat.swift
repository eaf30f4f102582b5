/// The two files a person's data set travels in: an export bundle (`Spec/bundle.md`), or the JSON
/// data set people and tools read.
public enum DataSetFormat: String, CaseIterable, Hashable, Sendable {
    /// An export bundle, `.glow`.
    case bundle
    /// A JSON data set, `.json`.
    case json

    /// The format of a file from its first bytes, so a mislabelled file is still read right: a
    /// bundle begins with its magic, whose first byte (0x89) begins no JSON text; anything else
    /// is taken as JSON, whose reader then says what is wrong with it.
    public init(recognising head: some Collection<UInt8>) {
        self = head.first == BundleHeader.magic[0] ? .bundle : .json
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
