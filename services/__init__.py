"""Tabula's services: thin NATS handlers around the store and the pure domain."""
