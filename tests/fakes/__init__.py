"""Fake household services on 127.0.0.1, built from their documented response shapes."""
