"""The archiver: copies sealed games from Valkey into PostgreSQL's archive (issue 21)."""
