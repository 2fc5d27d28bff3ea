extension Suggestion {
    /// `["help: did you mean 'updated'?"]` for the candidate closest to a misspelt `word`, or no
    /// note when none is near enough: the notes of a ``ConfigError`` about an unknown word.
    public static func didYouMean(_ word: String, in candidates: [String]) -> [String] {
        closest(to: word, in: candidates).map { ["help: did you mean '\($0)'?"] } ?? []
    }
}
