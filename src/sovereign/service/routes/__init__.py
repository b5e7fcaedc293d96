"""HTTP routes of the Conversation Service, one module per area."""
