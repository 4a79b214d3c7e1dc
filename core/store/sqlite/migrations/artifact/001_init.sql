-- Artifacts: content-addressed bytes per scope (core/artifact).
CREATE TABLE starweaver_artifacts (
    scope         TEXT    NOT NULL,
    artifact_id   TEXT    NOT NULL,
    media_type    TEXT    NOT NULL,
    size_bytes    INTEGER NOT NULL CHECK (size_bytes >= 0),
    sha256        TEXT    NOT NULL,
    name          TEXT,
    bytes         BLOB    NOT NULL,
    created_at_ms INTEGER NOT NULL CHECK (created_at_ms >= 0),
    expires_at_ms INTEGER CHECK (expires_at_ms >= 0),
    PRIMARY KEY (scope, artifact_id)
);

-- PurgeExpired walks a scope's artifacts in (expires_at_ms, artifact_id) order.
CREATE INDEX starweaver_artifacts_scope_expiry ON starweaver_artifacts (scope, expires_at_ms, artifact_id);

-- Idempotency keys: (scope, key) names one artifact; deleting the artifact
-- deletes its keys.
CREATE TABLE starweaver_artifact_idempotency (
    scope           TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    artifact_id     TEXT NOT NULL,
    PRIMARY KEY (scope, idempotency_key),
    FOREIGN KEY (scope, artifact_id) REFERENCES starweaver_artifacts (scope, artifact_id) ON DELETE CASCADE
);

-- The cascade looks keys up by artifact: without this index every delete
-- would scan the scope's keys.
CREATE INDEX starweaver_artifact_idempotency_artifact ON starweaver_artifact_idempotency (scope, artifact_id);
