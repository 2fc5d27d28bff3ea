import FeedCore
import FeedSearch

/// A query written in feeds.yaml (a view's `query`, a filter rule's `drop`, `keep` or `when`):
/// parsed, with a parse error located in the file at the query's own column.
enum QueryScalar {
    /// The query of `node`, a non-empty scalar.
    ///
    /// - Parameters:
    ///   - node: the scalar.
    ///   - key: the key it is written under, for messages.
    ///   - context: what the query belongs to (`view 'rust'`), said in a note.
    /// - Throws: ``ConfigError`` at the node when it is not a non-empty scalar, or at the column
    ///   of the problem when the query does not parse (``location(ofColumn:in:)``).
    static func parse(_ node: ConfigNode, key: String, context: String) throws -> (query: SearchQuery, text: String) {
        guard let text = node.scalar, !node.isNull else {
            throw ConfigError(
                "'\(key)' must be a query (docs/query.md), found \(node.kindDescription)", at: node.location,
                notes: ["e.g. \(key): \"swift -beta\""])
        }
        guard !text.allSatisfy(\.isWhitespace) else {
            throw ConfigError(
                "'\(key)' must not be empty: an empty query matches every item", at: node.location,
                notes: ["note: in \(context)"])
        }
        do {
            return (try SearchQuery(parsing: text), text)
        } catch {
            throw ConfigError(error.message, at: location(ofColumn: error.column, in: node), notes: ["note: the query of \(context)"])
        }
    }

    /// Where column `column` (1-based, in characters) of `node`'s text is in the file: the
    /// scalar's start column plus the column for a plain scalar, one more for a quoted one (past
    /// its opening quote); on the first line of a block scalar (`|`, `>`) that holds the query on
    /// one line. Quoted text with escapes (`\"`, `''`) is mapped character by character. Where
    /// the written text cannot be matched to the value (an expanded `${VAR}`, a folded line), the
    /// scalar's start.
    static func location(ofColumn column: Int, in node: ConfigNode) -> SourceLocation {
        let start = node.location
        guard let line = start.file.line(start.line), let text = node.scalar else { return start }
        let characters = Array(line)
        let first = start.column - 1
        guard first >= 0, first < characters.count else { return start }
        let wanted = Array(text)
        let offset = max(0, column - 1)
        func at(_ line: Int, _ column: Int) -> SourceLocation {
            SourceLocation(file: start.file, line: line, column: column)
        }
        switch characters[first] {
        case "\"", "'":
            guard let columns = quotedColumns(characters, from: first), columns.text == wanted, offset < columns.text.count
            else { return start }
            return at(start.line, columns.columns[offset] + 1)
        case "|", ">":
            // A block scalar's text starts on the next line, after its indentation.
            guard !text.dropLast().contains(where: \.isNewline), let next = start.file.line(start.line + 1) else {
                return start
            }
            let body = Array(next)
            let indent = body.prefix { $0 == " " }.count
            guard Array(body.dropFirst(indent)).starts(with: wanted.filter { !$0.isNewline }), offset < body.count - indent
            else { return start }
            return at(start.line + 1, indent + offset + 1)
        default:
            guard characters[first...].starts(with: wanted), offset < wanted.count else { return start }
            return at(start.line, start.column + offset)
        }
    }

    /// The characters of the quoted scalar opening at `open` (a `'` or `"`) on one line, each with
    /// the 0-based column it is written at; `nil` when it does not close on that line.
    static func quotedColumns(_ line: [Character], from open: Int) -> (text: [Character], columns: [Int])? {
        let quote = line[open]
        var text: [Character] = []
        var columns: [Int] = []
        var index = open + 1
        while index < line.count {
            let character = line[index]
            if quote == "'" {
                if character == "'" {
                    guard index + 1 < line.count, line[index + 1] == "'" else { return (text, columns) }
                    text.append("'")
                    columns.append(index)
                    index += 2
                    continue
                }
            } else if character == "\"" {
                return (text, columns)
            } else if character == "\\", index + 1 < line.count {
                guard let (decoded, length) = escape(line, at: index) else { return nil }
                text.append(decoded)
                columns.append(index)
                index += length
                continue
            }
            text.append(character)
            columns.append(index)
            index += 1
        }
        return nil
    }

    /// The character a double-quoted scalar's escape at `index` (its `\`) stands for, and how
    /// many characters it is written with.
    private static func escape(_ line: [Character], at index: Int) -> (Character, Int)? {
        let simple: [Character: Character] = [
            "0": "\u{0}", "a": "\u{7}", "b": "\u{8}", "t": "\t", "\t": "\t", "n": "\n", "v": "\u{B}", "f": "\u{C}",
            "r": "\r", "e": "\u{1B}", " ": " ", "\"": "\"", "/": "/", "\\": "\\", "N": "\u{85}", "_": "\u{A0}",
            "L": "\u{2028}", "P": "\u{2029}",
        ]
        let code = line[index + 1]
        if let character = simple[code] { return (character, 2) }
        let digits: Int
        switch code {
        case "x": digits = 2
        case "u": digits = 4
        case "U": digits = 8
        default: return nil
        }
        guard index + 2 + digits <= line.count,
            let value = UInt32(String(line[(index + 2)..<(index + 2 + digits)]), radix: 16),
            let scalar = Unicode.Scalar(value)
        else { return nil }
        return (Character(scalar), 2 + digits)
    }
}
