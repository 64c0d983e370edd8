-- The read model: what the site asks of its history (recent games, a player's games, results),
-- projected from the event logs by the projector (services/projector) and by `tabula
-- projections rebuild`, never written from anywhere else. Every column is a function of the
-- game's log up to `version`, so a rebuild from the logs gives the same rows.

-- One row per game: its GameCreated, its GameEnded and GameSealed if any, and how far its log
-- is projected. `version` and `head` are the projection's position, kept in the row itself, so
-- the rows and the position move in one transaction (a projector that stops resumes there).
CREATE TABLE games (
    game_id     text PRIMARY KEY,
    ruleset     text NOT NULL,
    variant     text NOT NULL,
    seats       integer NOT NULL CHECK (seats > 0),
    players     text[] NOT NULL,              -- player id per seat ('' when anonymous)
    created_at  timestamptz NOT NULL,         -- the first event's time
    updated_at  timestamptz NOT NULL,         -- the time of the event at `version`
    ended_at    timestamptz,                  -- the GameEnded's time
    result      text,                         -- each seat's score, "1-0", "1/2-1/2", ...
    reason      text,
    winners     integer[],
    sealed      boolean NOT NULL DEFAULT false,
    version     bigint NOT NULL CHECK (version > 0),  -- the log is projected up to here
    head        text NOT NULL                 -- h_version: the log this row was projected from
);
CREATE INDEX games_newest ON games (created_at DESC, game_id);

-- Each seated player's games (a row per seat with a player id), newest first by its index.
CREATE TABLE player_games (
    player      text NOT NULL,
    game_id     text NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    seat        integer NOT NULL CHECK (seat >= 0),
    ruleset     text NOT NULL,
    variant     text NOT NULL,
    created_at  timestamptz NOT NULL,
    ended_at    timestamptz,
    result      text,
    reason      text,
    score       text,                         -- this seat's part of `result`
    PRIMARY KEY (player, game_id, seat)
);
CREATE INDEX player_games_newest ON player_games (player, created_at DESC, game_id);
CREATE INDEX player_games_game ON player_games (game_id);

-- The projector writes them (a rebuild deletes every row and writes them again, in one
-- transaction, under an EXCLUSIVE lock that leaves reads alone: no TRUNCATE); the readers read.
GRANT SELECT, INSERT, UPDATE, DELETE ON games, player_games TO projector;
GRANT SELECT ON games, player_games TO gateway, auditor;
