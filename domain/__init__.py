"""Pure game rules: no I/O, no clock, no randomness. Random outcomes arrive as events."""
