"""Wire and storage contracts: msgspec messages only. Nothing here does I/O."""
