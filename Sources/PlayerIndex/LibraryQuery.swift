import PlayerCore

/// A search as a person types it: words that must all be found, each in the title, artist, album or path, or in
/// the one field a prefix names (`artist:björk`, `album:"homo genic"`). Case and Latin accents are ignored
/// (``PlayerCore/SearchFolding``); a word is found inside longer ones (`hyper` finds "Hyperballad"), in any
/// script: the index is FTS5's trigram tokenizer over folded text.
public struct LibraryQuery: Sendable, Equatable {
  /// A field a word can be limited to.
  public enum Field: String, Sendable, CaseIterable {
    case title, artist, album, path
  }

  /// One word or quoted phrase, folded, and the field it must be in (nil: any).
  public struct Term: Sendable, Equatable {
    /// The folded text.
    public var text: String
    /// The field it must be in; nil for any.
    public var field: Field?
  }

  /// The terms, all of which a track must match.
  public var terms: [Term]

  /// Reads `text`; throws when it holds nothing to search for.
  public init(_ text: String) throws(LibraryError) {
    terms = Self.words(of: text).compactMap { word in
      var field: Field?
      var body = word.text
      if !word.quoted, let colon = body.firstIndex(of: ":"), let named = Field(rawValue: body[..<colon].lowercased()) {
        field = named
        body = String(body[body.index(after: colon)...])
      }
      let folded = SearchFolding.fold(body)
      return folded.isEmpty ? nil : Term(text: folded, field: field)
    }
    guard !terms.isEmpty else { throw .query(text) }
  }

  /// The words of `text`, split at white space; a double-quoted part (`album:"homo genic"`) belongs to its word.
  static func words(of text: String) -> [(text: String, quoted: Bool)] {
    var words: [(String, Bool)] = []
    var current = ""
    var quoting = false
    var hadQuote = false
    for character in text {
      if character == "\"" {
        quoting.toggle()
        // A quote at the start of a word makes it a phrase, never a prefix.
        if current.isEmpty { hadQuote = true }
      } else if character.isWhitespace && !quoting {
        if !current.isEmpty { words.append((current, hadQuote)) }
        current = ""
        hadQuote = false
      } else {
        current.append(character)
      }
    }
    if !current.isEmpty { words.append((current, hadQuote)) }
    return words
  }

  /// The condition on `track_text` (the FTS5 table) and its arguments. Terms of three characters or more go
  /// to one FTS5 MATCH, which the trigram index answers; shorter ones cannot be trigrams and are `LIKE`s.
  var condition: (sql: String, arguments: [String]) {
    var clauses: [String] = []
    var arguments: [String] = []
    let long = terms.filter { $0.text.count >= 3 }
    if !long.isEmpty {
      clauses.append("track_text MATCH ?")
      arguments.append(
        long.map { term in
          let phrase = "\"" + term.text.replacing("\"", with: "\"\"") + "\""
          return term.field.map { "{\($0.rawValue)} : " + phrase } ?? phrase
        }.joined(separator: " AND "))
    }
    for term in terms where term.text.count < 3 {
      let pattern = "%" + Self.escapedForLike(term.text) + "%"
      let fields = term.field.map { [$0] } ?? Field.allCases
      clauses.append(
        "(" + fields.map { "track_text.\($0.rawValue) LIKE ? ESCAPE '\\'" }.joined(separator: " OR ") + ")")
      arguments += Array(repeating: pattern, count: fields.count)
    }
    return (clauses.joined(separator: " AND "), arguments)
  }

  static func escapedForLike(_ text: String) -> String {
    var escaped = ""
    for character in text {
      if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
      escaped.append(character)
    }
    return escaped
  }
}
