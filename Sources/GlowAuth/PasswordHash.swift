import GlowCore

/// A stored Argon2id password hash in the PHC string format (AUTH-14, AUTH-15):
/// `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<tag>`, salt and tag in standard base64 without padding.
/// Its descriptions show the parameters, never the salt or the tag.
public struct PasswordHash: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable
{
    /// The cost it was made with.
    public let parameters: Argon2Parameters
    /// The salt.
    public let salt: [UInt8]
    /// The tag.
    public let tag: [UInt8]

    /// The parameters only, never the salt or the tag (`dump` and debuggers read this).
    public var customMirror: Mirror { Mirror(self, children: ["parameters": parameters]) }

    /// A hash of these parts.
    ///
    /// - Throws: ``AuthError/Code/unsupportedHash`` outside the bounds of AUTH-13.
    public init(parameters: Argon2Parameters, salt: [UInt8], tag: [UInt8]) throws(AuthError) {
        guard parameters.isSupported, Argon2Parameters.saltLengths.contains(salt.count),
            Argon2Parameters.tagLengths.contains(tag.count)
        else {
            throw AuthError(
                .unsupportedHash,
                "m=\(parameters.memoryKiB), t=\(parameters.iterations), p=\(parameters.parallelism) with a \(salt.count)-byte salt and a \(tag.count)-byte tag is outside what this service verifies",
                rule: "AUTH-13")
        }
        self.parameters = parameters
        self.salt = salt
        self.tag = tag
    }

    /// Parses a PHC string strictly (AUTH-14).
    ///
    /// - Throws: ``AuthError/Code/malformedHash`` for anything but the one form;
    ///   ``AuthError/Code/unsupportedHash`` for another algorithm or version, or parameters beyond
    ///   AUTH-13.
    public init(phc text: String) throws(AuthError) {
        guard text.utf8.count <= 256 else { throw Self.malformed("it is longer than 256 bytes") }
        let fields = text.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count >= 2, fields[0].isEmpty else { throw Self.malformed("it does not start with $") }
        guard fields[1] == "argon2id" else {
            if ["argon2i", "argon2d"].contains(fields[1]) {
                throw AuthError(
                    .unsupportedHash, "\(fields[1]) hashes are not verified here; only argon2id", rule: "AUTH-14")
            }
            throw Self.malformed("the algorithm is not argon2id")
        }
        guard fields.count == 6 else { throw Self.malformed("it has \(fields.count - 1) fields, not 5") }
        guard fields[2].hasPrefix("v="), let version = Self.number(fields[2].dropFirst(2)) else {
            throw Self.malformed("the version field is not v=<number>")
        }
        guard version == 19 else {
            throw AuthError(.unsupportedHash, "Argon2 version \(version) is not 19", rule: "AUTH-14")
        }
        let costs = fields[3].split(separator: ",", omittingEmptySubsequences: false)
        guard costs.count == 3, costs[0].hasPrefix("m="), costs[1].hasPrefix("t="), costs[2].hasPrefix("p="),
            let m = Self.number(costs[0].dropFirst(2)), let t = Self.number(costs[1].dropFirst(2)),
            let p = Self.number(costs[2].dropFirst(2))
        else { throw Self.malformed("the parameters are not m=<number>,t=<number>,p=<number>") }
        guard !fields[4].isEmpty, !fields[5].isEmpty, let salt = Base64.standard.decode(fields[4]),
            let tag = Base64.standard.decode(fields[5])
        else {
            throw Self.malformed("the salt or the tag is not canonical unpadded base64")
        }
        try self.init(parameters: Argon2Parameters(memoryKiB: m, iterations: t, parallelism: p), salt: salt, tag: tag)
    }

    /// The PHC string (AUTH-15).
    public var phc: String {
        "$argon2id$v=19$m=\(parameters.memoryKiB),t=\(parameters.iterations),p=\(parameters.parallelism)$"
            + Base64.standard.encode(salt) + "$" + Base64.standard.encode(tag)
    }

    /// The parameters only: never the salt or the tag.
    public var description: String {
        "PasswordHash(argon2id m=\(parameters.memoryKiB),t=\(parameters.iterations),p=\(parameters.parallelism))"
    }
    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A decimal number of ASCII digits without sign or leading zero, at most 9 digits.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            text == "0" || text.first != "0"
        else { return nil }
        return Int(text)
    }

    private static func malformed(_ reason: String) -> AuthError {
        AuthError(.malformedHash, "the stored hash is not a PHC string: \(reason)", rule: "AUTH-14")
    }
}
