"""Model backends behind one interface, :class:`~sovereign.conversation.backends.base.ModelBackend`."""
