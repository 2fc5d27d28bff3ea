import FeedSearch
import GRDB

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
