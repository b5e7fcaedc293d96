"""Model backends behind one interface, :class:`.base.ModelBackend` (DESIGN §4)."""
