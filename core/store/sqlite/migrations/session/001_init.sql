-- Sessions of core/agent's SessionStore: one row per session id, holding the
-- state agent.Session.ExportState produces and the revision that every save
-- compares and swaps.
CREATE TABLE starweaver_sessions (
	session_id    TEXT    NOT NULL PRIMARY KEY,
	revision      INTEGER NOT NULL CHECK (revision > 0),
	state         BLOB    NOT NULL,
	created_at_ms INTEGER NOT NULL,
	updated_at_ms INTEGER NOT NULL
);
