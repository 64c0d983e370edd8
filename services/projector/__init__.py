"""The projector: the read model (games, each player's games) in PostgreSQL, projected from the
event logs (issue 21)."""
