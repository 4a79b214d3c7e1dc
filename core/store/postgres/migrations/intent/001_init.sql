-- The intent journal (core/intent): append-only entries, each written once
-- under its key and never changed. Committed tool attempts, intent
-- outcomes, processes' commands and parent-end plans all live here.
--
-- body is the entry's JSON as TEXT, verbatim: JSONB would reorder keys and
-- rewrite numbers, and a replayed outcome must be byte for byte what was
-- recorded. An entry of a stream has its position there (stream, seq),
-- unique; other entries have a NULL stream. Keys and streams use the "C"
-- collation: byte order whatever the locale.
CREATE TABLE starweaver_intent_journal (
    entry_key     TEXT COLLATE "C" PRIMARY KEY,
    stream        TEXT COLLATE "C",
    seq           BIGINT NOT NULL CHECK (seq >= 0),
    body          TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    UNIQUE (stream, seq)
);
