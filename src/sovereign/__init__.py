"""Sovereign: the Conversation Service of a private household assistant.

See docs and DESIGN: a local model proposes capability calls; the executor
(:mod:`sovereign.executor`) decides what actually runs.
"""

__version__ = "0.1.0"
