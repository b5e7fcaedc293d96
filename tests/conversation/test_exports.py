"""The public surface of sovereign.conversation that the service builds against."""

from __future__ import annotations

import sovereign.conversation as conversation


def test_conversation_exports_exactly_the_agreed_names():
    assert sorted(conversation.__all__) == sorted(
        [
            "Citation",
            "InvalidConfirmation",
            "InvalidEdit",
            "ModelBackend",
            "ModelError",
            "ContextTooLong",
            "ModelUnavailable",
            "PendingConfirmation",
            "PendingTurn",
            "PendingTurnStore",
            "Progress",
            "ProgressSink",
            "Receipt",
            "TokenSink",
            "ToolCatalog",
            "TurnFailed",
            "TurnLoop",
            "TurnResult",
            "TurnStopped",
            "model_safe_name",
        ]
    )
    for name in conversation.__all__:
        assert getattr(conversation, name) is not None


def test_turn_loop_modules_import_nothing_of_ours_but_the_executor():
    """DESIGN §1: the embedded backend too (the service hands it the model file's check)."""
    import ast
    from pathlib import Path

    package = Path(conversation.__file__).parent
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                top = node.module.split(".")
                if top[0] == "sovereign":  # expiring, po_catalogs: leaves, importing none of ours
                    allowed = ("executor", "conversation", "expiring", "po_catalogs")
                    assert top[1] in allowed, (path.name, node.module)
