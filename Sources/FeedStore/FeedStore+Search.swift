import FeedSearch
import FeedStorage
import GRDB
import Synchronization

/// The full-text index of SQLite stores (schema `v7`): an FTS5 table of every item's title,
/// summary and author name, kept in step with `item` by triggers in the same transaction.
///
/// The indexed text is each field's tokens (``SearchText/tokens(_:)``: folded, split at every
/// character that is not a letter or digit) joined by spaces, written by the SQL function
/// `feedagg_search_text`, which every connection of the store defines. Folding once in Swift makes
/// the tokens the same as PostgreSQL's (whose `tsvector` is built from the same tokens) and as the
/// reference evaluator's; FTS5's `unicode61` tokenizer then only splits at the spaces. Its own
/// diacritic removal is off (`remove_diacritics 0`): the text has none left, and unicode61's
/// tables fold further than Swift's (`ø` to `o`), which would make SQLite match what PostgreSQL
/// and the reference do not. The table is contentless (`content=''`): it holds the index, not a copy of the
/// text; a row is removed by FTS5's `'delete'` command with the text it was indexed with,
/// recomputed from the old row by the same deterministic function.
///
/// `item_shared` gains `doc`, so a count finds which shared rows match without reading them.
///
/// Keys: `item.doc`, given by the insert itself (one above the largest; a writer that gives none
/// gets one from a trigger), never the `rowid`, which `VACUUM` may renumber in a table without an
/// `INTEGER PRIMARY KEY`.
enum SearchIndex {
    /// The SQL function that turns a field into its indexed text.
    static let function = DatabaseFunction("feedagg_search_text", argumentCount: 1, pure: true) { values in
        guard let text = String.fromDatabaseValue(values[0]) else { return nil }
        return SearchText.tokens(text).joined(separator: " ")
    }

    /// The SQL function that tests one row's fields against a ``TextSet`` written by
    /// ``TextSet/rowTest``: `feedagg_text_match(set, title, summary, author)`. A walk in stream
    /// order tests the rows it passes with it, which costs a few microseconds a row where an FTS5
    /// probe of the row costs about fifty.
    static let rowTest = DatabaseFunction("feedagg_text_match", argumentCount: 4, pure: true) { values in
        guard let encoded = String.fromDatabaseValue(values[0]), let set = RowTestSets.shared.set(encoded) else {
            throw DatabaseError(message: "feedagg_text_match: not a text set: \(values[0])")
        }
        return set.matches(
            title: String.fromDatabaseValue(values[1]), summary: String.fromDatabaseValue(values[2]),
            author: String.fromDatabaseValue(values[3]))
    }

    /// Schema `v7`: the `doc` key, the index (filled from the stored items) and its triggers.
    static let migration = """
        ALTER TABLE item ADD COLUMN doc INTEGER;
        UPDATE item SET doc = rowid;
        CREATE UNIQUE INDEX item_doc ON item(doc);
        DROP INDEX item_shared;
        CREATE INDEX item_shared ON item(dedup_key, feed, doc) WHERE shared = 1 AND staged = 0;
        CREATE VIRTUAL TABLE item_search USING fts5(
            title, summary, author, content = '', columnsize = 0, tokenize = 'unicode61 remove_diacritics 0');
        INSERT INTO item_search (rowid, title, summary, author)
            SELECT doc, feedagg_search_text(title), feedagg_search_text(summary), feedagg_search_text(author_name) FROM item;
        CREATE TRIGGER item_search_insert AFTER INSERT ON item WHEN NEW.doc IS NOT NULL BEGIN
            INSERT INTO item_search (rowid, title, summary, author) VALUES (
                NEW.doc, feedagg_search_text(NEW.title), feedagg_search_text(NEW.summary),
                feedagg_search_text(NEW.author_name));
        END;
        CREATE TRIGGER item_search_insert_keyless AFTER INSERT ON item WHEN NEW.doc IS NULL BEGIN
            UPDATE item SET doc = (SELECT IFNULL(MAX(doc), 0) + 1 FROM item) WHERE rowid = NEW.rowid;
            INSERT INTO item_search (rowid, title, summary, author) VALUES (
                (SELECT doc FROM item WHERE rowid = NEW.rowid), feedagg_search_text(NEW.title),
                feedagg_search_text(NEW.summary), feedagg_search_text(NEW.author_name));
        END;
        CREATE TRIGGER item_search_update AFTER UPDATE OF title, summary, author_name ON item
        WHEN OLD.title IS NOT NEW.title OR OLD.summary IS NOT NEW.summary OR OLD.author_name IS NOT NEW.author_name
        BEGIN
            INSERT INTO item_search (item_search, rowid, title, summary, author) VALUES (
                'delete', OLD.doc, feedagg_search_text(OLD.title), feedagg_search_text(OLD.summary),
                feedagg_search_text(OLD.author_name));
            INSERT INTO item_search (rowid, title, summary, author) VALUES (
                NEW.doc, feedagg_search_text(NEW.title), feedagg_search_text(NEW.summary),
                feedagg_search_text(NEW.author_name));
        END;
        CREATE TRIGGER item_search_delete AFTER DELETE ON item BEGIN
            INSERT INTO item_search (item_search, rowid, title, summary, author) VALUES (
                'delete', OLD.doc, feedagg_search_text(OLD.title), feedagg_search_text(OLD.summary),
                feedagg_search_text(OLD.author_name));
        END;
        """
}

