"""Capability families. Each module exports ``register(registry, ...)``, with no import-time effects."""
