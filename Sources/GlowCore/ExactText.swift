extension StringProtocol {
    /// Whether this text's UTF-8 bytes come before `other`'s, byte by byte (a prefix first): the
    /// order canonical encodings sort ids and names in, whatever the locale. Two texts in
    /// contiguous memory (native strings) are compared as bytes at once, where the generic
    /// comparison steps through two views.
    package func precedesInUTF8(_ other: some StringProtocol) -> Bool {
        let compared = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs -> Bool in
                let shorter = Swift.min(mine.count, theirs.count)
                var index = 0
                while index < shorter {
                    if mine[index] != theirs[index] { return mine[index] < theirs[index] }
                    index += 1
                }
                return mine.count < theirs.count
            }
        }
        if let compared, let precedes = compared { return precedes }
        return utf8.lexicographicallyPrecedes(other.utf8)
    }

    /// Whether two texts have the same UTF-8 bytes: the "exactly" of identifiers and claims
    /// (AUTH-43). Swift's `==` on strings folds canonically equivalent texts together (U+212A
    /// KELVIN SIGN equals K), which is right for people's words and wrong for identifiers.
    package func isExactly(_ other: some StringProtocol) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        // Two texts in contiguous memory (native strings): their bytes compared at once.
        let compared = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in mine.elementsEqual(theirs) }
        }
        if let compared, let equal = compared { return equal }
        return utf8.elementsEqual(other.utf8)
    }
}

extension StringProtocol {
    /// The text with the ASCII letters A-Z in lower case and everything else as it is: how
    /// addresses and header names compare, whatever the reader's locale.
    package var asciiLowercased: String {
        String(decoding: utf8.map { (0x41...0x5A).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// The text as an error message may quote it: between single quotes, every control
    /// character, line or paragraph separator and bidirectional control written as `\u{…}`
    /// (and `'` and `\` escaped), cut to `limit` characters with `…`. A stranger's text (a
    /// token's `kid` or `alg`) can then neither start a forged line in a log nor reorder it.
    package func quoted(limit: Int = 64) -> String {
        var out = "'"
        var count = 0
        for character in self {
            guard count < limit else {
                out += "…"
                break
            }
            count += 1
            for scalar in character.unicodeScalars {
                switch scalar.value {
                case 0x27: out += "\\'"
                case 0x5C: out += "\\\\"
                case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
                    out += "\\u{" + String(scalar.value, radix: 16) + "}"
                default: out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "'"
    }
}
