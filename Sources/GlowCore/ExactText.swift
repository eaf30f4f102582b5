extension StringProtocol {
    /// Whether two texts have the same UTF-8 bytes: the "exactly" of identifiers and claims
    /// (AUTH-43). Swift's `==` on strings folds canonically equivalent texts together (U+212A
    /// KELVIN SIGN equals K), which is right for people's words and wrong for identifiers.
    package func isExactly(_ other: some StringProtocol) -> Bool {
        utf8.elementsEqual(other.utf8)
    }
}