extension SearchIndex {
    /// Schema `v8`: `item_search_shared`, a second contentless FTS5 index holding only the rows
    /// marked `shared` (under 1 % of a store), kept in step by triggers.
    ///
    /// It was made for the count of a words-only query (FTS5's count corrected for the shared
    /// matches, found from the few shared rows instead of testing each match). That count is now
    /// made from sets (``SearchDocumentCache``) and no read uses this index; it is still kept in step,
    /// as a store migrated to `v8` expects, and costs a write only for the shared rows.
    ///
    /// `item_shared` gains the feed position and id, so the shared entries among the matches
    /// are ranked from the index alone.
    ///
    /// The insert triggers are written again as `v7` writes them now: stores migrated by an
    /// earlier `v7` have one trigger that gives every inserted row a new key after the insert,
    /// which would key the shared index differently from the row.
    static let sharedMigration = """
        CREATE VIRTUAL TABLE item_search_shared USING fts5(
            title, summary, author, content = '', columnsize = 0, tokenize = 'unicode61 remove_diacritics 0');
        INSERT INTO item_search_shared (rowid, title, summary, author)
            SELECT doc, feedagg_search_text(title), feedagg_search_text(summary), feedagg_search_text(author_name)
            FROM item WHERE shared = 1;
        DROP INDEX item_shared;
        CREATE INDEX item_shared ON item(dedup_key, feed, feed_position, id, doc) WHERE shared = 1 AND staged = 0;
        DROP TRIGGER IF EXISTS item_search_insert;
        CREATE TRIGGER item_search_insert AFTER INSERT ON item WHEN NEW.doc IS NOT NULL BEGIN
            \(index("item_search", "NEW"))
        END;
        DROP TRIGGER IF EXISTS item_search_insert_keyless;
        CREATE TRIGGER item_search_insert_keyless AFTER INSERT ON item WHEN NEW.doc IS NULL BEGIN
            UPDATE item SET doc = (SELECT IFNULL(MAX(doc), 0) + 1 FROM item) WHERE rowid = NEW.rowid;
            \(index("item_search", "NEW", key: "(SELECT doc FROM item WHERE rowid = NEW.rowid)"))
            INSERT INTO item_search_shared (rowid, title, summary, author)
                SELECT doc, feedagg_search_text(title), feedagg_search_text(summary), feedagg_search_text(author_name)
                FROM item WHERE rowid = NEW.rowid AND shared = 1;
        END;
        CREATE TRIGGER item_search_shared_insert AFTER INSERT ON item WHEN NEW.doc IS NOT NULL AND NEW.shared = 1 BEGIN
            \(index("item_search_shared", "NEW"))
        END;
        CREATE TRIGGER item_search_shared_mark AFTER UPDATE OF shared ON item WHEN OLD.shared = 0 AND NEW.shared = 1
        BEGIN
            \(index("item_search_shared", "NEW"))
        END;
        CREATE TRIGGER item_search_shared_unmark AFTER UPDATE OF shared ON item WHEN OLD.shared = 1 AND NEW.shared = 0
        BEGIN
            \(unindex("item_search_shared", "OLD"))
        END;
        CREATE TRIGGER item_search_shared_update AFTER UPDATE OF title, summary, author_name ON item
        WHEN OLD.shared = 1 AND NEW.shared = 1
            AND (OLD.title IS NOT NEW.title OR OLD.summary IS NOT NEW.summary OR OLD.author_name IS NOT NEW.author_name)
        BEGIN
            \(unindex("item_search_shared", "OLD"))
            \(index("item_search_shared", "NEW"))
        END;
        CREATE TRIGGER item_search_shared_delete AFTER DELETE ON item WHEN OLD.shared = 1 BEGIN
            \(unindex("item_search_shared", "OLD"))
        END;
        """

    /// The statement that adds trigger row `row` (`NEW`) to the contentless index `table`, under
    /// `key` (the row's `doc` unless given).
    private static func index(_ table: String, _ row: String, key: String? = nil) -> String {
        """
        INSERT INTO \(table) (rowid, title, summary, author) VALUES (\(key ?? "\(row).doc"), \
        feedagg_search_text(\(row).title), feedagg_search_text(\(row).summary), feedagg_search_text(\(row).author_name));
        """
    }

    /// The statement that removes trigger row `row` (`OLD`) from the contentless index `table`:
    /// FTS5's `'delete'` with the text it was indexed with, recomputed by the same function as
    /// ``index(_:_:key:)`` (any other text would corrupt the index).
    private static func unindex(_ table: String, _ row: String) -> String {
        """
        INSERT INTO \(table) (\(table), rowid, title, summary, author) VALUES ('delete', \(row).doc, \
        feedagg_search_text(\(row).title), feedagg_search_text(\(row).summary), feedagg_search_text(\(row).author_name));
        """
    }
}

/// The sets ``SearchIndex/rowTest`` was called with lately, decoded once: a walk calls it with the
/// same text for every row it passes.
private final class RowTestSets: Sendable {
    static let shared = RowTestSets()
    private let sets = Mutex<[String: TextSet]>([:])

    func set(_ encoded: String) -> TextSet? {
        if let known = sets.withLock({ $0[encoded] }) { return known }
        guard let set = TextSet(rowTest: encoded) else { return nil }
        sets.withLock { sets in
            if sets.count >= 64 { sets.removeAll(keepingCapacity: true) }
            sets[encoded] = set
        }
        return set
    }
}
