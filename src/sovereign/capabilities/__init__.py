"""Capability families.

Each module exports ``register(registry, ...)`` and has no import-time effects.
"""
