-- The effect journal (core/effect): one row per effect, changed only by
-- compare-and-swap on revision.
--
-- record_json is the record's envelope (id, key, tool, class, state,
-- failure). The JSON payloads live verbatim in input and output: encoding
-- them inside record_json would compact and re-escape them, and a
-- replayed output must be byte for byte what the tool returned.
--
-- A NULL idempotency_key is an effect without a key (UNIQUE allows many).
CREATE TABLE starweaver_effects (
    effect_id       TEXT PRIMARY KEY,
    idempotency_key TEXT UNIQUE,
    revision        INTEGER NOT NULL,
    record_json     TEXT NOT NULL,
    input           TEXT NOT NULL,
    output          TEXT,
    updated_at_ms   INTEGER NOT NULL
);
