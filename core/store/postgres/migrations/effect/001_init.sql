-- The effect journal (core/effect): one row per effect, changed only by
-- compare-and-swap on revision.
--
-- record_json is the record's envelope (id, key, tool, class, state,
-- failure), queryable as JSONB. The JSON payloads live verbatim in input
-- and output as TEXT: JSONB would reorder their keys, rewrite their
-- numbers (1e3 becomes 1000) and refuse \u0000, and a replayed output
-- must be byte for byte what the tool returned.
--
-- A NULL idempotency_key is an effect without a key (UNIQUE allows many).
CREATE TABLE starweaver_effects (
    effect_id       TEXT PRIMARY KEY,
    idempotency_key TEXT UNIQUE,
    revision        BIGINT NOT NULL,
    record_json     JSONB NOT NULL,
    input           TEXT NOT NULL,
    output          TEXT,
    updated_at_ms   BIGINT NOT NULL
);
