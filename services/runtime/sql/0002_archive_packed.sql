-- The archive laid out again: one row per game, its log and command ids each packed into one
-- value (services/runtime/archived.py: msgpack of the exact stored fields, zlib-compressed),
-- instead of a row per event. A row per event cost about what Valkey did (~400 bytes an
-- event, 120 KB a 3-D Chess game); packed, a game is a few KB to a few tens of KB, and reading
-- one back is one row.
--
-- The rows 0001 made are dropped, not converted: no release of Tabula has removed an archived
-- game's keys from Valkey (that right comes with this layout), so every game archived under
-- 0001 is still whole in the hot store, and the archiver's sweep archives it again.

DROP TABLE archived_commands;
DROP TABLE archived_events;
DROP TABLE archived_games;

CREATE TABLE archived_games (
    game_id       text PRIMARY KEY,
    ruleset       text NOT NULL,
    chain         text NOT NULL,              -- the hash chain version (meta `chain`)
    head_version  bigint NOT NULL CHECK (head_version > 1),
    head_hash     text NOT NULL,              -- h_n, lowercase hex (meta `head`): the GameSealed
    result        text,
    reason        text,
    created_at    timestamptz NOT NULL,       -- the game's first event's time
    sealed_at     timestamptz NOT NULL,       -- the GameSealed event's time
    archived_at   timestamptz NOT NULL DEFAULT now(),
    -- How `log` and `commands` are packed (archived.py FORMAT); a later layout gets a new
    -- number, so every row says how to read it back.
    format        smallint NOT NULL,
    -- Every stream entry (tabula:game:{id}:log) as [entry id, {field: stored bytes}], in order.
    log           bytea NOT NULL,
    -- The command ids (tabula:game:{id}:cmds): {command id: "<first> <last> <hash>"}, the
    -- receipt a late retry of a command is answered with.
    commands      bytea NOT NULL
);
-- Packed already: PostgreSQL's own compression would only spend time on it.
ALTER TABLE archived_games ALTER COLUMN log SET STORAGE EXTERNAL,
    ALTER COLUMN commands SET STORAGE EXTERNAL;
CREATE INDEX archived_games_created_at ON archived_games (created_at);

-- The archiver adds and reads (INSERT ... ON CONFLICT DO NOTHING: archiving twice is
-- harmless); the readers read. Nobody but the owner updates, deletes or truncates.
GRANT SELECT, INSERT ON archived_games TO archiver;
GRANT SELECT ON archived_games TO projector, gateway, auditor, rules;
