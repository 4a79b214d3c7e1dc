-- The intent journal (core/intent): append-only entries, each written once
-- under its key and never changed. Committed tool attempts, intent
-- outcomes, processes' commands and parent-end plans all live here.
--
-- body is the entry's JSON, verbatim: a replayed outcome must be byte for
-- byte what was recorded. An entry of a stream has its position there
-- (stream, seq), unique; other entries have a NULL stream.
CREATE TABLE starweaver_intent_journal (
    entry_key     TEXT PRIMARY KEY,
    stream        TEXT,
    seq           INTEGER NOT NULL CHECK (seq >= 0),
    body          TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    UNIQUE (stream, seq)
);
